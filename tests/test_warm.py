"""Warm start: program binaries in the store, clmodes.warm(), progress."""

import io
import os
import sqlite3

import numpy as np
import pyopencl.array as cla

import clmodes
from clmodes.progress import TerminalProgress
from clmodes.store import FILENAME, Store
from conftest import fresh
from subprocesses import last_json, run_python

RUN_WORKLOAD = """
import json, pyopencl as cl, clmodes, tunables
sources = []
real = cl.Program.build
def spy(program, *a, **k):
    sources.append(program.get_info(cl.program_info.SOURCE))
    return real(program, *a, **k)
cl.Program.build = spy
c = clmodes.StatisticsCollector()
with clmodes.ProcessModeOverride(clmodes.ProcessMode.EXECUTE, c):
    checks = tunables.workload()
s = clmodes.StatisticsReader(c).statistics()
print(json.dumps({**checks, **s.as_dict(), "source_builds": sum(1 for x in sources if x)}))
"""

WARM = "import json, clmodes, tunables; print(json.dumps(clmodes.warm(tunables.{}).as_dict()))"


def test_warmed_workload_starts_warm_in_a_fresh_process(tmp_path):
    warmed = last_json(run_python(WARM.format("workload"), tmp_path))
    assert warmed["compilation"]["builds"] == 1  # one batch for every kernel and candidate
    assert warmed["compilation"]["compiled"] >= 15
    assert warmed["autotune"]["keys"] == 1
    run = last_json(run_python(RUN_WORKLOAD, tmp_path))
    assert run["demo_ok"] and run["tuned_ok"]
    assert run["compilation"]["compiled"] == 0 and run["compilation"]["builds"] == 0
    assert run["compilation"]["loaded"] == run["compilation"]["kernels"] == 13
    assert run["autotune"]["keys"] == 0
    assert run["source_builds"] == 0
    # The store holds the winner, not the two losing candidates it was built with.
    connection = sqlite3.connect(tmp_path / FILENAME)
    names = [name for (name,) in connection.execute("SELECT name FROM kernels")]
    assert len(names) == 13 and names.count("twice") == 1


def test_refused_binary_is_rebuilt_from_source(tmp_path):
    last_json(run_python(WARM.format("workload"), tmp_path))
    connection = sqlite3.connect(tmp_path / FILENAME)
    with connection:
        connection.execute("UPDATE binaries SET binary = substr(binary, 1, length(binary) / 2)")
    connection.close()
    out = run_python(RUN_WORKLOAD, tmp_path)
    run = last_json(out)
    assert "fails its checksum" in out.stderr
    assert run["demo_ok"] and run["tuned_ok"]
    assert run["compilation"]["loaded"] == 0 and run["compilation"]["compiled"] == 13
    assert run["autotune"]["keys"] == 0  # tune results survive a lost binary


def test_warm_does_not_do_the_work():
    from tunables import heavy_workload
    import tunables

    statistics = clmodes.warm(heavy_workload)
    assert statistics.compilation.kernels == 1
    untouched = tunables.HEAVY_BUFFER.get()
    assert np.all(untouched == 5.0)  # the launch was dropped in both passes


def test_failing_workload_leaves_the_store_untouched(tmp_path):
    out = run_python(WARM.format("failing_workload"), tmp_path)
    assert out.returncode != 0
    assert "ValueError: the workload failed on purpose" in out.stderr
    assert "in failing_workload" in out.stderr  # its own traceback
    store = Store(tmp_path)
    assert store.count("tune") == 0 and store.count("binaries") == 0 and store.count("kernels") == 0


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_drawn_on_a_terminal_only(collector):
    reader = clmodes.StatisticsReader(collector)
    terminal, pipe = FakeTerminal(), io.StringIO()
    with TerminalProgress(reader, "warm", terminal, interval=0.01):
        collector.add(clmodes.execution.Counter.COMPILED, 3)
    with TerminalProgress(reader, "warm", pipe, interval=0.01):
        pass
    assert "3 kernels compiled" in terminal.getvalue() and terminal.getvalue().endswith("\n")
    assert pipe.getvalue() == ""


def test_persist_twice_writes_once(client, tmp_path):
    # Only this test's program: capturing every program the suite has built so far
    # costs minutes on PoCL (it generates code for every kernel of a program).
    stream = client.stream()
    kernel = clmodes.Kernel(fresh("__kernel void p(__global int* a) { a[0] = 3; }"), "p")
    buf = cla.zeros(stream.queue, 1, np.int32)
    stream.launch(kernel, 1, None, buf.data)
    store = Store(tmp_path)
    assert client.server.persist(store, {kernel.key}) == 1
    assert client.server.persist(store, {kernel.key}) == 0
    assert store.count("binaries") == 1
    assert "p" in {row[0] for row in store.query("SELECT name FROM kernels")}


def test_warm_persists_only_what_the_workload_launched(tmp_path):
    import numpy as np
    import pyopencl.array as cla
    from conftest import fresh

    stream = clmodes.client().stream()
    unrelated = clmodes.Kernel(fresh("__kernel void u(__global int* a) { a[0] = 1; }"), "u")
    used = clmodes.Kernel(fresh("__kernel void w(__global int* a) { a[0] = 2; }"), "w")
    buf = cla.zeros(stream.queue, 1, np.int32)
    stream.launch(unrelated, 1, None, buf.data)  # built in this process before the warm
    store = clmodes.set_cache_dir(tmp_path)
    try:
        clmodes.warm(lambda: stream.launch(used, 1, None, buf.data))
        keys = {row[0] for row in store.query("SELECT kernel_key FROM kernels")}
    finally:
        clmodes.set_cache_dir(os.environ["CLMODES_CACHE_DIR"])
    assert used.key in keys and unrelated.key not in keys
