"""What a build costs per runtime: how many units one build may hold (past it, one bigger
build stops paying), and the fixed cost of one build (what batching a unit saves at most).

Measured with `ci/bench/bench_batch_size.py` (build time against units in one program,
against one build per unit); ARCHITECTURE.md has the table. `$CLMODES_MAX_BATCH` overrides
the units per build (a positive integer).
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


# Platform name substring (lower case) -> seconds one `Program.build` costs whatever it
# holds (`bench_batch_size.py`: PoCL 0.15-0.25 s, Intel's CPU runtime ~50 ms). A GPU
# driver's is larger (a build there runs a device back end; 0.3 s is below what NVIDIA's
# and AMD's drivers take for a small program), so an unknown platform batches more.
_FIXED_S = (
    ("portable computing language", 0.2),
    ("intel", 0.05),
    ("oclgrind", 0.05),
)
DEFAULT_FIXED_S = 0.3


def build_fixed_s(platform_name: str) -> float:
    """What one build costs on a platform before it compiles anything of its own."""
    lowered = platform_name.lower()
    return next((cost for needle, cost in _FIXED_S if needle in lowered), DEFAULT_FIXED_S)
