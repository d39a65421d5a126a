"""What every kernels_cl operation shares: dtypes, argument checks, the OpenCL prelude.

Everything here is decided from shapes, dtypes and the device, never from data, so an
operation behaves the same under every process mode (docs/contract.md, Modes: under COMPILE_ONLY and
COMPILE_AND_AUTOTUNE launches are dropped and buffers hold whatever they held).

Arrays are `pyopencl.array.Array`s. They must be C-contiguous; they may start at an offset
into their buffer (a slice like ``x[2:5]``): kernels take the buffer and the offset in
elements, so views work as inputs and as ``out=``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

import clmodes
from clmodes import Kernel, RacePolicy, Stream

INT_MAX = 2**31 - 1
# Work-groups launched along dimensions 1 and 2 at most: CUDA-based OpenCL runtimes cap a
# grid's y and z at 65535 blocks. Kernels loop (grid-stride) over whatever lies beyond.
MAX_GROUPS = 65535


@dataclasses.dataclass(frozen=True)
class DType:
    """A supported element type: its numpy dtype, its code in kernel sources (DT), the
    OpenCL extension it needs (if any) and the dtype used for partial results."""

    name: str
    numpy: np.dtype
    code: int  # 16 / 32 / 64: selects the LOAD/STORE/ACC macros of the prelude
    extension: str | None
    acc_code: int  # the precision of accumulators and intermediate buffers

    @property
    def acc_numpy(self) -> np.dtype:
        return np.dtype({16: np.float32, 32: np.float32, 64: np.float64}[self.acc_code])


FLOAT32 = DType("float32", np.dtype(np.float32), 32, None, 32)
FLOAT64 = DType("float64", np.dtype(np.float64), 64, "cl_khr_fp64", 64)
FLOAT16 = DType("float16", np.dtype(np.float16), 16, "cl_khr_fp16", 32)
DTYPES: dict[str, DType] = {d.name: d for d in (FLOAT32, FLOAT64, FLOAT16)}

# Tests flip this to exercise the float16 kernels on devices without cl_khr_fp16: the
# kernels never do half arithmetic (vload_half/vstore_half are core OpenCL), so they run
# anywhere; the extension is required because that is the documented contract.
_REQUIRE_FP16_EXTENSION = True


class UnsupportedDTypeError(TypeError):
    """A dtype kernels_cl does not support at all, or not on this device."""


def device_supports(stream: Stream, dtype: DType) -> bool:
    if dtype.extension is None:
        return True
    if dtype.extension == "cl_khr_fp16" and not _REQUIRE_FP16_EXTENSION:
        return True
    return dtype.extension in stream.device.cl_device.extensions.split()


def resolve_dtype(op: str, name: str, dtype: object, stream: Stream) -> DType:
    found = DTYPES.get(np.dtype(dtype).name)
    if found is None:
        raise UnsupportedDTypeError(
            f"kernels_cl.{op}: argument {name!r} has dtype {np.dtype(dtype).name}; "
            f"supported: float32, float64 (needs cl_khr_fp64), float16 (needs cl_khr_fp16)"
        )
    if not device_supports(stream, found):
        raise UnsupportedDTypeError(
            f"kernels_cl.{op}: argument {name!r} is {found.name}, which needs "
            f"{found.extension}; {stream.device.label} does not support it"
        )
    return found


def check_stream(op: str, stream: object) -> Stream:
    if not isinstance(stream, Stream):
        raise TypeError(
            f"kernels_cl.{op}: the first argument must be a clmodes.Stream "
            f"(clmodes.client().stream()), got {type(stream).__name__}"
        )
    return stream


def check_array(op: str, name: str, x: object, stream: Stream) -> cla.Array:
    """A usable input or output: a C-contiguous pyopencl Array of the stream's context."""
    if not isinstance(x, cla.Array):
        raise TypeError(
            f"kernels_cl.{op}: argument {name!r} must be a pyopencl.array.Array, "
            f"got {type(x).__module__}.{type(x).__name__}"
        )
    if x.context != stream.queue.context:
        raise ValueError(
            f"kernels_cl.{op}: argument {name!r} belongs to another OpenCL context than "
            f"the stream's ({stream.device.label}); create it with the stream's queue "
            f"(pyopencl.array.to_device(stream.queue, ...))"
        )
    if x.size and not x.flags.c_contiguous:
        raise ValueError(
            f"kernels_cl.{op}: argument {name!r} (shape {x.shape}, strides {x.strides}) "
            f"is not C-contiguous; pass a contiguous array (for a transposed matrix use "
            f"kernels_cl.transpose)"
        )
    if x.size and x.offset % x.dtype.itemsize:
        raise ValueError(
            f"kernels_cl.{op}: argument {name!r} starts at byte offset {x.offset}, not a "
            f"multiple of its item size {x.dtype.itemsize}"
        )
    if x.size > INT_MAX or (x.size and x.offset // x.dtype.itemsize + x.size > INT_MAX):
        raise ValueError(f"kernels_cl.{op}: argument {name!r} has more than 2**31-1 elements")
    return x


def check_same_dtype(op: str, named: Sequence[tuple[str, cla.Array]], stream: Stream) -> DType:
    """Every array has one supported dtype (kernels_cl never converts implicitly)."""
    first_name, first = named[0]
    dtype = resolve_dtype(op, first_name, first.dtype, stream)
    for name, x in named[1:]:
        if x.dtype != first.dtype:
            raise TypeError(
                f"kernels_cl.{op}: argument {name!r} has dtype {x.dtype.name} but "
                f"{first_name!r} has {first.dtype.name}; convert explicitly"
            )
    return dtype


def _extent(x: cla.Array) -> tuple[int, int, int]:
    itemsize = x.dtype.itemsize
    return x.base_data.int_ptr, x.offset, x.offset + x.size * itemsize


def overlaps(x: cla.Array, y: cla.Array) -> bool:
    if not x.size or not y.size:
        return False
    bx, sx, ex = _extent(x)
    by, sy, ey = _extent(y)
    return bx == by and sx < ey and sy < ex


def check_out(
    op: str, out: object, shape: tuple[int, ...], dtype: DType, stream: Stream,
    no_overlap: Sequence[tuple[str, cla.Array]] = (),
    in_place: Sequence[tuple[str, cla.Array]] = (),
) -> cla.Array:
    """The caller's `out=`, checked; or a new array (allocated, never filled)."""
    if out is None:
        return cla.empty(stream.queue, shape, dtype.numpy)
    out = check_array(op, "out", out, stream)
    if tuple(out.shape) != tuple(shape):
        raise ValueError(f"kernels_cl.{op}: 'out' has shape {out.shape}, the result is {shape}")
    if out.dtype != dtype.numpy:
        raise TypeError(
            f"kernels_cl.{op}: 'out' has dtype {out.dtype.name}, the result is {dtype.name}"
        )
    for name, x in no_overlap:
        if overlaps(out, x):
            raise ValueError(
                f"kernels_cl.{op}: 'out' overlaps argument {name!r}; this operation "
                f"cannot work in place"
            )
    for name, x in in_place:
        if overlaps(out, x) and not same_memory(out, x):
            raise ValueError(
                f"kernels_cl.{op}: 'out' partly overlaps argument {name!r}; it may be the "
                f"very same array (in place) or separate memory, nothing in between"
            )
    return out


def same_memory(x: cla.Array, y: cla.Array) -> bool:
    return _extent(x) == _extent(y)


def mem(x: cla.Array) -> tuple[cl.Buffer, int]:
    """(buffer, offset in elements): the two kernel arguments an array becomes."""
    return x.base_data, x.offset // x.dtype.itemsize


def round_up(n: int, multiple: int) -> int:
    return -(-n // multiple) * multiple


def ceil_div(n: int, d: int) -> int:
    return -(-n // d)


# -- the OpenCL prelude ----------------------------------------------------------------
#
# Every kernels_cl source starts with it. A kernel is compiled per dtype by defining DT
# (16, 32, 64); roles that may differ (a reduction's input and its float partial sums)
# get their own codes (XDT, YDT) and the LOADn/STOREn macros of those codes. Half is read
# and written with vload_half/vstore_half (core OpenCL) and computed in float.

PRELUDE = r"""
#ifndef DT
#define DT 32
#endif
#if DT == 64 || (defined(XDT) && XDT == 64) || (defined(YDT) && YDT == 64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#define KCL_CAT_(a, b) a##b
#define KCL_CAT(a, b) KCL_CAT_(a, b)

#define KCL_TYPE_16 half
#define KCL_TYPE_32 float
#define KCL_TYPE_64 double
#define KCL_ACC_16 float
#define KCL_ACC_32 float
#define KCL_ACC_64 double
#define KCL_LOAD_16(p, i) vload_half((i), (p))
#define KCL_LOAD_32(p, i) ((p)[i])
#define KCL_LOAD_64(p, i) ((p)[i])
#define KCL_STORE_16(p, i, v) vstore_half((v), (i), (p))
#define KCL_STORE_32(p, i, v) ((p)[i] = (v))
#define KCL_STORE_64(p, i, v) ((p)[i] = (v))
/* n consecutive elements from p (any element alignment) as an ACC vector, and back */
#define KCL_VLOAD_16(n, p) KCL_CAT(vload_half, n)(0, (p))
#define KCL_VLOAD_32(n, p) KCL_CAT(vload, n)(0, (p))
#define KCL_VLOAD_64(n, p) KCL_CAT(vload, n)(0, (p))
#define KCL_VSTORE_16(n, v, p) KCL_CAT(vstore_half, n)((v), 0, (p))
#define KCL_VSTORE_32(n, v, p) KCL_CAT(vstore, n)((v), 0, (p))
#define KCL_VSTORE_64(n, v, p) KCL_CAT(vstore, n)((v), 0, (p))

#define T KCL_CAT(KCL_TYPE_, DT)
#define ACC KCL_CAT(KCL_ACC_, DT)
#define LOAD(p, i) KCL_CAT(KCL_LOAD_, DT)(p, i)
#define STORE(p, i, v) KCL_CAT(KCL_STORE_, DT)(p, i, v)
#define VLOAD(n, p) KCL_CAT(KCL_VLOAD_, DT)(n, p)
#define VSTORE(n, v, p) KCL_CAT(KCL_VSTORE_, DT)(n, v, p)
#define ACCV(n) KCL_CAT(ACC, n)
"""


def source(body: str) -> str:
    return PRELUDE + body


FILL_SOURCE = source(r"""
__kernel void kcl_fill(__global T* y, int y_off, int n, ACC value)
{
    int i = get_global_id(0);
    if (i < n) STORE(y + y_off, i, value);
}
""")


def fill(stream: Stream, out: cla.Array, value: float, dtype: DType) -> None:
    """Fill `out` through `stream.launch` (so a discarding pass leaves it untouched)."""
    if not out.size:
        return
    kernel = Kernel(FILL_SOURCE, "kcl_fill", defines={"DT": dtype.code})
    buf, off = mem(out)
    stream.launch(kernel, round_up(out.size, 64), 64, buf, off, out.size, value)


# -- tunables --------------------------------------------------------------------------

_tunables: list[clmodes.Tunable] = []


def register(tunable: clmodes.Tunable) -> clmodes.Tunable:
    """Remember a kernels_cl tunable so that `set_race_policy` reaches it."""
    _tunables.append(tunable)
    if _policy is not None:
        tunable.policy = _policy
    return tunable


_policy: RacePolicy | None = None


def set_race_policy(policy: RacePolicy | None) -> None:
    """Use `policy` for every kernels_cl tunable (existing and future); None: the default."""
    global _policy
    _policy = policy
    for tunable in _tunables:
        tunable.policy = policy if policy is not None else RacePolicy()


def tunables() -> list[clmodes.Tunable]:
    """Every kernels_cl tunable created so far."""
    return list(_tunables)


def prod(shape: Sequence[int]) -> int:
    return math.prod(shape)
