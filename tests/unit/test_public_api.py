"""The public face: no exported function shadows a submodule of the same name (`import
clmodes.warm as w` bound the function), and the tuning vocabulary sits beside Tunable."""

from __future__ import annotations

import pkgutil

import clmodes


def test_no_exported_name_is_also_a_submodule():
    submodules = {info.name for info in pkgutil.iter_modules(clmodes.__path__)}
    assert not submodules & set(clmodes.__all__), submodules & set(clmodes.__all__)


def test_the_tuning_vocabulary_is_exported_and_the_machinery_is_not():
    for name in ("Tunable", "TuningSpace", "Budget", "Exhaustive", "RandomSample",
                 "LocalSearch", "Genetic", "Tolerance", "RacePolicy", "kernel_variants"):
        assert name in clmodes.__all__ and hasattr(clmodes, name)
    assert not {"TuneCache", "TuneKey", "run_search"} & set(clmodes.tune.__all__)
