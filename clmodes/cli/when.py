"""`--since WHEN`: a moment as people write it on a command line.

WHEN is a duration back from now (`7d`, `12h`, `30m`, `90s`, `2w`; a number and one unit)
or an ISO 8601 date or date and time (`2026-11-30`, `2026-11-30T08:00`, with `Z` or an
offset when it is not local time). A date or time without an offset is local time, as
`date` prints it, not UTC: that is what a person at the terminal means by "since this
morning". Anything else, a moment in the future included, is refused in one line naming
WHEN (a future `--since` would select nothing, and an empty bundle is refused later with
a less useful reason). Texts longer than `LONGEST` are refused before they are parsed.
"""

from __future__ import annotations

import re
import time
from datetime import datetime

from clmodes.cli.errors import UsageError

UNITS_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
DURATION = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([smhdw])\s*", re.ASCII)
LONGEST = 40
OLDEST_S = 1000 * 365 * 86400.0  # a duration further back than this is a typo


def parse_when(text: str, now: float | None = None) -> float:
    """The POSIX time WHEN names; `UsageError` (one line) if it names none."""
    now = time.time() if now is None else now
    shown = repr(text[:LONGEST]) + ("..." if len(text) > LONGEST else "")
    if len(text) > LONGEST:
        raise UsageError(f"--since {shown}: not a time")
    found = DURATION.fullmatch(text)
    if found is not None:
        seconds = float(found.group(1)) * UNITS_S[found.group(2)]
        if seconds > OLDEST_S:
            raise UsageError(f"--since {shown}: a duration of more than 1000 years")
        return now - seconds
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"--since {shown}: not a time (a duration like 7d, 12h, 30m, or an "
                         "ISO date or date and time like 2026-11-30T08:00)") from None
    try:
        when = moment.timestamp()  # a naive one is local time
    except (OverflowError, OSError, ValueError) as error:
        raise UsageError(f"--since {shown}: not a time this machine can represent ({error})") from None
    if when > now:
        raise UsageError(f"--since {shown}: in the future (it would select nothing)")
    return when
