"""Sizes in bytes as people write them: `500MB`, `2GiB`, `800k`, `1.5G`, `4096`.

One grammar for every size clmodes reads (`clmodes cache prune --max-size`,
`$CLMODES_CACHE_MAX_SIZE`, `$CLMODES_BUNDLE_MAX_SIZE`). The units are binary whether or not
the `i` is written (`K` = `KB` = `KiB` = 1024 bytes), as the bundle size limit always read
them: two readings of `MB` in one tool would make one of them a surprise, and a cap on a
cache is about staying small, not about billing. Only ASCII digits are read (Python's `\\d`
also takes other scripts' digits), and a text longer than `LONGEST` is refused before it is
parsed, so a hostile value costs nothing and never reaches `int()`'s digit limit.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50}
SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGTP]?)(?:I?B)?\s*", re.IGNORECASE | re.ASCII)
LONGEST = 32  # characters: far more than any real size needs


class SizeError(ValueError):
    """A text that is not a size; its message is one line naming the text."""


def parse_size(text: str) -> int:
    """The number of bytes `text` says (rounded down to a whole byte); `SizeError` if it
    is not a size."""
    shown = repr(text[:LONGEST]) + ("..." if len(text) > LONGEST else "")
    found = SIZE.fullmatch(text) if len(text) <= LONGEST else None
    if found is None:
        raise SizeError(f"{shown} is not a size (bytes, or a number with K, M, G, T: "
                        "500MB, 2GiB, 800k; binary units)")
    try:
        number = Decimal(found.group(1))
    except InvalidOperation as error:  # the pattern admits only decimals; kept for safety
        raise SizeError(f"{shown} is not a size") from error
    return int(number * UNITS[found.group(2).upper()])


def shown(size: int) -> str:
    """A size for people: the largest binary unit it is a whole number of, else bytes."""
    for unit in ("P", "T", "G", "M", "K"):
        if size >= UNITS[unit] and size % UNITS[unit] == 0:
            return f"{size // UNITS[unit]} {unit}iB"
    return f"{size} bytes"
