"""A stored binary that lacks its kernel's entry point is dropped with one warning and the
kernel is built from source, as a refused binary is (issue 24, item 11)."""

from __future__ import annotations

import sqlite3

import pytest

from clmodes.store import FILENAME
from support.subprocesses import RUNTIMES, last_json, require_runtime, run_python

# `warm` or run kernels (`first` writes 1, `second` 2, ..., times `scale`, a Python float a
# program loaded without its argument info cannot convert): their values and statistics.
CODE = """
import json, numpy as np, pyopencl.array as cla, clmodes
from support.statistics import statistics_of
names, warm, scale = {names!r}, {warm!r}, {scale!r}
source = "__kernel void NAME(__global float* o, float s) {{ o[get_global_id(0)] = VALUE * s; }}"
values = dict(first="1.0f", second="2.0f", third="3.0f", shared="5.0f")
kernels = [clmodes.Kernel(source.replace("NAME", n).replace("VALUE", values[n]), n) for n in names]
stream = clmodes.client().stream()
outs = [cla.zeros(stream.queue, 4, np.float32) for _ in names]
def work():
    for kernel, out in zip(kernels, outs):
        stream.launch(kernel, (4,), None, out.data, scale)
s = statistics_of(work, warm)
print(json.dumps({{"values": [float(o.get()[0]) for o in outs], **s.as_dict()["compilation"]}}))
"""
WARNING = "has no kernel {!r}, which the store says it holds"


@pytest.fixture(params=list(RUNTIMES.values()), ids=list(RUNTIMES))
def runtime(request) -> str:
    return require_runtime(request.param)


def run(store, runtime, *names, warm=False, scale=1.0):
    out = run_python(CODE.format(names=list(names), warm=warm, scale=scale), store,
                     CLMODES_DEVICE=runtime)
    return last_json(out), out.stderr


def misplace(store, of: str, by: str) -> str:
    """Give the batch that the store says holds `of` the binary of the batch holding `by`;
    returns the batch."""
    connection = sqlite3.connect(store / FILENAME)
    with connection:
        (batch,) = connection.execute("SELECT batch FROM kernels WHERE name=?", (of,)).fetchone()
        (other,) = connection.execute("SELECT batch FROM kernels WHERE name=?", (by,)).fetchone()
        connection.execute(
            "UPDATE binaries SET (binary, sha256) = (SELECT binary, sha256 FROM binaries "
            "WHERE batch=?) WHERE batch=?", (other, batch))
    connection.close()
    return batch


def binaries(store, batch: str) -> int:
    connection = sqlite3.connect(store / FILENAME)
    (count,) = connection.execute(
        "SELECT COUNT(*) FROM binaries WHERE batch=?", (batch,)).fetchone()
    connection.close()
    return count


def test_a_binary_of_another_program_is_rebuilt_from_source(tmp_path, runtime):
    run(tmp_path, runtime, "first", warm=True)
    run(tmp_path, runtime, "second", warm=True)
    batch = misplace(tmp_path, "first", "second")
    report, stderr = run(tmp_path, runtime, "first")
    assert report["values"] == [1.0]
    assert report["compiled"] == 1 and report["loaded"] == 0
    assert stderr.count(WARNING.format("first")) == 1, stderr
    assert "Traceback" not in stderr
    assert binaries(tmp_path, batch) == 0, "dropped: no later process meets it"
    again, stderr = run(tmp_path, runtime, "first")
    assert again["values"] == [1.0] and again["compiled"] == 1
    assert "which the store says" not in stderr
    second, _ = run(tmp_path, runtime, "second")
    assert second["values"] == [2.0] and second["loaded"] == 1  # its own binary is untouched


def test_a_binary_lacking_one_of_its_kernels_keeps_the_others(tmp_path, runtime):
    """Batch {first, second} given the binary of batch {first, third}: `first` loads from
    it, `second` is built from source."""
    run(tmp_path, runtime, "first", "third", warm=True)
    run(tmp_path, runtime, "first", "second", warm=True)
    batch = misplace(tmp_path, "second", "third")
    report, stderr = run(tmp_path, runtime, "first", "second")
    assert report["values"] == [1.0, 2.0]
    assert report["loaded"] == 1 and report["compiled"] == 1
    assert stderr.count(WARNING.format("second")) == 1, stderr
    assert binaries(tmp_path, batch) == 0


def test_a_name_the_source_lacks_is_still_reported_as_such(tmp_path, runtime):
    """A loaded program without the entry point asks the source, which has no such kernel:
    the error names it, and the stored binary is not blamed."""
    run(tmp_path, runtime, "first", warm=True)
    code = CODE.format(names=["first"], warm=False, scale=1.0) + (
        "try:\n"
        "    stream.launch(clmodes.Kernel(kernels[0].source, 'nope'), (4,), None, outs[0].data)\n"
        "except clmodes.KernelBuildError as error:\n"
        "    print(json.dumps({'error': str(error).splitlines()[-1]}))\n")
    out = run_python(code, tmp_path, CLMODES_DEVICE=runtime)
    assert last_json(out) == {"error": "its source has no __kernel function named 'nope'"}
    assert "which the store says" not in out.stderr
    assert '"loaded": 1' in out.stdout



def test_a_unit_two_batches_hold_is_served_by_the_batch_the_store_indexes(tmp_path, runtime):
    """Issue 55, item 2: two processes built one unit (`shared`) into two batches; the
    store indexes it to the first. A run that loads the second batch first (for `second`)
    once served `shared` from it, without the argument info the store keeps only for the
    kernels indexed there: on Intel's runtime (whose programs made from binaries have
    none) every launch failed in `set_arg` although `warm` said "loaded"."""
    one, two = tmp_path / "one", tmp_path / "two"
    run(one, runtime, "first", "shared", warm=True, scale=2.0)
    run(two, runtime, "second", "shared", warm=True, scale=2.0)
    with sqlite3.connect(one / FILENAME) as target, sqlite3.connect(two / FILENAME) as source:
        (batch,) = source.execute("SELECT batch FROM kernels WHERE name='second'").fetchone()
        target.executemany("INSERT INTO binaries VALUES (?, ?, ?, ?, ?, ?)", source.execute(
            "SELECT * FROM binaries WHERE batch=?", (batch,)).fetchall())
        target.executemany("INSERT INTO kernels VALUES (?, ?, ?, ?, ?)", source.execute(
            "SELECT * FROM kernels WHERE batch=? AND name='second'", (batch,)).fetchall())
        units = target.execute("SELECT COUNT(DISTINCT batch) FROM binaries").fetchone()[0]
    assert units == 2, "two batches, each holding `shared`"
    warmed, _ = run(one, runtime, "second", "shared", warm=True, scale=2.0)
    assert warmed["loaded"] == 2 and warmed["compiled"] == 0
    report, stderr = run(one, runtime, "second", "shared", scale=2.0)
    assert report["values"] == [4.0, 10.0], stderr
    assert report["loaded"] == 2 and report["compiled"] == 0
    assert "Traceback" not in stderr

