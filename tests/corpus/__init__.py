"""A corpus of OpenCL kernels written the way real libraries write them, as data.

Each `Case` is one kernel: its source (a file of this folder, or several concatenated the way
CLBlast and ArrayFire assemble theirs, or one that `#include`s headers of this folder through
`-I`), its entry name, defines and options, its arguments as specs, and its sizes.
`tests/test_batching_corpus.py` builds each case alone with plain pyopencl (the reference),
then through clmodes, alone and batched with the other cases of its `group`, and compares the
outputs bit for bit. `check` states what the kernel computes, in numpy, so that the reference
itself is known to be right.

`partners` name the cases that can change this one's result when the batch places them
*before* it (a header skipped by its include guard, a pragma still in force, a predefined macro
#undef'ed). Batches may order their units in any way, so the test re-runs such a case until
one of its partners came first, or a few times.

Argument specs:
  Buffer(dtype, size, fill, check)  a global/constant buffer; `check` compares it afterwards
  Scalar(value, dtype)              the reference passes dtype(value); clmodes gets the Python
                                    int/float itself (it converts to the declared type), or the
                                    numpy value as is where dtype is None (structs, float2)
  Local(nbytes)                     a `__local` pointer argument (cl.LocalMemory)
  Image2D(height, width, channels)  a read-only float image
  Sampler(...)                      a sampler_t argument
"""

from __future__ import annotations

import dataclasses
import shlex
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Union

import numpy as np

CORPUS_DIR = Path(__file__).resolve().parent
INCLUDE = ("-I", str(CORPUS_DIR))


def read(*names: str) -> str:
    """The files concatenated, as CLBlast and ArrayFire assemble a program's source."""
    return "\n".join((CORPUS_DIR / name).read_text() for name in names)


# -- argument specs --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Buffer:
    dtype: object
    size: int  # elements
    fill: str = "randn"  # randn | randint | uniform | ramp | bits | sentinel
    check: bool = False  # an output (or in/out): compared after the kernel ran
    low: float = 0.0  # bounds of `uniform` and `randint`
    high: float = 1.0


def In(dtype, size, fill="randn", low=0.0, high=1.0) -> Buffer:
    return Buffer(np.dtype(dtype), size, fill, False, low, high)


def Out(dtype, size) -> Buffer:
    return Buffer(np.dtype(dtype), size, "sentinel", True)


def InOut(dtype, size, fill="randn") -> Buffer:
    return Buffer(np.dtype(dtype), size, fill, True)


@dataclasses.dataclass(frozen=True)
class Scalar:
    value: object
    dtype: object = None  # None: `value` is a numpy value both sides pass as is


@dataclasses.dataclass(frozen=True)
class Local:
    nbytes: int


@dataclasses.dataclass(frozen=True)
class Image2D:
    height: int
    width: int
    channels: int = 1  # 1 (CL_R) or 4 (CL_RGBA), float32


@dataclasses.dataclass(frozen=True)
class Sampler:
    normalized: bool = False
    addressing: str = "CLAMP_TO_EDGE"
    filter: str = "NEAREST"


Arg = Union[Buffer, Scalar, Local, Image2D, Sampler]


# -- cases ------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Case:
    id: str
    source: str
    name: str
    args: tuple[Arg, ...]
    global_size: tuple[int, ...]
    local_size: tuple[int, ...] | None = None
    defines: Mapping[str, object] = dataclasses.field(default_factory=dict)
    options: Union[str, tuple[str, ...]] = ()  # a string is what a library passes as is
    requires: frozenset[str] = frozenset()  # fp64 | fp16 | images
    group: str = ""
    partners: tuple[str, ...] = ()
    oclgrind: bool = False
    # Why clmodes must build it alone (its conditionals read a macro the compiler may
    # predefine that clmodes cannot know); empty when it can batch.
    alone: str = ""
    check: Callable[[list, dict], None] | None = None  # (host args, outputs) -> asserts

    def build_options(self) -> list[str]:
        """What plain pyopencl is given: the defines as -D options, then the options."""
        defines = [f"-D{k}" if v is None else f"-D{k}={_define_text(v)}"
                   for k, v in self.defines.items()]
        options = shlex.split(self.options) if isinstance(self.options, str) else list(self.options)
        return defines + options

    def host_args(self) -> list:
        """The host value of every argument: arrays for buffers and images, the scalar's
        value for scalars, None otherwise. Deterministic (seeded by the case and index)."""
        return [_host(self.id, i, spec) for i, spec in enumerate(self.args)]


