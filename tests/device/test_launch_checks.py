"""Launch checks before the runtime sees a launch: an Array's dtype against its pointer's
declared type, and sizes against the device (some runtimes abort on an impossible one)."""

import numpy as np
import pyopencl.array as cla
import pyopencl.cltypes as cltypes
import pytest

from clmodes import Kernel, KernelLaunchError
from support import fresh

ADD = "__kernel void add(__global float* a, float v, int n) { int i = get_global_id(0); if (i < n) a[i] += v; }"
VEC = "__kernel void vec(__global float4* a) { a[get_global_id(0)] += (float4)(1.0f); }"
BYTES = "__kernel void bytes(__global uchar* a) { a[get_global_id(0)] = 7; }"
TYPED = ("typedef float real_t;\ntypedef real_t value_t;\n"
         "__kernel void typed(__global value_t* a) { a[get_global_id(0)] = 1.0f; }")
STRUCT = ("typedef struct { float x; int k; } pair_t;\n"
          "__kernel void pairs(__global pair_t* a) { a[get_global_id(0)].k = 3; }")


def test_an_array_of_the_wrong_dtype_is_refused_and_nothing_runs(stream):
    ints = cla.to_device(stream.queue, np.arange(4, dtype=np.int32))
    with pytest.raises(KernelLaunchError, match=r"^kernel 'add' on .*: argument 0 \(float\* a\): "
                       r"the Array passed has dtype int32; float\* takes float32 elements"):
        stream.launch(Kernel(fresh(ADD), "add"), 4, None, ints, 1.0, 4)
    stream.finish()
    assert ints.get().tolist() == [0, 1, 2, 3]


def test_a_raw_buffer_stays_unchecked(stream):
    ints = cla.zeros(stream.queue, 4, np.int32)
    stream.launch(Kernel(fresh(ADD), "add"), 4, None, ints.data, 1.0, 4)
    assert ints.get().view(np.float32).tolist() == [1.0] * 4


def test_vector_pointers_take_whole_vectors_of_their_scalar(stream):
    kernel = Kernel(fresh(VEC), "vec")
    flat = cla.zeros(stream.queue, 8, np.float32)
    stream.launch(kernel, 2, None, flat)
    structured = cla.zeros(stream.queue, 2, cltypes.float4)
    stream.launch(kernel, 2, None, structured)
    assert flat.get().tolist() == [1.0] * 8
    assert structured.get().view(np.float32).tolist() == [1.0] * 8
    with pytest.raises(KernelLaunchError, match=r"argument 0 \(float4\* a\).*not whole float4"):
        stream.launch(kernel, 1, None, cla.zeros(stream.queue, 6, np.float32))
    with pytest.raises(KernelLaunchError, match=r"has dtype float64; float4\* takes float32"):
        stream.launch(kernel, 1, None, cla.zeros(stream.queue, 4, np.float64))


def test_byte_pointers_and_unknown_types_take_any_array(stream):
    floats = cla.zeros(stream.queue, 2, np.float32)
    stream.launch(Kernel(fresh(BYTES), "bytes"), 8, None, floats)
    assert floats.get().view(np.uint8).tolist() == [7] * 8
    pairs = cla.zeros(stream.queue, 4, np.int32)
    stream.launch(Kernel(fresh(STRUCT), "pairs"), 2, None, pairs)
    assert pairs.get().tolist() == [0, 3, 0, 3]


def test_a_typedef_pointer_is_checked_through_its_typedefs(stream):
    kernel = Kernel(fresh(TYPED), "typed")
    with pytest.raises(KernelLaunchError, match=r"argument 0 \(float\* a\).*dtype int32"):
        stream.launch(kernel, 4, None, cla.zeros(stream.queue, 4, np.int32))
    ok = cla.zeros(stream.queue, 4, np.float32)
    stream.launch(kernel, 4, None, ok)
    assert ok.get().tolist() == [1.0] * 4


@pytest.mark.parametrize("global_size, local_size, message", [
    ((2**62,), None, r"makes \d+ work-groups, more than clmodes launches|"
                     r"more work-items than size_t holds"),
    ((2**31, 2**31), None, r"work-groups|size_t"),
    ((2**64,), None, r"outside the device's size_t range"),
    ((8, 8, 8, 8), None, r"has 4 dimensions; the device takes 1 to 3"),
    ((8,), (8, 1), r"local size \(8, 1\) has 2 dimensions, global size \(8,\) has 1"),
    ((8,), (0,), r"local size \(0,\) has a zero dimension"),
    ((7,), (2,), r"local size \(2,\) does not divide global size \(7,\)"),
    ((2**20,), (2**20,), r"exceeds the device's \d+ work-items in dimension 0|"
                         r"this kernel takes at most"),
    ((8.0,), None, r"holds float 8.0, not an integer"),
    ((-8,), None, r"outside the device's size_t range"),
])
def test_impossible_sizes_are_refused_naming_the_kernel(stream, global_size, local_size, message):
    buf = cla.zeros(stream.queue, 8, np.float32)
    kernel = Kernel(fresh(ADD), "add")
    with pytest.raises(KernelLaunchError, match=rf"^kernel 'add' on [^\n]*: [^\n]*(?:{message})"):
        stream.launch(kernel, global_size, local_size, buf.data, 1.0, 8)
    stream.launch(kernel, (8,), (4,), buf.data, 1.0, 8)  # a possible size after them runs
    assert buf.get().tolist() == [1.0] * 8


def test_a_work_group_over_the_kernels_own_limit_is_refused(stream):
    kernel = Kernel(fresh(ADD), "add")
    buf = cla.zeros(stream.queue, 8, np.float32)
    stream.launch(kernel, 8, None, buf.data, 1.0, 8)
    launchable = stream.server.ready(kernel)
    most = launchable.sizes.group_size
    too_many = (most * 2,) if most * 2 <= launchable.sizes.device.item_sizes[0] else (most, 2)
    with pytest.raises(KernelLaunchError, match=r"kernel 'add' .*(this kernel takes at most|exceeds)"):
        stream.launch(kernel, too_many, too_many, buf.data, 1.0, 8)


def test_sizes_found_possible_are_remembered_but_never_stand_for_others(stream):
    kernel = Kernel(fresh(ADD), "add")
    buf = cla.zeros(stream.queue, 8, np.float32)
    good, local = (8,), (4,)
    for _ in range(3):
        stream.launch(kernel, good, local, buf.data, 1.0, 8)
    with pytest.raises(KernelLaunchError, match="does not divide"):
        stream.launch(kernel, (6,), local, buf.data, 1.0, 8)
    with pytest.raises(KernelLaunchError, match="zero dimension"):
        stream.launch(kernel, good, (0,), buf.data, 1.0, 8)
    stream.launch(kernel, good, local, buf.data, 1.0, 8)
    assert buf.get().tolist() == [4.0] * 8
