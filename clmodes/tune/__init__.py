"""Autotuning: tunables, tuning spaces and search strategies (space.py, strategies.py,
budget.py), racing candidates by profiling events (`clmodes.measure`), the
tune cache (docs/contract.md, Autotune).

What is exported here is the tuning vocabulary a user writes with. The machinery stays in
its modules (`tune.decisions.cache.TuneCache`, `tune.decisions.cache.TuneKey`, `tune.search.strategies.run_search`,
the driver of a strategy without OpenCL that benchmarks and tests use)."""

from clmodes.tune import bucket
from clmodes.tune.search.budget import Budget
from clmodes.tune.checking.comparison import Tolerance
from clmodes.tune.measuring.racing import Measurement, RacePolicy, RunsAs
from clmodes.tune.tunable import Tunable
from clmodes.tune.search.restriction import RestrictionError
from clmodes.tune.search.space import TuningSpace
from clmodes.tune.search.strategies import (
    DEFAULT_STRATEGY,
    Exhaustive,
    Genetic,
    LocalSearch,
    ModelGuided,
    RandomSample,
    Search,
    Strategy,
)
from clmodes.tune.variants import Variant, grid, kernel_variants

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
