"""Warm start: program binaries in the store, clmodes.warm(), progress."""

import io
import os

import numpy as np
import pyopencl.array as cla

import clmodes
from clmodes.store import Store
from support import fresh



def test_warm_does_not_do_the_work():
    from support.tunables import heavy_workload
    from support import tunables

    statistics = clmodes.warm(heavy_workload)
    assert statistics.compilation.kernels == 1
    untouched = tunables.HEAVY_BUFFER.get()
    assert np.all(untouched == 5.0)  # the launch was dropped in both passes


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


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
    from support import fresh

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
