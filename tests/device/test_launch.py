"""Launches: verdicts, dropped launches, argument checking, threads."""

import threading

import numpy as np
import pyopencl.array as cla
import pytest

import clmodes
from clmodes import (
    Kernel,
    KernelLaunchError,
    ProcessMode,
    ProcessModeOverride,
    StreamMode,
    StreamModeOverride,
)
from support import fresh

ADD = "__kernel void add(__global float* a, float v, int n) { int i = get_global_id(0); if (i < n) a[i] += v; }"


@pytest.mark.oclgrind
@pytest.mark.parametrize("mode", [ProcessMode.COMPILE_ONLY, ProcessMode.COMPILE_AND_AUTOTUNE])
def test_dropped_launches_leave_buffers_byte_identical(stream, mode):
    kernel = Kernel(fresh(ADD), "add")
    data = np.random.default_rng(0).standard_normal(64).astype(np.float32)
    buf = cla.to_device(stream.queue, data)
    with ProcessModeOverride(mode):
        for _ in range(3):
            assert stream.launch(kernel, 64, None, buf.data, 1.0, 64) is None
    stream.finish()
    assert buf.get().tobytes() == data.tobytes()


@pytest.mark.oclgrind
def test_execute_override_runs_while_other_streams_discard(client):
    kernel = Kernel(fresh(ADD), "add")
    measured, other = client.stream("measured"), client.stream("other")
    a = cla.zeros(measured.queue, 16, np.float32)
    b = cla.zeros(other.queue, 16, np.float32)
    with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE):
        with StreamModeOverride(measured, StreamMode.EXECUTE):
            event = measured.launch(kernel, 16, None, a.data, 2.0, 16)
            assert event is not None
            assert other.launch(kernel, 16, None, b.data, 2.0, 16) is None
    assert a.get().tolist() == [2.0] * 16
    assert b.get().tolist() == [0.0] * 16


def test_execute_override_under_compile_only_builds_the_queue(client, build_spy):
    queued = Kernel(fresh(ADD), "add")
    run = Kernel(fresh(ADD), "add")
    stream = client.stream("probe")
    a = cla.zeros(stream.queue, 4, np.float32)
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY):
        stream.launch(queued, 4, None, a.data, 1.0, 4)
        assert build_spy.calls == 0
        with StreamModeOverride(stream, StreamMode.EXECUTE):
            stream.launch(run, 4, None, a.data, 1.0, 4)
    assert build_spy.calls == 1
    assert client.server.is_obtained(queued)
    assert a.get().tolist() == [1.0] * 4


@pytest.mark.oclgrind
def test_execute_returns_a_profiled_event(stream):
    buf = cla.zeros(stream.queue, 8, np.float32)
    event = stream.launch(Kernel(fresh(ADD), "add"), 8, None, buf.data, 1.0, 8)
    event.wait()
    assert event.profile.end >= event.profile.start > 0


@pytest.mark.oclgrind
def test_python_scalars_are_converted(stream):
    buf = cla.zeros(stream.queue, 8, np.float32)
    stream.launch(Kernel(fresh(ADD), "add"), (8,), (4,), buf.data, 3, np.int64(8))
    assert buf.get().tolist() == [3.0] * 8


@pytest.mark.oclgrind
def test_wrong_argument_count_names_the_kernel(stream):
    buf = cla.zeros(stream.queue, 8, np.float32)
    with pytest.raises(KernelLaunchError, match=r"kernel 'add' takes 3 arguments, got 2"):
        stream.launch(Kernel(fresh(ADD), "add"), 8, None, buf.data, 1.0)


def test_array_for_buffer_is_accepted(stream):
    """Once refused with "pass array.data"; "What ships is right" asks for Arrays to work."""
    buf = cla.zeros(stream.queue, 8, np.float32)
    stream.launch(Kernel(fresh(ADD), "add"), 8, None, buf, 1.0, 8)
    assert buf.get().tolist() == [1.0] * 8


@pytest.mark.oclgrind
def test_buffer_for_scalar_is_explained(stream):
    buf = cla.zeros(stream.queue, 8, np.float32)
    with pytest.raises(KernelLaunchError, match=r"'add'.*argument 1 \(float v\).*scalar"):
        stream.launch(Kernel(fresh(ADD), "add"), 8, None, buf.data, buf.data, 8)


def test_bad_work_group_size_names_the_kernel(stream):
    buf = cla.zeros(stream.queue, 8, np.float32)
    with pytest.raises(KernelLaunchError, match="'add'"):
        stream.launch(Kernel(fresh(ADD), "add"), 8, 100000, buf.data, 1.0, 8)


