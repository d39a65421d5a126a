"""Fields of a record read defensively: a tune record is JSON from anywhere (other
machines, other versions, a hostile bundle), so a field of the wrong type is None."""

from __future__ import annotations

import math


def number(value: object) -> float | None:
    """A finite real number, else None (a bool is not a number here)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def texts(value: object) -> tuple[str, ...]:
    """The strings of a list (a hostile record's other items dropped), else ()."""
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()
