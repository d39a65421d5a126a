"""Autotuning (docs/contract.md, Autotune). What is exported here is the tuning vocabulary
a user writes with; the machinery is in sub-packages by concern, each saying in its
docstring what it holds, which module to read first and the decision or trap it keeps:

- `search/`: the space, its restrictions and starts, the budget, the strategies;
- `decisions/`: the tune cache, its keys, one measurement of a key across processes;
- `measuring/`: timing, racing, the final, what a tune knows, its inputs;
- `checking/`: the candidate set, a candidate's identity, the reference check;
- `fleet/`: who measures a generation: `Local`, or a fleet's nodes on the sharing hook;
- `answers/`: nearest-device answers, and their verification here;
- `reporting/`: tune entries as typed records for the CLI, roofline scores.

At the top: `tunable.py` (`Tunable`: read first), `tuner.py` (a miss measured), and
`bucket.py` and `variants.py` (vocabulary). Layers, lowest first, checked by
ci/check_architecture.py (`INNER_LAYERS`): `search`, `decisions` and `measuring` import
nothing else of tune; `checking` and `fleet` build on `search`; `answers` and `reporting`
read `decisions` and `measuring`; the top-level modules drive them all, and no
sub-package imports one of them.

The machinery's names are not exported (`decisions.cache.TuneCache`, `TuneKey`;
`search.strategies.run_search`, the driver of a strategy without OpenCL that benchmarks
and tests use)."""

from typing import TYPE_CHECKING

from clmodes import lazy as _lazy
from clmodes.tune import bucket

if TYPE_CHECKING:
    from clmodes.tune.search.budget import Budget
    from clmodes.tune.checking.comparison import Tolerance
    from clmodes.tune.measuring.policy import RacePolicy, RunsAs
    from clmodes.tune.measuring.racing import Measurement
    from clmodes.tune.tunable import Tunable
    from clmodes.tune.search.restriction import RestrictionError
    from clmodes.tune.search.space import TuningSpace
    from clmodes.tune.search.strategies import (
        DEFAULT_STRATEGY, Exhaustive, Genetic, LocalSearch, ModelGuided, RandomSample, Search,
        Strategy,
    )
    from clmodes.tune.variants import Variant, grid, kernel_variants

# Each name loads its module at first use (`clmodes.lazy`): `from clmodes.tune import
# LocalSearch` loads one strategy, not five, and a warmed process loads only what its
# tunables name (ci/bench/bench_warm_start.py).
_STRATEGIES = "clmodes.tune.search.strategies"
_LAZY = {
    "Budget": "clmodes.tune.search.budget",
    "Tolerance": "clmodes.tune.checking.comparison",
    "Measurement": "clmodes.tune.measuring.racing",
    **dict.fromkeys(("RacePolicy", "RunsAs"), "clmodes.tune.measuring.policy"),
    "Tunable": "clmodes.tune.tunable",
    "RestrictionError": "clmodes.tune.search.restriction",
    "TuningSpace": "clmodes.tune.search.space",
    **dict.fromkeys(("DEFAULT_STRATEGY", "Exhaustive", "Genetic", "LocalSearch", "ModelGuided",
                     "RandomSample", "Search", "Strategy"), _STRATEGIES),
    **dict.fromkeys(("Variant", "grid", "kernel_variants"), "clmodes.tune.variants"),
}
__getattr__, __dir__ = _lazy.on_first_use(globals(), _LAZY)

__all__ = [
    "Budget",
    "bucket",
    "DEFAULT_STRATEGY",
    "Exhaustive",
    "Genetic",
    "LocalSearch",
    "ModelGuided",
    "RandomSample",
    "RestrictionError",
    "Search",
    "Strategy",
    "TuningSpace",
    "Measurement",
    "RacePolicy",
    "RunsAs",
    "Tolerance",
    "Tunable",
    "Variant",
    "grid",
    "kernel_variants",
]
