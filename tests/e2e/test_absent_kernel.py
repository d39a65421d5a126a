"""A kernel its source does not define (inside an `#if` branch its options leave out: a
name a scan of the text finds) fails with the same error in every process, and a later
process on the same store learns it from the store instead of building the unit again."""

from __future__ import annotations

import sqlite3

import pytest

from clmodes.store import FILENAME
from support.subprocesses import RUNTIMES, last_json, require_runtime, run_cli, run_python

# Asks for each name in `names` (`present` is defined; `optional_one` only with
# -DWITH_OPTIONAL), by `clmodes.warm` or in a plain run; prints each one's value or error
# line and the process's compilation statistics.
CODE = """
import json, numpy as np, pyopencl.array as cla, clmodes
from support.statistics import statistics_of
source = '''
__kernel void present(__global float* o) {{ o[get_global_id(0)] = 1.0f; }}
#if defined(WITH_OPTIONAL)
__kernel void optional_one(__global float* o) {{ o[get_global_id(0)] = 2.0f; }}
#endif
'''
names, options, warm = {names!r}, {options!r}, {warm!r}
stream = clmodes.client().stream()
out = cla.zeros(stream.queue, 4, np.float32)
found = {{}}
def work():
    for name in names:
        try:
            stream.launch(clmodes.Kernel(source, name, options=options), (4,), None, out.data)
            found[name] = float(out.get()[0])
        except clmodes.KernelBuildError as error:
            found[name] = str(error).splitlines()[-1]
s = statistics_of(work, warm)
s = s.as_dict()["compilation"]
print(json.dumps({{"found": found, "builds": s["builds"], "loaded": s["loaded"]}}))
"""
NONE = "its source has no __kernel function named 'optional_one'"


@pytest.fixture(params=list(RUNTIMES.values()), ids=list(RUNTIMES))
def runtime(request) -> str:
    return require_runtime(request.param)


def run(store, runtime, names, options=(), warm=False, **environment):
    code = CODE.format(names=list(names), options=list(options), warm=warm)
    return last_json(run_python(code, store, CLMODES_DEVICE=runtime, **environment))


def absent_rows(store) -> list[str]:
    connection = sqlite3.connect(store / FILENAME)
    rows = [name for (name,) in connection.execute("SELECT name FROM absent_kernel")]
    connection.close()
    return rows


def test_a_kernel_the_source_lacks_is_remembered_absent(tmp_path, runtime):
    warmed = run(tmp_path, runtime, ["present", "optional_one"], warm=True)
    assert warmed["builds"] >= 1
    assert absent_rows(tmp_path) == ["optional_one"]
    second = run(tmp_path, runtime, ["present", "optional_one"])
    assert second["found"] == {"present": 1.0, "optional_one": NONE}, "the same error"
    assert second["builds"] == 0 and second["loaded"] == 1, second
    alone = run(tmp_path, runtime, ["optional_one"])
    assert alone["found"] == {"optional_one": NONE} and alone["builds"] == 0, alone
    # Nothing would build it: no miss to refuse under CLMODES_STRICT, the same error.
    strict = run(tmp_path, runtime, ["optional_one"], CLMODES_STRICT="1")
    assert strict["found"] == {"optional_one": NONE} and strict["builds"] == 0, strict


def test_a_plain_run_fails_it_the_same_and_records_nothing(tmp_path, runtime):
    """A run under EXECUTE persists nothing (clmodes/capture.py), absences included."""
    plain = run(tmp_path, runtime, ["present", "optional_one"])
    assert plain["found"] == {"present": 1.0, "optional_one": NONE}
    assert absent_rows(tmp_path) == []


def test_options_that_define_it_build_it(tmp_path, runtime):
    """The fact is the key's: other options (another `#if` branch) are another kernel."""
    run(tmp_path, runtime, ["present", "optional_one"], warm=True)
    defined = run(tmp_path, runtime, ["optional_one"], ["-DWITH_OPTIONAL"])
    assert defined["found"] == {"optional_one": 2.0} and defined["builds"] == 1, defined


def test_clearing_the_store_forgets_it(tmp_path, runtime):
    run(tmp_path, runtime, ["present", "optional_one"], warm=True)
    assert absent_rows(tmp_path)
    assert run_cli(tmp_path, "cache", "clear").returncode == 0
    assert absent_rows(tmp_path) == []
