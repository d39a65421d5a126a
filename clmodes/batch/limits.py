"""What a build costs per runtime: how many units one build may hold (past it, one bigger
build stops paying), and the fixed cost of one build (what batching a unit saves at most).

Measured by the former `ci/bench/bench_batch_size.py` at commit 2fb9fda (build time against
units in one program, against one build per unit); docs/decisions/batch-size.md has the
figures. `$CLMODES_MAX_BATCH` overrides the units per build (a positive integer).
"""

from __future__ import annotations

import dataclasses

from clmodes import settings


@dataclasses.dataclass(frozen=True)
class BuildCosts:
    """A runtime's builds: most units one may hold, and what one costs whatever it holds."""

    max_units: int
    fixed_s: float


# Platform name substring (lower case) -> its builds (docs/decisions/batch-size.md: PoCL
# 0.15-0.25 s fixed, Intel's CPU runtime ~50 ms). A GPU driver's fixed cost is larger (a
# build there runs a device back end; 0.3 s is below what NVIDIA's and AMD's drivers
# take for a small program), so an unknown platform batches more.
_RUNTIMES = (
    ("portable computing language", BuildCosts(128, 0.2)),
    ("intel", BuildCosts(32, 0.05)),
    ("oclgrind", BuildCosts(32, 0.05)),
)
DEFAULT = BuildCosts(32, 0.3)


def build_costs(platform_name: str) -> BuildCosts:
    lowered = platform_name.lower()
    return next((costs for needle, costs in _RUNTIMES if needle in lowered), DEFAULT)


def max_units(platform_name: str) -> int:
    """Most units per `Program.build` on a platform (`$CLMODES_MAX_BATCH` overrides)."""
    override = settings.MAX_BATCH.get()
    if override is not None:
        return override
    return build_costs(platform_name).max_units


def build_fixed_s(platform_name: str) -> float:
    """What one build costs on a platform before it compiles anything of its own."""
    return build_costs(platform_name).fixed_s
