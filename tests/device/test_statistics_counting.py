import threading

import numpy as np
import pyopencl.array as cla
import pytest

import clmodes
from clmodes import Kernel, ProcessMode, ProcessModeOverride, StatisticsReader
from support import fresh

SRC = "__kernel void fill(__global int* a, int v) { a[get_global_id(0)] = v; }"


@pytest.mark.oclgrind
def test_counts_from_worker_thread_reach_collector(client, collector):
    """The override lives on the main thread; the work happens on another."""
    kernel = Kernel(fresh(SRC), "fill")
    stream = client.stream("worker")
    buf = cla.zeros(stream.queue, 4, np.int32)
    with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, collector):
        worker = threading.Thread(target=stream.launch, args=(kernel, 4, None, buf.data, 7))
        worker.start()
        worker.join()
    stats = StatisticsReader(collector).statistics().compilation
    assert (stats.kernels, stats.compiled, stats.builds) == (1, 1, 1)


def test_every_live_collector_counts_once(stream):
    outer, inner = clmodes.StatisticsCollector(), clmodes.StatisticsCollector()
    buf = cla.zeros(stream.queue, 4, np.int32)
    with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, outer):
        with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, inner):
            stream.launch(Kernel(fresh(SRC), "fill"), 4, None, buf.data, 1)
        # The same collector in two live overrides counts once.
        with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, outer):
            stream.launch(Kernel(fresh(SRC), "fill"), 4, None, buf.data, 1)
    assert StatisticsReader(outer).statistics().compilation.kernels == 2
    assert StatisticsReader(inner).statistics().compilation.kernels == 1


def test_nothing_counted_after_override_closes(stream, collector):
    with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, collector):
        pass
    buf = cla.zeros(stream.queue, 4, np.int32)
    stream.launch(Kernel(fresh(SRC), "fill"), 4, None, buf.data, 1)
    assert StatisticsReader(collector).statistics().compilation.kernels == 0


