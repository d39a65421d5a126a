"""`import clmodes` loads what a warmed process needs and nothing that only a source build
needs: the preprocessor (pcpp) and the batch machinery load on the first build."""

from __future__ import annotations

import json
import subprocess
import sys

BUILD_ONLY = ("pcpp", "clmodes.batch.preprocess", "clmodes.batch.unit", "clmodes.batch.program")


def loaded_after(statement: str) -> set[str]:
    code = f"{statement}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_import_clmodes_loads_no_build_machinery() -> None:
    loaded = loaded_after("import clmodes")
    assert not loaded & set(BUILD_ONLY), sorted(loaded & set(BUILD_ONLY))


def test_the_batch_package_still_offers_its_names() -> None:
    loaded = loaded_after("from clmodes.batch import Unit, plan, DeviceTraits")
    assert {"clmodes.batch.unit", "clmodes.batch.program", "clmodes.batch.predefined"} <= loaded


def test_import_clmodes_loads_no_tuning_probing_or_warming() -> None:
    """A process running a pyopencl program or loading warmed kernels needs none of them."""
    loaded = loaded_after("import clmodes")
    assert not {m for m in loaded if m.startswith(("clmodes.tune", "clmodes.probing", "clmodes.warming"))}


def test_their_public_names_resolve_on_first_use() -> None:
    loaded = loaded_after("import clmodes\nassert clmodes.Tunable.__name__ == 'Tunable'\n"
                          "from clmodes import warm, probe, roofline_fraction, LocalSearch")
    assert {"clmodes.tune.tunable", "clmodes.warming", "clmodes.probing", "clmodes.roofline"} <= loaded


MAINTENANCE = ("clmodes.store.pruning", "clmodes.cache_size", "clmodes.checking",
               "clmodes.compiler_probe", "clmodes.batch.predefined")


def test_import_clmodes_loads_no_maintenance_nor_compiler_probe() -> None:
    """Pruning, `clmodes check` and the compiler probe are a command's or a source build's:
    a warmed start pays none of them (ci/bench/bench_warm_start.py)."""
    loaded = loaded_after("import clmodes\nclmodes.Store")
    assert not loaded & set(MAINTENANCE), sorted(loaded & set(MAINTENANCE))
    named = loaded_after("from clmodes import prune, PruneReport, check, CheckReport")
    assert {"clmodes.store.pruning", "clmodes.cache_size", "clmodes.checking"} <= named


def test_a_tune_name_loads_its_own_strategy_only() -> None:
    loaded = loaded_after("from clmodes.tune import LocalSearch, Tunable")
    others = {"clmodes.tune.search.strategies." + s
              for s in ("exhaustive", "genetic", "model_guided", "random_sample", "running")}
    assert not loaded & others, sorted(loaded & others)
    assert "clmodes.tune.search.strategies.genetic" in loaded_after("from clmodes.tune import Genetic")


def test_kernel_digests_are_computed_at_first_read_and_stay_what_they_were() -> None:
    """`Kernel.key` is read lazily (hundreds of kernels defined at a library's import),
    and is the digest stores were written under: the JSON of its parts, SHA-256."""
    import hashlib
    import json as _json

    from clmodes.kernel import Kernel

    kernel = Kernel("kernel void f(global int *a) { a[0] = N; }", "f", {"N": 3}, ["-cl-mad-enable"])
    assert "key" not in vars(kernel) and "unit_key" not in vars(kernel)
    unit = hashlib.sha256(_json.dumps([kernel.source, [["N", "3"]], ["-cl-mad-enable"]]).encode()).hexdigest()
    assert kernel.unit_key == unit
    assert kernel.key == hashlib.sha256(_json.dumps([unit, "f"]).encode()).hexdigest()
    assert hash(kernel) == hash(kernel.key) and kernel == Kernel(kernel.source, "f", {"N": "3"}, ["-cl-mad-enable"])


RACE_AND_CHECK = ("clmodes.tune.measuring.racing", "clmodes.tune.measuring.timing",
                  "clmodes.tune.measuring.inputs", "clmodes.tune.answers.verify",
                  "clmodes.tune.checking.reference", "clmodes.tune.checking.comparison")


def test_defining_tunables_loads_no_race_and_no_check() -> None:
    """kernels_cl defines its Tunables at import; a warmed process (every key stored) never
    races nor checks, so their machinery loads at the first key measured or answered."""
    loaded = loaded_after("import kernels_cl.workloads")
    assert not loaded & set(RACE_AND_CHECK), sorted(loaded & set(RACE_AND_CHECK))
    tolerance = loaded_after("import clmodes\nclmodes.Tunable('t', key=len, candidates={'a': print},"
                             " tolerance=clmodes.Tolerance(rtol=1e-3))")
    assert "clmodes.tune.checking.comparison" in tolerance


def test_counting_loads_no_statistics_snapshots() -> None:
    """Every launch counts (`execution.counters`); the snapshots are a reader's."""
    loaded = loaded_after("import clmodes")
    assert "clmodes.execution.statistics" not in loaded
    read = loaded_after("import clmodes\nassert clmodes.ExecutionStatistics().compilation.kernels == 0")
    assert "clmodes.execution.statistics" in read
