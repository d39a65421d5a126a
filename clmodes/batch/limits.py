"""How many units one build may hold, per runtime: past it, one bigger build stops paying.

Measured with `ci/bench/bench_batch_size.py` (build time against units in one program,
against one build per unit); ARCHITECTURE.md has the table. `$CLMODES_MAX_BATCH` overrides
it (a positive integer).
"""

from __future__ import annotations

import os

# Platform name substring (lower case) -> most units per build.
_LIMITS = (
    ("portable computing language", 128),
    ("intel", 32),
    ("oclgrind", 32),
)
DEFAULT = 32


def max_units(platform_name: str) -> int:
    """Most units per `Program.build` on a platform."""
    override = os.environ.get("CLMODES_MAX_BATCH", "").strip()
    if override.isdigit() and int(override) > 0:
        return int(override)
    lowered = platform_name.lower()
    return next((limit for needle, limit in _LIMITS if needle in lowered), DEFAULT)