def _define_text(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def _host(case_id: str, index: int, spec: Arg):
    rng = np.random.default_rng(zlib.crc32(f"{case_id}:{index}".encode()))
    if isinstance(spec, Scalar):
        return spec.value
    if isinstance(spec, Image2D):
        shape = (spec.height, spec.width) + ((spec.channels,) if spec.channels > 1 else ())
        return rng.uniform(-1, 1, shape).astype(np.float32)
    if not isinstance(spec, Buffer):
        return None
    dtype, n = spec.dtype, spec.size
    if spec.fill == "sentinel":
        return np.frombuffer(b"\xa5" * (dtype.itemsize * n), dtype=dtype).copy()
    if spec.fill == "ramp":
        return np.arange(n).astype(dtype)
    if spec.fill == "randint":
        return rng.integers(int(spec.low), int(spec.high), n).astype(dtype)
    if spec.fill == "uniform":
        values = rng.uniform(spec.low, spec.high, n)
    else:
        values = rng.standard_normal(n)
    if dtype.kind == "c":
        values = values + 1j * rng.standard_normal(n)
    elif dtype.kind in "iu":
        values = values * 20
    return values.astype(dtype)


# -- checks (what each kernel computes, in numpy) ---------------------------------------------


def close(actual, expected, rtol=1e-5, atol=1e-5) -> None:
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=rtol, atol=atol)


def equal(actual, expected) -> None:
    np.testing.assert_array_equal(np.asarray(actual), np.asarray(expected))


KPARAM = np.dtype([("dims", "<i8", (4,)), ("strides", "<i8", (4,)), ("offset", "<i8")])


def kparam(dims, strides, offset=0):
    """ArrayFire's KParam (dim_t = long), passed to the kernel by value."""
    return np.array((dims, strides, offset), dtype=KPARAM)[()]


def _box3(img):
    padded = np.pad(img, 1, mode="edge")
    h, w = img.shape
    acc = sum(padded[1 + dy:1 + dy + h, 1 + dx:1 + dx + w] for dy in (-1, 0, 1) for dx in (-1, 0, 1))
    return (acc / 9.0).ravel()


def _convolve_lut(x):
    lut = np.array([0.0625, 0.25, 0.375, 0.25, 0.0625], np.float32)
    idx = np.clip(np.arange(len(x))[:, None] + np.arange(-2, 3)[None, :], 0, len(x) - 1)
    return (x[idx] * lut).sum(axis=1)


def _loopy(a, b, n):
    i = np.arange(n)
    f3 = (a[:n] * 0.5 + 1) ** 2 - b[:n]
    return f3 * ((i % 3) * 2 - 1) + a[:n] ** 2 + (i % 16) ** 2


def _lo_hi(v):
    v = v.reshape(-1, 8)
    a, b, e, o = v[:, :4], v[:, 4:], v[:, 0::2], v[:, 1::2]
    i = np.arange(len(v))
    return np.stack([np.minimum(a[:, 0], b[:, 1]), np.maximum(e[:, 0], o[:, 1]),
                     np.where(i % 2 == 0, a[:, 2], b[:, 2]),
                     np.where(i % 2 == 1, e[:, 3], o[:, 3])], axis=1).ravel()


def _gemm(m, n, k, alpha, beta, a, b, c):
    A, B, C = a.reshape(k, m).T, b.reshape(n, k).T, c.reshape(n, m).T
    return (alpha * (A @ B) + beta * C).T.ravel()


# -- the corpus -------------------------------------------------------------------------------

f32, f64, i32, u32 = np.float32, np.float64, np.int32, np.uint32
c64, c128 = np.complex64, np.complex128
N = 32
_SL_WEIGHTS = np.resize(np.float32([0.5, 1.25, 2.0, 3.5]), N)  # shared_lib.h's table

