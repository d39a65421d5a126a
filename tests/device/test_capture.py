"""A capture at an override's close persists the used kernels only, which then compute
what they computed before, in this process and from the store in a fresh one; a capture is
one transaction, so a process killed during it leaves the store as it was."""

from __future__ import annotations

import signal
import sqlite3

import numpy as np
import pyopencl.array as cla

import clmodes
from clmodes import Kernel, ProcessMode, ProcessModeOverride
from clmodes.runtime import Runtime
from clmodes.store import FILENAME
from support import fresh
from support.subprocesses import last_json, run_python

SOURCE = """
float twist(float x) {{ return x * {factor}.0f + 1.0f; }}
__kernel void scale(__global float* a) {{ int i = get_global_id(0); a[i] = twist(a[i]); }}
"""
N = 16


def kernels(count: int, options: tuple[str, ...] = ()) -> list[Kernel]:
    """`count` kernels of fresh sources (new to every store and cache), factor 2, 3, ..."""
    return [Kernel(fresh(SOURCE.format(factor=2 + i)), "scale", options=options)
            for i in range(count)]


def compile_under_overrides(stream: clmodes.Stream, launched: list[Kernel],
                            buffer: cla.Array) -> None:
    """Gather, build in one batch and drop the launches; the outer close captures."""
    with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE):
        with ProcessModeOverride(ProcessMode.COMPILE_ONLY):
            for kernel in launched:
                stream.launch(kernel, N, None, buffer.data)
        for kernel in launched:
            stream.launch(kernel, N, None, buffer.data)


def computed(stream: clmodes.Stream, kernel: Kernel) -> np.ndarray:
    values = cla.to_device(stream.queue, np.arange(N, dtype=np.float32))
    stream.launch(kernel, N, None, values.data)
    return values.get()


def expected(factor: int) -> np.ndarray:
    return np.arange(N, dtype=np.float32) * factor + 1


def test_unused_units_of_a_captured_batch_stay_out_of_the_store_and_run(client, tmp_path):
    runtime = Runtime(tmp_path, default=False)
    own = runtime.client(client.device)
    stream = own.stream()
    used, unused = kernels(3), kernels(1)[0]
    own.server.queue_kernel(unused)  # in the batch, never launched: not used (a loser)
    compile_under_overrides(stream, used, cla.zeros(stream.queue, N, np.float32))
    assert own.server.is_obtained(unused)
    stored = {key for (key,) in runtime.store.query("SELECT kernel_key FROM kernels")}
    assert stored == {k.key for k in used}
    assert runtime.store.count("binaries") == 1
    for factor, kernel in enumerate(used, start=2):
        np.testing.assert_array_equal(computed(stream, kernel), expected(factor))
    np.testing.assert_array_equal(computed(stream, unused), expected(2))


LOAD_AND_RUN = """
import json, numpy as np, pyopencl.array as cla, clmodes
sources = {sources!r}
kernels = [clmodes.Kernel(s, "scale") for s in sources]
stream = clmodes.client().stream()
c = clmodes.StatisticsCollector()
results = []
with clmodes.ProcessModeOverride(clmodes.ProcessMode.EXECUTE, c):
    for kernel in kernels:
        values = cla.to_device(stream.queue, np.arange({n}, dtype=np.float32))
        stream.launch(kernel, {n}, None, values.data)
        results.append(values.get().tolist())
print(json.dumps({{"results": results, **clmodes.StatisticsReader(c).statistics().as_dict()}}))
"""


def test_the_captured_binary_computes_the_same_in_a_fresh_process(runtime, tmp_path):
    sources = [k.source for k in kernels(2)]
    capture = f"""
import json, numpy as np, pyopencl.array as cla, clmodes
sources = {sources!r}
kernels = [clmodes.Kernel(s, "scale") for s in sources]
stream = clmodes.client().stream()
buffer = cla.zeros(stream.queue, {N}, np.float32)
with clmodes.ProcessModeOverride(clmodes.ProcessMode.COMPILE_AND_AUTOTUNE):
    with clmodes.ProcessModeOverride(clmodes.ProcessMode.COMPILE_ONLY):
        for kernel in kernels:
            stream.launch(kernel, {N}, None, buffer.data)
    for kernel in kernels:
        stream.launch(kernel, {N}, None, buffer.data)
results = []
for kernel in kernels:
    values = cla.to_device(stream.queue, np.arange({N}, dtype=np.float32))
    stream.launch(kernel, {N}, None, values.data)
    results.append(values.get().tolist())
print(json.dumps({{"results": results}}))
"""
    here = last_json(run_python(capture, tmp_path, CLMODES_DEVICE=runtime))
    later = last_json(run_python(LOAD_AND_RUN.format(sources=sources, n=N), tmp_path,
                                 CLMODES_DEVICE=runtime))
    assert later["compilation"]["loaded"] == 2 and later["compilation"]["compiled"] == 0
    assert later["results"] == here["results"]
    assert later["results"] == [expected(2).tolist(), expected(3).tolist()]


KILLED_IN_CAPTURE = """
import os, signal, numpy as np, pyopencl.array as cla, clmodes
from clmodes.store import Store
sources = {sources!r}
put = Store.put_binary
calls = []
def put_then_die(self, *args, **kwargs):
    put(self, *args, **kwargs)
    calls.append(1)
    if len(calls) == 2:  # both binaries handed to the store: die before the capture ends
        os.kill(os.getpid(), signal.SIGKILL)
Store.put_binary = put_then_die
# Two sets of options that still matter after preprocessing: two batches, two binaries.
kernels = [clmodes.Kernel(s, "scale", options=o) for s, o in
           zip(sources, [(), ("-cl-fast-relaxed-math",)])]
stream = clmodes.client().stream()
buffer = cla.zeros(stream.queue, {n}, np.float32)
with clmodes.ProcessModeOverride(clmodes.ProcessMode.COMPILE_AND_AUTOTUNE):
    for kernel in kernels:
        stream.launch(kernel, {n}, None, buffer.data)
print("not killed")
"""


def test_a_process_killed_during_capture_leaves_the_store_as_it_was(runtime, tmp_path):
    sources = [k.source for k in kernels(2)]
    killed = run_python(KILLED_IN_CAPTURE.format(sources=sources, n=N), tmp_path,
                        CLMODES_DEVICE=runtime)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    with sqlite3.connect(tmp_path / FILENAME) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("SELECT COUNT(*) FROM binaries").fetchone()[0] == 0
        assert db.execute("SELECT COUNT(*) FROM kernels").fetchone()[0] == 0
    # The store is as it was: a later process builds both kernels and computes right.
    later = last_json(run_python(LOAD_AND_RUN.format(sources=sources, n=N), tmp_path,
                                 CLMODES_DEVICE=runtime))
    assert later["compilation"]["compiled"] == 2
    assert later["results"] == [expected(2).tolist(), expected(3).tolist()]
