"""`import clmodes` loads what a warmed process needs and nothing that only a source build
needs: the preprocessor (pcpp) and the batch machinery load on the first build."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

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


DOCUMENTED = (Path(__file__).parents[2] / "docs" / "contract.md",
              Path(__file__).parents[2] / "README.md")
# A file's name is written with a dot too (`clmodes.toml`); a path with slashes
# (`clmodes/cli/run.py`) never matches, since a dotted name must follow `clmodes` at once.
FILE_SUFFIXES = frozenset(("py", "md", "toml", "json", "cl", "h", "txt", "cfg", "ini",
                           "yaml", "yml", "sqlite", "db", "whl", "gz"))


def code_spans(markdown: str) -> list[str]:
    """The text of every code span: fenced blocks, indented blocks, and inline spans
    (which may continue on the next line of their paragraph)."""
    fence = re.compile(r"^```.*?^```", re.S | re.M)
    prose = fence.sub("", markdown)
    return (fence.findall(markdown) + re.findall(r"(?:^(?: {4}|\t).*\n?)+", prose, re.M)
            + re.findall(r"(?<!`)`([^`]+)`(?!`)", prose))


def documented_names() -> list[str]:
    """Every `clmodes.<dotted>` the contract and the README write in code, as a user would
    type it after `import clmodes`: not preceded by a word, a dot, a slash or a dash (not
    part of a path or of another name), and not a file's name (its last part a suffix)."""
    names = set()
    for doc in DOCUMENTED:
        for span in code_spans(doc.read_text()):
            for found in re.finditer(r"(?<![\w./-])clmodes(?:\.[A-Za-z_]\w*)+", span):
                if found.group().rsplit(".", 1)[1] not in FILE_SUFFIXES:
                    names.add(found.group())
    return sorted(names)


# Each name from the same state, that of a process that ran only `import clmodes`: a
# forked child per name, so that a name resolved earlier (`clmodes.Tunable` imports
# clmodes.tune) never makes a later one (`clmodes.tune.Exhaustive`) resolve by chance.
RESOLVE = """
import functools, json, os, sys
import clmodes
unresolved = []
for name in json.loads(sys.argv[1]):
    child = os.fork()
    if child == 0:
        try:
            functools.reduce(getattr, name.split(".")[1:], clmodes)
        except Exception as error:
            os.write(2, f"{name}: {type(error).__name__}: {error}\\n".encode())
            os._exit(1)
        os._exit(0)
    if os.waitpid(child, 0)[1] != 0:
        unresolved.append(name)
print(json.dumps(unresolved))
"""


def test_every_documented_dotted_name_resolves_after_import_clmodes_alone() -> None:
    """`import clmodes; clmodes.tune.Exhaustive()`, as the contract writes it, raised
    AttributeError once imports became lazy: a submodule nobody imported is no attribute."""
    names = documented_names()
    assert {"clmodes.tune.Exhaustive", "clmodes.bundle.export", "clmodes.remote.configure",
            "clmodes.tune.answers.nearest"} <= set(names), names
    assert not [n for n in names if "/" in n or n.endswith(".py")]
    out = subprocess.run([sys.executable, "-c", RESOLVE, json.dumps(names)], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    unresolved = json.loads(out.stdout.splitlines()[-1])
    assert unresolved == [], out.stderr