CLBLAST_AXPY = read("clblast_common.h", "clblast_level1.h", "clblast_xaxpy.cl")
CLBLAST_DOT = read("clblast_common.h", "clblast_xdot.cl")
CLBLAST_GEMM = read("clblast_common.h", "clblast_xgemm_direct.cl")
AF_REDUCE = read("af_reduce_ops.h", "af_reduce_first.cl")


def _axpy(case_id, precision, dtype, alpha, requires=(), oclgrind=False):
    # y[4:44] += alpha * x[2:42], 16 threads in groups of WGS=8 looping over n=40
    return Case(
        case_id, CLBLAST_AXPY, "Xaxpy",
        (Scalar(40, i32), Scalar(alpha, None if isinstance(alpha, np.generic) else
                                 (f32 if precision in (16, 32) else f64)),
         In(dtype, 48), Scalar(2, i32), Scalar(1, i32),
         InOut(dtype, 48), Scalar(4, i32), Scalar(1, i32)),
        (16,), (8,), defines={"PRECISION": precision, "WGS": 8},
        requires=frozenset(requires), group="clblast", oclgrind=oclgrind,
        check=lambda a, out: close(
            out[5][4:44].astype(np.complex128 if dtype in (c64, c128) else np.float64),
            a[5][4:44] + np.asarray(alpha, dtype) * a[2][2:42],
            rtol=1e-2 if precision == 16 else 1e-5, atol=1e-2 if precision == 16 else 1e-5),
    )


def _dot(case_id, precision, dtype, conjugate, requires=(), oclgrind=False):
    return Case(
        case_id, CLBLAST_DOT, "Xdot",
        (Scalar(60, i32), In(dtype, 64), Scalar(0, i32), Scalar(1, i32),
         In(dtype, 64), Scalar(0, i32), Scalar(1, i32), Out(dtype, 2), Scalar(conjugate, i32)),
        (32,), (16,), defines={"PRECISION": precision, "WGS1": 16},
        requires=frozenset(requires), group="clblast", oclgrind=oclgrind,
        check=lambda a, out: close(
            out[7].sum(), np.sum((np.conj(a[1][:60]) if conjugate else a[1][:60]) * a[4][:60]),
            rtol=1e-4, atol=1e-4),
    )


def _gemm_case(case_id, precision, dtype, requires=()):
    return Case(
        case_id, CLBLAST_GEMM, "XgemmDirectNN",
        (Scalar(16, i32), Scalar(16, i32), Scalar(16, i32),
         Scalar(1.25, dtype), Scalar(-0.5, dtype),
         In(dtype, 256), In(dtype, 256), InOut(dtype, 256)),
        (16, 16), (8, 8), defines={"PRECISION": precision, "WGD": 8, "MDIMCD": 8, "NDIMCD": 8},
        requires=frozenset(requires), group="clblast",
        check=lambda a, out: close(out[7], _gemm(16, 16, 16, 1.25, -0.5, a[5], a[6], a[7]),
                                   rtol=1e-4, atol=1e-4),
    )


def _scale_guard(case_id, source, scale, oclgrind=False, partners=()):
    if source == "scale_user.cl":
        args = (Out(f32, N), In(f32, N))
        check = lambda a, out: close(out[0], a[1] * scale + 0.5)  # noqa: E731
        name = "scaled"
    else:
        args = (Out(f32, N), In(f32, N), In(f32, N))
        check = lambda a, out: close(out[0], a[1] * scale - a[2])  # noqa: E731
        name = "scaled_sum"
    return Case(case_id, read(source), name, args, (N,), defines={"SCALE": scale},
                options=INCLUDE, group="headers", partners=partners, oclgrind=oclgrind,
                check=check)


def _version_check(expect_version, fast):
    def check(a, out):
        assert out[0][0] >= 120 and out[0][1] >= 120, out[0]
        if expect_version is not None:
            assert out[0][0] == expect_version, out[0]
        assert out[0][2] == int(fast), out[0]
        assert out[0][3] >= 12, out[0]  # __LINE__: the user's own line (after any prefix)
    return check


