"""Autotuning: tunables, racing candidates by profiling events (`clmodes.measure`), the
tune cache (DESIGN §2)."""

from clmodes.tune.cache import TuneCache, TuneKey
from clmodes.tune.racing import Measurement, RacePolicy
from clmodes.tune.tunable import Tunable
from clmodes.tune.variants import Variant, grid, kernel_variants

__all__ = [
    "Measurement",
    "RacePolicy",
    "TuneKey",
    "Tunable",
    "Variant",
    "grid",
    "kernel_variants",
    "TuneCache",
]
