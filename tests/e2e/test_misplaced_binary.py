"""A stored binary that lacks its kernel's entry point is dropped with one warning and the
kernel is built from source, as a refused binary is (issue 24, item 11)."""

from __future__ import annotations

import sqlite3

import pytest

from clmodes.store import FILENAME
from support.subprocesses import RUNTIMES, last_json, require_runtime, run_python

# `warm` or run one kernel (`first` writes 1, `second` 2): the values and statistics.
CODE = """
import json, numpy as np, pyopencl.array as cla, clmodes
name, warm = {name!r}, {warm!r}
source = "__kernel void NAME(__global float* o) {{ o[get_global_id(0)] = VALUE; }}"
kernel = clmodes.Kernel(source.replace("NAME", name).replace("VALUE", {value!r}), name)
stream = clmodes.client().stream()
out = cla.zeros(stream.queue, 4, np.float32)
work = lambda: stream.launch(kernel, (4,), None, out.data)
c = clmodes.StatisticsCollector()
if warm:
    s = clmodes.warm(work)
else:
    with clmodes.ProcessModeOverride(clmodes.ProcessMode.EXECUTE, c):
        work()
    s = clmodes.StatisticsReader(c).statistics()
print(json.dumps({{"value": float(out.get()[0]), **s.as_dict()["compilation"]}}))
"""
WARNING = "has no kernel 'first', which the store says it holds"


@pytest.fixture(params=list(RUNTIMES.values()), ids=list(RUNTIMES))
def runtime(request) -> str:
    return require_runtime(request.param)


def run(store, runtime, name, value, warm=False):
    out = run_python(CODE.format(name=name, value=value, warm=warm), store, CLMODES_DEVICE=runtime)
    return last_json(out), out.stderr


def test_a_binary_of_another_program_is_rebuilt_from_source(tmp_path, runtime):
    run(tmp_path, runtime, "first", "1.0f", warm=True)
    run(tmp_path, runtime, "second", "2.0f", warm=True)
    connection = sqlite3.connect(tmp_path / FILENAME)
    with connection:  # first's batch now holds a real binary: second's
        (batch,) = connection.execute("SELECT batch FROM kernels WHERE name='first'").fetchone()
        (other,) = connection.execute("SELECT batch FROM kernels WHERE name='second'").fetchone()
        connection.execute(
            "UPDATE binaries SET (binary, sha256) = (SELECT binary, sha256 FROM binaries "
            "WHERE batch=?) WHERE batch=?", (other, batch))
    report, stderr = run(tmp_path, runtime, "first", "1.0f")
    assert report["value"] == 1.0
    assert report["compiled"] == 1 and report["loaded"] == 0
    assert stderr.count(WARNING) == 1, stderr
    assert "Traceback" not in stderr
    rows = connection.execute("SELECT COUNT(*) FROM binaries WHERE batch=?", (batch,)).fetchone()
    assert rows == (0,), "the misplaced binary is dropped, so no later process meets it"
    again, stderr = run(tmp_path, runtime, "first", "1.0f")
    assert again["value"] == 1.0 and again["compiled"] == 1 and WARNING not in stderr
    second, _ = run(tmp_path, runtime, "second", "2.0f")
    assert second["value"] == 2.0 and second["loaded"] == 1  # its own binary is untouched