CASES: list[Case] = [
    # -- typedefs chosen by the preprocessor; scalar arguments of those types -----------------
    Case("value_t_int", read("value_t.cl"), "add_value",
         (Out(i32, N), In(i32, N, "randint", -50, 50), Scalar(7, i32)), (N,),
         defines={"USE_INT": None}, group="typedefs", oclgrind=True,
         check=lambda a, out: equal(out[0], a[1] * 7 + 1)),
    Case("value_t_float", read("value_t.cl"), "add_value",
         (Out(f32, N), In(f32, N), Scalar(2.5, f32)), (N,), group="typedefs",
         check=lambda a, out: close(out[0], a[1] * 2.5 + 1)),
    Case("enum_modes", read("enum_modes.cl"), "modal",
         (Out(f32, N), In(f32, N), In(f32, N), Scalar(2, i32)), (N,), group="typedefs",
         check=lambda a, out: close(out[0], a[1] * a[2] + 3)),
    Case("enum_modes_b", read("enum_modes_b.cl"), "modal_b",
         (Out(i32, N), In(i32, N, "randint", -100, 100)), (N,), group="typedefs",
         check=lambda a, out: equal(out[0], a[1] * 20 + 10)),
    Case("elementwise", read("elementwise.cl"), "elwise_kernel",
         (Out(f32, 40), Scalar(2.0, f32), In(f32, 40), Scalar(-0.5, f32), In(f32, 40),
          Scalar(40, np.int64)), (16,), (8,), group="typedefs",
         check=lambda a, out: close(out[0], 2.0 * a[2] - 0.5 * a[4])),
    Case("partial_sums", read("partial_sums.cl"), "partial_sums",
         (In(f32, 64), Out(f32, 4), Local(16 * 4), Scalar(60, u32)), (64,), (16,),
         group="typedefs",
         check=lambda a, out: close(out[1], np.where(np.arange(64) < 60, a[0], 0)
                                    .reshape(4, 16).sum(axis=1), rtol=1e-4, atol=1e-4)),
    Case("af_transpose", read("af_transpose.cl"), "transpose",
         (Out(f32, 128), Scalar(kparam((8, 16, 1, 1), (1, 8, 128, 128))),
          In(f32, 128), Scalar(kparam((16, 8, 1, 1), (1, 16, 128, 128))),
          Scalar(2, i32), Scalar(1, i32)),
         (16, 2), (8, 2), options="-D T=float -D dim_t=long -D TILE_DIM=8 -D THREADS_Y=2",
         group="typedefs",
         check=lambda a, out: equal(out[0], a[2].reshape(8, 16).T.ravel())),
    Case("af_reduce_first", AF_REDUCE, "reduce_first_kernel",
         (Out(i32, 4), Scalar(kparam((1, 4, 1, 1), (1, 1, 4, 4))),
          In(i32, 160, "randint", -1000, 1000), Scalar(kparam((40, 4, 1, 1), (1, 40, 160, 160))),
          Scalar(1, u32), Scalar(1, u32), Scalar(3, u32)),
         (16, 4), (16, 4),
         defines={"T": "int", "To": "int", "dim_t": "long", "DIMX": 16,
                  "THREADS_PER_GROUP": 64, "init": 0},
         group="typedefs",
         check=lambda a, out: equal(out[0], a[2].reshape(4, 40).sum(axis=1))),

    # -- CLBlast: concatenated common header, PRECISION, tuning parameters, reqd_work_group_size
    _axpy("clblast_axpy_s", 32, f32, 1.5),
    _axpy("clblast_axpy_d", 64, f64, -0.75, requires={"fp64"}),
    _axpy("clblast_axpy_c", 3232, c64, np.complex64(0.5 - 1.25j)),
    _axpy("clblast_axpy_h", 16, np.float16, 0.5, requires={"fp16"}),
    _dot("clblast_dot_s", 32, f32, 0, oclgrind=True),
    _dot("clblast_dot_c", 3232, c64, 1),
    _gemm_case("clblast_gemm_s", 32, f32),
    _gemm_case("clblast_gemm_d", 64, f64, requires={"fp64"}),

    # -- headers through -I: include guards, #pragma once, types under a define ---------------
    _scale_guard("scale_guard_2", "scale_user.cl", 2,
                 partners=("scale_guard_3", "scale_guard_4")),
    _scale_guard("scale_guard_3", "scale_user_b.cl", 3, oclgrind=True,
                 partners=("scale_guard_2", "scale_guard_4")),
    _scale_guard("scale_guard_4", "scale_user.cl", 4,
                 partners=("scale_guard_2", "scale_guard_3")),
    Case("scale_once_2", read("scale_once_user.cl"), "scaled_once", (Out(f32, N), In(f32, N)),
         (N,), defines={"SCALE": 2}, options=INCLUDE, group="headers", partners=("scale_once_3",),
         check=lambda a, out: close(out[0], a[1] * 2 - 1)),
    Case("scale_once_3", read("scale_once_user.cl"), "scaled_once", (Out(f32, N), In(f32, N)),
         (N,), defines={"SCALE": 3}, options=INCLUDE, group="headers", partners=("scale_once_2",),
         check=lambda a, out: close(out[0], a[1] * 3 - 1)),
    Case("cpair_with", read("cpair_with.cl"), "cpair_product",
         (Out(c64, N), In(c64, N), In(c64, N)), (N,), defines={"DEFINE_CPAIR": None},
         options=INCLUDE, group="headers", partners=("cpair_without",),
         check=lambda a, out: close(out[0], a[1] * a[2])),
    Case("cpair_without", read("cpair_without.cl"), "cpair_norms",
         (Out(f32, N), In(c64, N)), (N,), options=INCLUDE, group="headers",
         partners=("cpair_with",),
         check=lambda a, out: close(out[0], np.abs(a[1]) ** 2)),
    # -- one header first in several programs: one copy of it per batch (batch/unit.py) ----
    Case("shared_muladd", read("shared_muladd.cl"), "shared_muladd",
         (Out(f32, N), In(f32, N), In(f32, N), In(f32, N)), (N,), options=INCLUDE,
         group="shared_header", check=lambda a, out: equal(  # the header's FP_CONTRACT OFF
             out[0], (a[1] * a[2] + a[3]) + a[1] * a[2] + a[3] * _SL_WEIGHTS)),
    Case("shared_spans", read("shared_spans.cl"), "shared_spans",
         (Out(f32, N), In(f32, N), Scalar(2, i32)), (N,), options=INCLUDE,
         group="shared_header", check=lambda a, out: equal(
             out[0], ((a[1] * 2 + 1) - a[1]) * _SL_WEIGHTS + a[1])),
    Case("shared_step_2", read("shared_step.cl"), "shared_step", (Out(f32, N), In(f32, N)),
         (N,), defines={"STEP": "2.0f"}, options=INCLUDE, group="shared_header",
         check=lambda a, out: equal(out[0], a[1] * 2 + _SL_WEIGHTS)),
    Case("shared_step_3", read("shared_step.cl"), "shared_step", (Out(f32, N), In(f32, N)),
         (N,), defines={"STEP": "3.0f"}, options=INCLUDE, group="shared_header",
         check=lambda a, out: equal(out[0], a[1] * 3 + _SL_WEIGHTS)),
    Case("shared_hook", read("shared_hook.cl"), "shared_hook", (Out(f32, N), In(f32, N)),
         (N,), options=INCLUDE, group="shared_header",
         check=lambda a, out: equal(out[0], a[1] * 3 + 1)),
    Case("typed_saxpy", read("typed_saxpy.cl"), "typed_saxpy",
         (InOut(f32, 48), In(f32, 48), Scalar(0.75, f32), Scalar(40, u32)), (48,),
         options=INCLUDE, group="headers",
         check=lambda a, out: close(out[0], np.where(np.arange(48) < 40, a[0] + 0.75 * a[1], a[0]))),
    Case("pyopencl_cfloat", read("pyopencl_cfloat.cl"), "cfloat_multiply",
         (Out(c64, N), In(c64, N), In(c64, N), Scalar(2.0, f32)), (N,), options=INCLUDE,
         group="headers", partners=("pyopencl_cdouble",),
         check=lambda a, out: close(out[0], a[1] * a[2] * 2)),
    Case("pyopencl_cdouble", read("pyopencl_cdouble.cl"), "cdouble_multiply",
         (Out(c128, N), In(c128, N), In(c128, N)), (N,), options=INCLUDE,
         requires=frozenset({"fp64"}), group="headers", partners=("pyopencl_cfloat",),
         check=lambda a, out: close(out[0], a[1] * a[2] + 1, rtol=1e-12, atol=1e-12)),

    # -- predefined macros, pragmas, #error, language version ---------------------------------
    Case("predef_mpi", read("predef_mpi.cl"), "to_radians",
         (Out(f32, N), In(f32, N, "uniform", 0, 360)), (N,), group="predefined",
         partners=("predef_mpi_b",),
         check=lambda a, out: close(out[0], a[1] * np.float32(np.pi) / 180)),
    Case("predef_mpi_b", read("predef_mpi_b.cl"), "to_degrees",
         (Out(f32, N), In(f32, N, "uniform", -3, 3)), (N,), group="predefined",
         partners=("predef_mpi",),
         check=lambda a, out: close(out[0], a[1] * 180 / np.float32(np.pi))),
    Case("predef_has_builtin", read("predef_has_builtin.cl"), "below_limit",
         (Out(i32, N), In(f32, N), Scalar(0.0, f32)), (N,), group="predefined",
         check=lambda a, out: equal(out[0], np.where(a[1] < 0, 10, 20) + 1)),
    Case("predef_sibling", read("predef_sibling.cl"), "predefined_constants",
         (Out(f32, N), In(f32, N, "uniform", 0, 2)), (N,), group="predefined",
         partners=("predef_mpi", "predef_mpi_b", "predef_has_builtin"),
         check=lambda a, out: close(
             out[0], np.where(a[1] > 1.5, np.finfo(np.float32).max,
                              a[1] * np.float32(np.pi) + np.float32(np.pi) + 0.25))),
    Case("error_untaken", read("error_untaken.cl"), "strided_copy",
         (Out(f32, 64), In(f32, 64)), (16,), defines={"WPT": 4}, group="predefined",
         check=lambda a, out: close(out[0], a[1] * np.tile(np.arange(1, 5), 16))),
    Case("fp_contract_off", read("fp_contract_off.cl"), "muladd_exact",
         (Out(f32, 64), In(f32, 64), In(f32, 64), In(f32, 64)), (64,), group="predefined",
         check=lambda a, out: equal(out[0], a[1] * a[2] + a[3])),  # no fma: numpy's rounding
    Case("fp_contract_default", read("fp_contract_default.cl"), "muladd_default",
         (Out(f32, 64), In(f32, 64), In(f32, 64), In(f32, 64)), (64,), group="predefined",
         partners=("fp_contract_off",),
         check=lambda a, out: close(out[0], a[1] * a[2] + a[3])),
    Case("language_version", read("opencl_version.cl"), "language_version",
         (Out(i32, 4),), (1,), group="predefined", check=_version_check(None, False)),
    Case("language_version_cl12", read("opencl_version.cl"), "language_version",
         (Out(i32, 4),), (1,), options=("-cl-std=CL1.2",), group="predefined",
         check=_version_check(120, False)),
    Case("language_version_fast", read("opencl_version.cl"), "language_version",
         (Out(i32, 4),), (1,), options=("-cl-fast-relaxed-math",), group="predefined",
         check=_version_check(None, True)),

    # -- -Werror: the batch must not add warnings of its own ----------------------------------
    Case("werror_clean", read("werror_clean.cl"), "clean", (Out(f32, N), In(f32, N)), (N,),
         options=("-Werror",), group="werror",
         check=lambda a, out: close(out[0], a[1] * a[1] + 1)),
    Case("werror_has_builtin", read("predef_has_builtin.cl"), "below_limit",
         (Out(i32, N), In(f32, N), Scalar(0.5, f32)), (N,), options=("-Werror",), group="werror",
         check=lambda a, out: equal(out[0], np.where(a[1] < 0.5, 10, 20) + 1)),
    Case("werror_mpi", read("predef_mpi.cl"), "to_radians",
         (Out(f32, N), In(f32, N, "uniform", 0, 360)), (N,), options=("-Werror",),
         group="werror", check=lambda a, out: close(out[0], a[1] * np.float32(np.pi) / 180)),

    # -- entry points named by macros -----------------------------------------------------------
    Case("kernel_name_define", read("kernel_name_define.cl"), "answer",
         (Out(i32, N), Scalar(5, i32)), (N,), defines={"KERNEL_NAME": "answer"}, group="names",
         check=lambda a, out: equal(out[0], 5 + 42 * np.arange(N))),
    Case("fill_f32", read("token_paste.cl"), "fill_f32", (Out(f32, N), Scalar(1.5, f32)), (N,),
         group="names", check=lambda a, out: equal(out[0], 1.5 + np.arange(N, dtype=f32))),
    Case("fill_i32", read("token_paste.cl"), "fill_i32", (Out(i32, N), Scalar(-3, i32)), (N,),
         group="names", check=lambda a, out: equal(out[0], -3 - np.arange(N))),
    Case("stamped_twice", read("stamped.cl"), "twice", (Out(f32, N), In(f32, N)), (N,),
         group="names", check=lambda a, out: equal(out[0], a[1] * 2)),
    Case("stamped_thrice", read("stamped.cl"), "thrice", (Out(f32, N), In(f32, N)), (N,),
         group="names", check=lambda a, out: equal(out[0], a[1] * 3)),
    Case("make_helper", read("make_helper.cl"), "bumped", (Out(f32, N), In(f32, N)), (N,),
         group="names", check=lambda a, out: close(out[0], (a[1] + 2) * 0.5)),
    Case("make_helper_b", read("make_helper_b.cl"), "bumped_more", (Out(f32, N), In(f32, N)),
         (N,), group="names", check=lambda a, out: close(out[0], a[1] + 10)),

    # -- macros: shared bodies, function-or-macro, macro-declared types -----------------------
    Case("shared_body_wide", read("shared_body.cl"), "apply_op", (Out(f32, 64), In(f32, 64)),
         (16,), defines={"WIDE": None}, group="macros",
         check=lambda a, out: close(out[0], a[1] * 2 + 1)),
    Case("shared_body_narrow", read("shared_body.cl"), "apply_op", (Out(f32, N), In(f32, N)),
         (N,), group="macros", check=lambda a, out: close(out[0], a[1] * 2 + 1)),
    Case("func_or_macro_func_float", read("func_or_macro.cl"), "do_op",
         (Out(f32, N), In(f32, N)), (N,), defines={"FUNC": None, "T": "float"}, group="macros",
         check=lambda a, out: close(out[0], a[1] * 2 + 1)),
    Case("func_or_macro_func_int", read("func_or_macro.cl"), "do_op",
         (Out(i32, N), In(i32, N, "randint", -100, 100)), (N,),
         defines={"FUNC": None, "T": "int"}, group="macros",
         check=lambda a, out: equal(out[0], a[1] * 2 + 1)),
    Case("func_or_macro_macro", read("func_or_macro.cl"), "do_op",
         (Out(f32, N), In(f32, N)), (N,), defines={"T": "float"}, group="macros",
         check=lambda a, out: close(out[0], a[1] + 1)),
    Case("declare_pair", read("declare_pair.cl"), "pair_dots",
         (Out(f32, N), In(f32, 2 * N), In(f32, 2 * N)), (N,), group="macros",
         check=lambda a, out: close(out[0], a[1][0::2] * a[2][1::2] + a[1][1::2] * a[2][0::2])),
    Case("declare_pair_b", read("declare_pair_b.cl"), "pair_swap",
         (Out(f32, 2 * N), In(f32, 2 * N)), (N,), group="macros",
         check=lambda a, out: close(out[0].reshape(-1, 2),
                                    np.stack([a[1][1::2], a[1][0::2] * 2], axis=1))),
    Case("function_like_define", read("function_like_define.cl"), "mapped",
         (Out(f32, N), In(f32, N)), (N,), options=("-D", "MAP(x)=((x)*(x)+1.0f)"),
         group="macros", check=lambda a, out: close(out[0], a[1] * a[1] + 1)),
    Case("complex_macros", read("complex_macros.cl"), "twiddle_mul",
         (Out(c64, N), In(c64, N), In(c64, N)), (N,), group="macros",
         check=lambda a, out: close(
             out[0], a[1] * np.array([1, (1 - 1j) / np.sqrt(2), -1j, (-1 - 1j) / np.sqrt(2)],
                                     c64)[np.arange(N) % 4] + np.conj(a[2]), rtol=1e-4, atol=1e-4)),

    # -- file-scope names that are also vector components or struct members ------------------
    Case("component_w", read("component_w.cl"), "weigh", (Out(f32, 64), In(f32, 64)), (16,),
         group="components",
         check=lambda a, out: close(out[0].reshape(-1, 4), np.concatenate(
             [a[1].reshape(-1, 4)[:, :3], (a[1].reshape(-1, 4)[:, 3] * 16
              + np.array([1, 2, 1, 2, 4, 2, 1, 2, 1])[np.arange(16) % 9])[:, None]], axis=1))),
    Case("component_xy_s0", read("component_xy_s0.cl"), "offsets",
         (Out(f32, 32), In(f32, 64)), (16,), group="components",
         check=lambda a, out: close(out[0].reshape(-1, 2), np.stack(
             [a[1][0::4] * 1.5, a[1][1::4] * 0.25 + 3 + np.arange(16)], axis=1))),
    Case("component_lo_hi", read("component_lo_hi.cl"), "halves",
         (Out(f32, 64), In(f32, 128)), (16,), group="components",
         check=lambda a, out: equal(out[0], _lo_hi(a[1]))),
    Case("struct_member_w", read("struct_member_w.cl"), "pair_weights",
         (Out(f32, N), In(f32, 2 * N)), (N,), group="components", oclgrind=True,
         check=lambda a, out: close(out[0], a[1][0::2] * np.array([0.5, 1.5, 2.5, 3.5])[
             np.arange(N) % 4] + a[1][1::2])),
    Case("generated_loopy", read("generated_loopy.cl"), "loopy_kernel",
         (In(f32, 48), In(f32, 48), Out(f32, 48), Scalar(40, i32)), (48,), (16,),
         group="components",
         check=lambda a, out: close(out[2][:40], _loopy(a[0], a[1], 40), rtol=1e-4, atol=1e-4)),
    Case("generated_loopy_b", read("generated_loopy_b.cl"), "loopy_kernel",
         (In(f32, 48), Out(f32, 48), Scalar(40, i32)), (48,), (16,), group="components",
         check=lambda a, out: close(out[1][:40], (a[0][:40] - 3) * 4)),
    Case("unroll", read("unroll.cl"), "horner",
         (Out(f32, N), In(f32, N, "uniform", -1, 1), In(f32, 6)), (N,),
         defines={"NCOEF": 6}, group="components",
         check=lambda a, out: close(out[0], np.polyval(a[2], a[1]) - a[2].sum(), rtol=1e-4,
                                    atol=1e-4)),

    # -- library kernels: ArrayFire, half precision, images -----------------------------------
    Case("af_convolve_lut", read("af_convolve_lut.cl"), "convolve1",
         (Out(f32, N), In(f32, N), Scalar(N, i32)), (N,), defines={"T": "float"},
         group="libraries", check=lambda a, out: close(out[0], _convolve_lut(a[1]))),
    Case("af_lut_b", read("af_lut_b.cl"), "popcount3",
         (Out(i32, N), In(i32, N, "randint", 0, 64)), (N,), group="libraries",
         check=lambda a, out: equal(out[0], [bin(v).count("1") for v in a[1]])),
    Case("half_axpy", read("half_axpy.cl"), "half_axpy",
         (InOut(np.float16, N), In(np.float16, N), Scalar(0.5, f32)), (N,),
         requires=frozenset({"fp16"}), group="libraries",
         check=lambda a, out: close(out[0], a[0] + np.float16(0.5) * a[1], rtol=1e-2, atol=1e-2)),
    Case("image_box3", read("image_box3.cl"), "box3", (Image2D(8, 8), Out(f32, 64)), (8, 8),
         requires=frozenset({"images"}), group="libraries",
         check=lambda a, out: close(out[1], _box3(a[0]))),
    Case("image_sample", read("image_sample.cl"), "sample_scaled",
         (Image2D(8, 8, 4), Sampler(), Out(f32, 256), Scalar(2.0, f32)), (8, 8),
         requires=frozenset({"images"}), group="libraries",
         check=lambda a, out: close(out[2].reshape(8, 8, 4), a[0] * 2 + np.arange(4))),
]

BY_ID: dict[str, Case] = {case.id: case for case in CASES}
GROUPS: dict[str, list[Case]] = {}
for _case in CASES:
    GROUPS.setdefault(_case.group, []).append(_case)

assert len(BY_ID) == len(CASES), "case ids must be unique"
assert all(p in BY_ID for c in CASES for p in c.partners), "partners must be case ids"