def test_concurrent_launches_of_one_kernel(client):
    """Kernel objects hold arguments as state; clmodes makes set-args + enqueue atomic."""
    kernel = Kernel(fresh(ADD), "add")
    errors: list[BaseException] = []
    results = {}

    def worker(index: int) -> None:
        try:
            stream = client.stream(f"thread-{index}")
            buf = cla.zeros(stream.queue, 32, np.float32)
            for _ in range(50):
                stream.launch(kernel, 32, None, buf.data, float(index), 32)
            results[index] = buf.get()
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for index, values in results.items():
        assert values.tolist() == [50.0 * index] * 32


def test_a_kernel_obtained_on_one_thread_first_launches_on_another(client):
    """Scalar dtypes are set at a thread's first launch, not when the kernel is obtained:
    the kernel made at obtain goes to whichever thread launches first, once."""
    kernel = Kernel(fresh(ADD), "add")
    main = client.stream("obtaining")
    buf = cla.zeros(main.queue, 8, np.float32)
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY):
        main.launch(kernel, 8, None, buf.data, 1.0, 8)
    assert buf.get().tolist() == [0.0] * 8  # compile only: nothing ran
    results = {}

    def worker() -> None:
        stream = client.stream("first-launch")
        out = cla.zeros(stream.queue, 8, np.float32)
        stream.launch(kernel, 8, None, out.data, 2.5, 8)
        results["worker"] = out.get().tolist()

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    main.launch(kernel, 8, None, buf.data, 1.5, 8)
    assert results["worker"] == [2.5] * 8 and buf.get().tolist() == [1.5] * 8


def test_same_stream_name_same_stream(client):
    assert client.stream("x") is client.stream("x")
    assert client.stream("x") is not client.stream("y")
    assert client.stream("x").queue.properties & clmodes.client().stream("x").queue.properties


def test_typedef_scalar_arguments_take_python_numbers(stream):
    source = fresh(
        "typedef float real_t;\ntypedef real_t scale_t;\n"
        "__kernel void scale(__global real_t* a, scale_t f, int n)"
        " { int i = get_global_id(0); if (i < n) a[i] *= f; }"
    )
    buf = cla.to_device(stream.queue, np.ones(4, np.float32))
    stream.launch(Kernel(source, "scale"), 4, None, buf.data, 2.5, 4)
    assert buf.get().tolist() == [2.5] * 4
    with pytest.raises(KernelLaunchError, match=r"argument 1 \(float f\)"):
        stream.launch(Kernel(source, "scale"), 4, None, buf.data, buf.data, 4)


def test_numpy_integer_sizes(stream):
    buf = cla.zeros(stream.queue, 8, np.float32)
    stream.launch(Kernel(fresh(ADD), "add"), np.int64(8), np.int32(4), buf.data, 1.0, 8)
    assert buf.get().tolist() == [1.0] * 8


STORE_N = "__kernel void store_n(__global int* a, int n) { a[get_global_id(0)] = n; }"


@pytest.mark.parametrize("value, message", [
    ("7", r"argument 1 \(int n\) needs a number, got str '7'"),
    (2**40, r"argument 1 \(int n\) cannot hold 1099511627776 \(int32"),
    (3.5, r"argument 1 \(int n\) needs an integer, got float 3.5"),
    (None, r"argument 1 \(int n\) needs a number, got NoneType"),
])
def test_a_bad_scalar_names_the_argument_and_its_type(stream, value, message):
    buf = cla.zeros(stream.queue, 4, np.int32)
    with pytest.raises(KernelLaunchError, match=message):
        stream.launch(Kernel(STORE_N, "store_n"), 1, None, buf.data, value)


def test_arrays_are_accepted_where_buffers_are_with_their_offset(stream):
    """An Array at an offset launches at its offset: the sub-buffer starts at the first
    aligned element (the device's base-address alignment, however coarse), so the array is
    made long enough to hold one past it on every device."""
    aligned = max(1, int(stream.device.cl_device.mem_base_addr_align) // 8 // 4)  # in int32s
    size = aligned + 64
    buf = cla.zeros(stream.queue, size, np.int32)
    kernel = Kernel(STORE_N, "store_n")
    stream.launch(kernel, 2, None, buf, 7)
    stream.launch(kernel, 2, None, buf[aligned:], 9)
    expected = np.zeros(size, np.int32)
    expected[:2] = 7
    expected[aligned:aligned + 2] = 9
    np.testing.assert_array_equal(buf.get(), expected)
