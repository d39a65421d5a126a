"""kernels_cl on real OpenCL (PoCL in CI): correctness against numpy, every candidate,
awkward and empty shapes, argument errors before any launch, and the process modes.

Tolerances (results compared with numpy computed in float64 on the same rounded inputs,
inputs ~ U(-1, 1) or N(0, 1)):

    op           float32                    float64                 float16
    matmul       rtol 1e-4, atol 1e-5*K     rtol 1e-10, atol 1e-12*K  rtol 2e-3, atol 2e-3*sqrt(K)
    sum / mean   rtol 1e-5, atol 1e-6*sqrt(n)*max|x|  rtol 1e-12      rtol 2e-3, atol 2e-3*sqrt(n)
    max          exact                      exact                   exact
    transpose    exact (bits)               exact                   exact
    elementwise  rtol 1e-5, atol 1e-6       rtol 1e-12, atol 1e-14  rtol 2e-3, atol 2e-3
    softmax      rtol 1e-5, atol 1e-7       rtol 1e-12, atol 1e-15  rtol 5e-3, atol 1e-4
    layer_norm   rtol 1e-4, atol 1e-5       rtol 1e-10, atol 1e-12  rtol 5e-3, atol 5e-3

Tuning uses a small race policy (1 warm-up, 2 then 3 samples) to keep the file fast; the
module's tunables are shared by every test, so each (op, dtype) compiles its candidates
once.
"""

from __future__ import annotations

import importlib
import math
import re

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

from support.fp64 import fp64_broken

import clmodes
import kernels_cl
from clmodes import ProcessMode, ProcessModeOverride, StatisticsReader
from kernels_cl import _common

MATMUL = importlib.import_module("kernels_cl.matmul")
REDUCE = importlib.import_module("kernels_cl.reduce")
TRANSPOSE = importlib.import_module("kernels_cl.transpose")
ROWS = importlib.import_module("kernels_cl.rows")
ELEMENTWISE = importlib.import_module("kernels_cl.elementwise")


pytestmark = pytest.mark.usefixtures("kernels_cl_small_race_policy")


@pytest.fixture
def half_without_extension(monkeypatch):
    """Run the float16 kernels on a device lacking cl_khr_fp16 (they need no half
    arithmetic); the documented contract still requires the extension."""
    monkeypatch.setattr(_common, "_REQUIRE_FP16_EXTENSION", False)


@pytest.fixture(params=["full-grid", "grid-stride"])
def grid(request, monkeypatch):
    """Launch geometry: one work-group per row block (the usual case), or at most two
    along dimensions 1 and 2 so that every kernel's grid-stride loop runs (what happens
    past 65535 row blocks on CUDA-based runtimes)."""
    if request.param == "grid-stride":
        monkeypatch.setattr(_common, "MAX_GROUPS", 2)
    return request.param


def has_extension(stream, name):
    found = name in stream.device.cl_device.extensions.split()
    if found and name == "cl_khr_fp64" and (why := fp64_broken(stream.device)):
        pytest.skip(why)  # `support.fp64`: it would abort the process
    return found


def rand(shape, dtype=np.float32, seed=0, kind="uniform"):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, shape) if kind == "uniform" else rng.standard_normal(shape)
    return x.astype(dtype)


def dev(stream, x):
    return cla.to_device(stream.queue, np.ascontiguousarray(x))


def f64(x):
    return np.asarray(x, dtype=np.float64)


def queue_first(*calls):
    """Run each call once under COMPILE_ONLY (their kernels join the compile queue, nothing
    runs), so that the first real launch builds all of them in one batch."""
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY, clmodes.StatisticsCollector()):
        for call in calls:
            call()


class NoLaunch:
    """Installed as `stream.launch`: any launch fails the test."""

    def __init__(self):
        self.calls = 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        raise AssertionError("kernels_cl launched a kernel where it must not")


@pytest.fixture
def no_launch(stream, monkeypatch):
    spy = NoLaunch()
    monkeypatch.setattr(stream, "launch", spy)
    return spy


# -- matmul -------------------------------------------------------------------------------


def matmul_tol(dtype, K):
    return {
        np.float32: dict(rtol=1e-4, atol=1e-5 * K),
        np.float64: dict(rtol=1e-10, atol=1e-12 * K),
        np.float16: dict(rtol=2e-3, atol=2e-3 * math.sqrt(K)),
    }[np.dtype(dtype).type]


@pytest.mark.parametrize(
    "M,K,N", [(1, 1, 1), (37, 29, 41), (257, 263, 131), (3, 100, 1), (1, 7, 65)]
)
def test_matmul_float32(stream, M, K, N):
    a, b = rand((M, K), seed=1), rand((K, N), seed=2)
    c = kernels_cl.matmul(stream, dev(stream, a), dev(stream, b))
    assert c.shape == (M, N) and c.dtype == np.float32
    np.testing.assert_allclose(c.get(), f64(a) @ f64(b), **matmul_tol(np.float32, K))


@pytest.mark.parametrize("M,K,N", [(37, 29, 41), (65, 70, 19)])
def test_matmul_every_candidate(stream, M, K, N, grid, monkeypatch):
    monkeypatch.setenv("KERNELS_CL_MATMUL", "candidates")
    a, b = rand((M, K), seed=3), rand((K, N), seed=4)
    A, B = dev(stream, a), dev(stream, b)
    kernels_cl.matmul(stream, A, B)  # tunes: every candidate's kernels in one batch
    tunable = MATMUL.TUNABLES["float32"]
    assert {"naive", "tiled", "reg", "blocked"} == {n.split()[0] for n in tunable.candidates}
    ref = f64(a) @ f64(b)
    for name, candidate in tunable.candidates.items():
        out = cla.zeros(stream.queue, (M, N), np.float32)
        candidate(stream, out, A, B)
        np.testing.assert_allclose(out.get(), ref, **matmul_tol(np.float32, K), err_msg=name)


def test_matmul_views_and_out(stream):
    a, b = rand((20, 9), seed=5), rand((9, 11), seed=6)
    A, B = dev(stream, a), dev(stream, b)
    out = cla.zeros(stream.queue, (30, 11), np.float32)
    result = kernels_cl.matmul(stream, A[5:15], B, out=out[10:20])  # both at an offset
    assert result.offset == out[10:20].offset
    got = out.get()
    np.testing.assert_allclose(got[10:20], f64(a[5:15]) @ f64(b), **matmul_tol(np.float32, 9))
    assert not got[:10].any() and not got[20:].any()


FAMILIES = ["naive local=16x16", "tiled TILE=16", "reg RM=4,WPT=8 local=8x8", "blocked TS=64,WPT=4"]


def test_matmul_float64(stream):
    """One candidate per family (tuning all of them again would only repeat the float32
    tunes at a second compile cost; tests/test_kernels_cl_workloads.py runs the float64
    public path through a whole attention block)."""
    if not has_extension(stream, "cl_khr_fp64"):
        with pytest.raises(kernels_cl.UnsupportedDTypeError, match="cl_khr_fp64"):
            kernels_cl.matmul(
                stream, dev(stream, rand((2, 2), np.float64)), dev(stream, rand((2, 2), np.float64))
            )
        return
    a, b = rand((33, 47), np.float64, 7), rand((47, 18), np.float64, 8)
    A, B = dev(stream, a), dev(stream, b)
    outs = {name: cla.zeros(stream.queue, (33, 18), np.float64) for name in FAMILIES}
    candidates = MATMUL.TUNABLES["float64"].candidates
    calls = [lambda n=name: candidates[n](stream, outs[n], A, B) for name in FAMILIES]
    queue_first(*calls)
    for name, call in zip(FAMILIES, calls):
        call()
        np.testing.assert_allclose(
            outs[name].get(), a @ b, **matmul_tol(np.float64, 47), err_msg=name
        )


def test_matmul_float16(stream, half_without_extension, grid):
    """One candidate per family (tuning all of them in half too would only repeat the
    float32 tunes at a second compile cost)."""
    a, b = rand((19, 40), np.float16, 9), rand((40, 23), np.float16, 10)
    A, B = dev(stream, a), dev(stream, b)
    outs = {name: cla.zeros(stream.queue, (19, 23), np.float16) for name in FAMILIES}
    candidates = MATMUL.TUNABLES["float16"].candidates
    calls = [lambda n=name: candidates[n](stream, outs[n], A, B) for name in FAMILIES]
    queue_first(*calls)
    for name, call in zip(FAMILIES, calls):
        call()
        np.testing.assert_allclose(
            f64(outs[name].get()), f64(a) @ f64(b), **matmul_tol(np.float16, 40), err_msg=name
        )


def test_float16_needs_the_extension(stream):
    x = dev(stream, rand((4, 4), np.float16))
    if has_extension(stream, "cl_khr_fp16"):
        pytest.skip("this device supports cl_khr_fp16")
    for call in (
        lambda: kernels_cl.matmul(stream, x, x),
        lambda: kernels_cl.sum(stream, x),
        lambda: kernels_cl.softmax(stream, x),
        lambda: kernels_cl.transpose(stream, x),
        lambda: kernels_cl.elementwise(stream, "x * 2", x=x),
    ):
        with pytest.raises(
            kernels_cl.UnsupportedDTypeError, match="float16, which needs cl_khr_fp16"
        ):
            call()


def test_float16_public_path_where_supported(stream):
    """Where the device has cl_khr_fp16 (Intel's CPU runtime, most GPUs; not PoCL's CPU
    device), every op takes float16 arrays through its tunable."""
    if not has_extension(stream, "cl_khr_fp16"):
        pytest.skip("no cl_khr_fp16 (covered by test_float16_needs_the_extension)")
    a, b = rand((19, 40), np.float16, 90), rand((40, 23), np.float16, 91)
    A, B = dev(stream, a), dev(stream, b)
    np.testing.assert_allclose(
        f64(kernels_cl.matmul(stream, A, B).get()), f64(a) @ f64(b), **matmul_tol(np.float16, 40)
    )
    assert_reduced("sum", kernels_cl.sum(stream, A, axis=1), a, 1, np.float16)
    assert_reduced("max", kernels_cl.max(stream, A, axis=0), a, 0, np.float16)
    np.testing.assert_array_equal(kernels_cl.transpose(stream, A).get(), a.T)
    np.testing.assert_allclose(
        f64(kernels_cl.softmax(stream, A).get()), softmax_ref(a), rtol=5e-3, atol=1e-4
    )
    g, be = rand((40,), np.float16, 92), rand((40,), np.float16, 93)
    np.testing.assert_allclose(
        f64(kernels_cl.layer_norm(stream, A, dev(stream, g), dev(stream, be)).get()),
        layer_norm_ref(a, g, be),
        rtol=5e-3,
        atol=5e-3,
    )


# -- reductions ---------------------------------------------------------------------------


def reduce_ref(op, x, axis):
    return {"sum": np.sum, "max": np.max, "mean": np.mean}[op](f64(x), axis=axis)


def assert_reduced(op, got, x, axis, dtype=np.float32):
    ref = reduce_ref(op, x, axis)
    got = got.get()
    assert got.shape == np.shape(ref) and got.dtype == np.dtype(dtype)
    if op == "max":
        np.testing.assert_array_equal(got, ref.astype(dtype))
        return
    n = x.size if axis is None else x.shape[axis]
    scale = float(np.abs(f64(x)).max()) if x.size else 1.0
    if dtype == np.float16:
        tol = dict(rtol=2e-3, atol=2e-3 * math.sqrt(n))
    elif dtype == np.float64:
        tol = dict(rtol=1e-12, atol=1e-14 * n)
    else:
        tol = dict(rtol=1e-5, atol=1e-6 * math.sqrt(n) * scale)
    np.testing.assert_allclose(f64(got), ref, **tol)


@pytest.mark.parametrize("op", ["sum", "max", "mean"])
@pytest.mark.parametrize(
    "shape,axis",
    [
        ((1,), None),
        ((1, 1), 1),
        ((257, 263), None),
        ((257, 263), 0),
        ((257, 263), 1),
        ((100003,), 0),
        ((4, 5, 6), 1),
        ((3, 1, 2), -1),
        ((2, 3, 4), -3),
    ],
)
def test_reductions_float32(stream, op, shape, axis):
    x = rand(shape, seed=11, kind="normal")
    got = getattr(kernels_cl, op)(stream, dev(stream, x), axis=axis)
    assert_reduced(op, got, x, axis)


@pytest.mark.parametrize(
    "layout,shape,axis",
    [
        ("rows", (9, 5000), 1),
        ("cols", (3000, 7), 0),
        ("cols", (3, 400, 7), 1),
    ],
)
@pytest.mark.parametrize("op", ["sum", "max"])
def test_reduction_every_candidate(stream, op, layout, shape, axis, grid):
    x = rand(shape, seed=12, kind="normal")
    X = dev(stream, x)
    getattr(kernels_cl, op)(stream, X, axis=axis)  # tunes (one batch for all candidates)
    outer, n, inner = math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1 :])
    result_shape = shape[:axis] + shape[axis + 1 :]
    tunable = REDUCE.TUNABLES[(op, layout, "float32")]
    for name, candidate in tunable.candidates.items():
        out = cla.zeros(stream.queue, result_shape, np.float32)
        candidate(stream, out, X, outer, n, inner, 1.0)
        try:
            assert_reduced(op, out, x, axis)
        except AssertionError as error:
            raise AssertionError(f"candidate {name}: {error}") from None


def test_max_propagates_nan_and_handles_infinities(stream):
    x = rand((6, 300), seed=13)
    x[2, 17] = np.nan
    x[4, :] = -np.inf
    x[5, 3] = np.inf
    got = kernels_cl.max(stream, dev(stream, x), axis=1).get()
    np.testing.assert_array_equal(got, np.max(x, axis=1))
    assert np.isnan(kernels_cl.max(stream, dev(stream, x)).get())


def test_reductions_into_out(stream):
    x = rand((40, 30), seed=14)
    out = cla.zeros(stream.queue, (50,), np.float32)
    result = kernels_cl.mean(stream, dev(stream, x), axis=0, out=out[10:40])
    got = out.get()
    np.testing.assert_allclose(got[10:40], x.mean(axis=0), rtol=1e-5, atol=1e-6)
    assert result.shape == (30,) and not got[:10].any() and not got[40:].any()


def test_reductions_float64(stream):
    if not has_extension(stream, "cl_khr_fp64"):
        pytest.skip("no cl_khr_fp64")
    x = rand((129, 77), np.float64, 15, kind="normal")
    for op in ("sum", "mean"):
        assert_reduced(
            op, getattr(kernels_cl, op)(stream, dev(stream, x), axis=1), x, 1, np.float64
        )
    assert_reduced("sum", kernels_cl.sum(stream, dev(stream, x)), x, None, np.float64)


def test_reductions_float16(stream, half_without_extension):
    """Half input, float partial sums, half result: one rows and one cols candidate,
    each with several passes."""
    x = rand((3, 5000), np.float16, 16, kind="normal")
    out = cla.zeros(stream.queue, (3,), np.float16)
    REDUCE.TUNABLES[("sum", "rows", "float16")].candidates["IPT=4 local=32"](
        stream, out, dev(stream, x), 3, 5000, 1, 1.0
    )  # two passes: 5000 -> 40 -> 1
    assert_reduced("sum", out, x, 1, np.float16)
    c = rand((300, 20), np.float16, 18, kind="normal")
    out = cla.zeros(stream.queue, (20,), np.float16)
    REDUCE.TUNABLES[("sum", "cols", "float16")].candidates["IPT=8 local=16"](
        stream, out, dev(stream, c), 1, 300, 20, 1.0
    )  # three passes: 300 -> 38 -> 5 -> 1
    assert_reduced("sum", out, c, 0, np.float16)
    y = rand((20000,), np.float16, 17, kind="normal")
    out = cla.zeros(stream.queue, (), np.float16)
    REDUCE.TUNABLES[("sum", "rows", "float16")].candidates["IPT=1 local=32"](
        stream, out, dev(stream, y), 1, 20000, 1, 1.0
    )  # three passes: 20000 -> 625 -> 20 -> 1
    assert_reduced("sum", out, y, None, np.float16)


# -- transpose ----------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(1, 1), (257, 263), (5, 1), (1, 7), (33, 17)])
def test_transpose_float32(stream, shape):
    x = rand(shape, seed=17)
    got = kernels_cl.transpose(stream, dev(stream, x)).get()
    np.testing.assert_array_equal(got, x.T)


def test_transpose_every_candidate(stream, grid):
    x = rand((45, 70), seed=18)
    X = dev(stream, x)
    kernels_cl.transpose(stream, X)
    tunable = TRANSPOSE.TUNABLES[32]
    assert any("PAD=1" in n for n in tunable.candidates) and any(
        "PAD=0" in n for n in tunable.candidates
    )
    for name, candidate in tunable.candidates.items():
        out = cla.zeros(stream.queue, (70, 45), np.float32)
        candidate(stream, out, X)
        np.testing.assert_array_equal(out.get(), x.T, err_msg=name)


def test_transpose_moves_bits(stream, half_without_extension):
    cases = [(np.float16, 16)]
    if has_extension(stream, "cl_khr_fp64"):
        cases.append((np.float64, 64))
    checks = []
    for dtype, bits in cases:
        x = rand((19, 26), dtype, 19)
        x[3, 4] = np.nan
        X = dev(stream, x)
        for name in ("PAD=0,TILE=8 local=8x8", "PAD=1,TILE=16 local=16x16"):
            out = cla.zeros(stream.queue, (26, 19), dtype)
            checks.append(
                (
                    lambda c=TRANSPOSE.TUNABLES[bits].candidates[name], o=out, X=X: c(stream, o, X),
                    out,
                    np.ascontiguousarray(x.T).tobytes(),
                )
            )
    queue_first(*(call for call, _, _ in checks))
    for call, out, expected in checks:
        call()
        assert out.get().tobytes() == expected


# -- softmax and layer norm ---------------------------------------------------------------


def softmax_ref(x):
    x = f64(x)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def layer_norm_ref(x, gamma, beta, eps=1e-5):
    x = f64(x)
    mean = x.mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=-1, keepdims=True) + eps) * f64(gamma) + f64(beta)


@pytest.mark.parametrize("shape", [(1, 1), (131, 257), (3, 1000), (17,), (2, 3, 5)])
def test_softmax_float32(stream, shape):
    x = rand(shape, seed=20, kind="normal") * 4
    got = kernels_cl.softmax(stream, dev(stream, x)).get()
    np.testing.assert_allclose(got, softmax_ref(x), rtol=1e-5, atol=1e-7)


def test_softmax_is_numerically_stable(stream):
    x = np.array([[1000.0, 1001.0, 999.0], [-1000.0, -1e4, -999.0]], np.float32)
    got = kernels_cl.softmax(stream, dev(stream, x)).get()
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, softmax_ref(x), rtol=1e-5, atol=1e-7)


def test_softmax_and_layer_norm_every_candidate(stream, grid):
    x = rand((21, 300), seed=21, kind="normal")
    gamma, beta = rand((300,), seed=22), rand((300,), seed=23)
    X, G, B = dev(stream, x), dev(stream, gamma), dev(stream, beta)
    kernels_cl.softmax(stream, X)
    kernels_cl.layer_norm(stream, X, G, B)
    for name, candidate in ROWS.SOFTMAX_TUNABLES["float32"].candidates.items():
        out = cla.zeros(stream.queue, x.shape, np.float32)
        candidate(stream, out, X)
        np.testing.assert_allclose(out.get(), softmax_ref(x), rtol=1e-5, atol=1e-7, err_msg=name)
    for name, candidate in ROWS.LAYER_NORM_TUNABLES["float32"].candidates.items():
        out = cla.zeros(stream.queue, x.shape, np.float32)
        candidate(stream, out, X, G, B, 1e-5)
        np.testing.assert_allclose(
            out.get(), layer_norm_ref(x, gamma, beta), rtol=1e-4, atol=1e-5, err_msg=name
        )


@pytest.mark.parametrize("shape", [(1, 1), (37, 53), (5, 300), (2, 3, 8)])
def test_layer_norm_float32(stream, shape):
    x = rand(shape, seed=24, kind="normal") * 3 + 2
    gamma, beta = rand(shape[-1:], seed=25), rand(shape[-1:], seed=26)
    got = kernels_cl.layer_norm(
        stream, dev(stream, x), dev(stream, gamma), dev(stream, beta), eps=1e-3
    ).get()
    np.testing.assert_allclose(got, layer_norm_ref(x, gamma, beta, 1e-3), rtol=1e-4, atol=1e-5)


def test_softmax_and_layer_norm_in_place(stream):
    x = rand((9, 40), seed=27, kind="normal")
    gamma, beta = rand((40,), seed=28), rand((40,), seed=29)
    X = dev(stream, x)
    assert kernels_cl.softmax(stream, X, out=X) is X
    np.testing.assert_allclose(X.get(), softmax_ref(x), rtol=1e-5, atol=1e-7)
    Y = dev(stream, x)
    kernels_cl.layer_norm(stream, Y, dev(stream, gamma), dev(stream, beta), out=Y)
    np.testing.assert_allclose(Y.get(), layer_norm_ref(x, gamma, beta), rtol=1e-4, atol=1e-5)


def test_rows_float64_and_float16(stream, half_without_extension):
    """Both variants (a work-group per row, an item per row) of softmax and layer norm."""
    cases = [(np.float16, dict(rtol=5e-3, atol=1e-4), dict(rtol=5e-3, atol=5e-3))]
    if has_extension(stream, "cl_khr_fp64"):
        cases.append((np.float64, dict(rtol=1e-12, atol=1e-15), dict(rtol=1e-10, atol=1e-12)))
    checks = []
    for dtype, softmax_tol, layer_norm_tol in cases:
        x = rand((13, 70), dtype, 33, kind="normal")
        g, b = rand((70,), dtype, 34), rand((70,), dtype, 35)
        X, G, B = dev(stream, x), dev(stream, g), dev(stream, b)
        name_of = np.dtype(dtype).name
        for variant in ("group local=32", "serial local=64"):
            out = cla.zeros(stream.queue, x.shape, dtype)
            sm = ROWS.SOFTMAX_TUNABLES[name_of].candidates[variant]
            checks.append(
                (lambda c=sm, o=out, X=X: c(stream, o, X), out, softmax_ref(x), softmax_tol)
            )
            out = cla.zeros(stream.queue, x.shape, dtype)
            ln = ROWS.LAYER_NORM_TUNABLES[name_of].candidates[variant]
            checks.append(
                (
                    lambda c=ln, o=out, X=X, G=G, B=B: c(stream, o, X, G, B, 1e-5),
                    out,
                    layer_norm_ref(x, g, b),
                    layer_norm_tol,
                )
            )
    queue_first(*(call for call, *_ in checks))
    for call, out, ref, tol in checks:
        call()
        np.testing.assert_allclose(f64(out.get()), ref, **tol)


# -- elementwise --------------------------------------------------------------------------


def test_elementwise_fused_with_broadcast_bias(stream):
    a, b, c = rand((37, 53), seed=40), rand((37, 53), seed=41), rand((53,), seed=42)
    got = kernels_cl.elementwise(
        stream, "relu(a * b + c)", a=dev(stream, a), b=dev(stream, b), c=dev(stream, c)
    ).get()
    np.testing.assert_allclose(got, np.maximum(f64(a) * b + c, 0), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n", [1, 3, 8, 1001])
def test_elementwise_every_vector_width_and_tail(stream, n):
    x, y = rand((n,), seed=43), rand((n,), seed=44)
    X, Y = dev(stream, x), dev(stream, y)
    expr = "x * s - y / 2 + 1"
    ref = f64(x) * 3 - f64(y) / 2 + 1
    got = kernels_cl.elementwise(stream, expr, x=X, y=Y, s=3.0)  # tunes
    np.testing.assert_allclose(got.get(), ref, rtol=1e-5, atol=1e-6)
    plan = ELEMENTWISE.plan(stream, expr, x=X, y=Y, s=3.0)
    assert {n.split()[0] for n in plan.tunable.candidates} == {"VW=1", "VW=2", "VW=4", "VW=8"}
    for name, candidate in plan.tunable.candidates.items():
        out = cla.zeros(stream.queue, (n,), np.float32)
        candidate(stream, out, plan.n, *plan.args)
        np.testing.assert_allclose(out.get(), ref, rtol=1e-5, atol=1e-6, err_msg=name)


def test_elementwise_candidates_agree_with_broadcasting(stream):
    x, y = rand((1001,), seed=45), rand((7, 1001), seed=46)
    X, Y = dev(stream, x), dev(stream, y)
    expr = "maximum(x, y) + minimum(x, 0.25) * y"
    kernels_cl.elementwise(stream, expr, x=X, y=Y)
    ref = np.maximum(f64(x), y) + np.minimum(f64(x), 0.25) * y
    plan = ELEMENTWISE.plan(stream, expr, x=X, y=Y)
    for name, candidate in plan.tunable.candidates.items():
        out = cla.zeros(stream.queue, (7, 1001), np.float32)
        candidate(stream, out, plan.n, *plan.args)
        np.testing.assert_allclose(out.get(), ref, rtol=1e-5, atol=1e-6, err_msg=name)


def test_elementwise_functions(stream):
    a = rand((5, 211), seed=47) * 2
    b = rand((5, 211), seed=48) + 1.5  # positive: log, sqrt, rsqrt
    from math import erf

    erf_v = np.vectorize(erf)
    expr = (
        "sigmoid(a) + tanh(a) - silu(a) + gelu(a) + exp(a) + log(b) + sqrt(b) + rsqrt(b)"
        " + abs(a) + sin(a) + cos(a) + erf(a) + square(a) + fmax(a, 0.1) + fmin(a, 0.1)"
        " + pow(b, 1.5) + b ** 2 - -a + relu(a)"
    )
    A, B = f64(a), f64(b)
    ref = (
        1 / (1 + np.exp(-A))
        + np.tanh(A)
        - A / (1 + np.exp(-A))
        + 0.5 * A * (1 + erf_v(A / np.sqrt(2)))
        + np.exp(A)
        + np.log(B)
        + np.sqrt(B)
        + 1 / np.sqrt(B)
        + np.abs(A)
        + np.sin(A)
        + np.cos(A)
        + erf_v(A)
        + A * A
        + np.fmax(A, 0.1)
        + np.fmin(A, 0.1)
        + B**1.5
        + B**2
        + A
        + np.maximum(A, 0)
    )
    got = kernels_cl.elementwise(stream, expr, a=dev(stream, a), b=dev(stream, b)).get()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


def test_elementwise_nan_semantics_like_numpy(stream):
    x = np.array([np.nan, -1, 2, np.nan, 0.5, -3, 7, 1, np.nan], np.float32)
    y = np.array([1, np.nan, 1, np.nan, 0.25, -4, 8, 0, 2], np.float32)
    X, Y = dev(stream, x), dev(stream, y)
    got = kernels_cl.elementwise(stream, "maximum(x, y) + relu(x)", x=X, y=Y).get()
    np.testing.assert_array_equal(
        got, np.maximum(x, y) + np.where(np.isnan(x), x, np.maximum(x, 0))
    )


def test_elementwise_column_broadcast_scalar_array_and_in_place(stream):
    x, col, one = rand((6, 50), seed=49), rand((6, 1), seed=50), rand((1,), seed=51)
    X = dev(stream, x)
    result = kernels_cl.elementwise(
        stream, "x * c + o", x=X, c=dev(stream, col), o=dev(stream, one), out=X
    )
    assert result is X
    np.testing.assert_allclose(X.get(), f64(x) * col + one, rtol=1e-5, atol=1e-6)


def test_elementwise_float64_and_float16(stream, half_without_extension):
    if has_extension(stream, "cl_khr_fp64"):
        a, b = rand((3, 77), np.float64, 52), rand((77,), np.float64, 53)
        got = kernels_cl.elementwise(
            stream, "relu(a * b + 0.5)", a=dev(stream, a), b=dev(stream, b)
        )
        assert got.dtype == np.float64
        np.testing.assert_allclose(got.get(), np.maximum(a * b + 0.5, 0), rtol=1e-12, atol=1e-14)
    h = rand((3, 77), np.float16, 54)
    got = kernels_cl.elementwise(stream, "relu(h * 2 + 0.5)", h=dev(stream, h))
    assert got.dtype == np.float16
    np.testing.assert_allclose(
        f64(got.get()), np.maximum(f64(h) * 2 + 0.5, 0), rtol=2e-3, atol=2e-3
    )


# -- empty inputs -------------------------------------------------------------------------


def test_empty_results_launch_nothing(stream, no_launch):
    q = stream.queue
    e = cla.empty(q, (0, 3), np.float32)
    assert kernels_cl.matmul(stream, e, cla.empty(q, (3, 4), np.float32)).shape == (0, 4)
    assert kernels_cl.matmul(
        stream, cla.empty(q, (4, 3), np.float32), cla.empty(q, (3, 0), np.float32)
    ).shape == (4, 0)
    assert kernels_cl.sum(stream, e, axis=1).shape == (0,)
    assert kernels_cl.max(stream, e, axis=1).shape == (0,)
    assert kernels_cl.transpose(stream, e).shape == (3, 0)
    assert kernels_cl.softmax(stream, e).shape == (0, 3)
    assert kernels_cl.layer_norm(
        stream, e, cla.empty(q, (3,), np.float32), cla.empty(q, (3,), np.float32)
    ).shape == (0, 3)
    assert kernels_cl.elementwise(stream, "relu(x)", x=e).shape == (0, 3)
    assert kernels_cl.softmax(stream, cla.empty(q, (4, 0), np.float32)).shape == (4, 0)
    assert no_launch.calls == 0


def test_empty_reduced_axis_like_numpy(stream):
    q = stream.queue
    e = cla.empty(q, (0, 3), np.float32)
    np.testing.assert_array_equal(kernels_cl.sum(stream, e, axis=0).get(), np.zeros(3))
    assert kernels_cl.sum(stream, cla.empty(q, (0,), np.float32)).get() == 0
    assert np.isnan(kernels_cl.mean(stream, e, axis=0).get()).all()
    with pytest.raises(ValueError, match="kernels_cl.max: 'x' of shape \\(0, 3\\) is empty"):
        kernels_cl.max(stream, e, axis=0)
    # K == 0: a (4, 0) @ (0, 5) product is zeros, like numpy
    z = kernels_cl.matmul(
        stream, cla.empty(q, (4, 0), np.float32), cla.empty(q, (0, 5), np.float32)
    )
    np.testing.assert_array_equal(z.get(), np.zeros((4, 5)))


# -- argument errors, all raised before any launch ------------------------------------------


# Each case: a call (given the stream, its queue, a float32 zeros maker, an array of another
# context and the module), the exception it raises and the message it matches.
_ERROR_CASES = [
    (
        lambda stream, q, f, foreign, k: k.matmul(stream, f(3, 4), f(5, 6)),
        ValueError,
        r"kernels_cl.matmul: 'a' \(3, 4\) and 'b' \(5, 6\) do not align",
    ),
    (
        lambda stream, q, f, foreign, k: k.matmul(stream, f(3), f(3, 3)),
        ValueError,
        "kernels_cl.matmul: 'a' and 'b' must be 2-D",
    ),
    (
        lambda stream, q, f, foreign, k: k.matmul(stream, f(3, 3), cla.zeros(q, (3, 3), np.int32)),
        TypeError,
        "kernels_cl.matmul: argument 'b' has dtype int32",
    ),
    (
        lambda stream, q, f, foreign, k: k.matmul(stream, cla.zeros(q, (3, 3), np.int32), f(3, 3)),
        TypeError,
        "kernels_cl.matmul: argument 'a' has dtype int32; supported: float32",
    ),
    (
        lambda stream, q, f, foreign, k: k.matmul(stream, f(3, 3), np.zeros((3, 3), np.float32)),
        TypeError,
        "kernels_cl.matmul: argument 'b' must be a pyopencl.array.Array, got numpy.ndarray",
    ),
    (
        lambda stream, q, f, foreign, k: k.matmul(stream, foreign, f(3, 3)),
        ValueError,
        "kernels_cl.matmul: argument 'a' belongs to another OpenCL context",
    ),
    (
        lambda stream, q, f, foreign, k: k.matmul(stream, f(3, 4), f(4, 3).T),
        ValueError,
        "kernels_cl.matmul: argument 'b' .* is not C-contiguous",
    ),
    (
        lambda stream, q, f, foreign, k: k.matmul(stream, f(3, 3), f(3, 3), out=f(3, 4)),
        ValueError,
        r"kernels_cl.matmul: 'out' has shape \(3, 4\), the result is \(3, 3\)",
    ),
    (
        lambda stream, q, f, foreign, k: k.matmul(stream, f(3, 3), f(3, 3), out=cla.zeros(q, (3, 3), np.float64)),
        TypeError,
        "kernels_cl.matmul: 'out' has dtype float64",
    ),
    (
        lambda stream, q, f, foreign, k: (lambda a: k.matmul(stream, a, f(3, 3), out=a))(f(3, 3)),
        ValueError,
        "kernels_cl.matmul: 'out' overlaps argument 'a'",
    ),
    (
        lambda stream, q, f, foreign, k: k.matmul("stream", f(3, 3), f(3, 3)),
        TypeError,
        "kernels_cl.matmul: the first argument must be a clmodes.Stream",
    ),
    (
        lambda stream, q, f, foreign, k: k.sum(stream, f(3, 3), axis=2),
        ValueError,
        "kernels_cl.sum: axis 2 is out of bounds",
    ),
    (
        lambda stream, q, f, foreign, k: k.mean(stream, f(3, 3), axis=1.0),
        TypeError,
        "kernels_cl.mean: 'axis' must be None or an int",
    ),
    (
        lambda stream, q, f, foreign, k: k.max(stream, f(3, 3), out=f(3)),
        ValueError,
        r"kernels_cl.max: 'out' has shape \(3,\), the result is \(\)",
    ),
    (
        lambda stream, q, f, foreign, k: k.sum(stream, [1.0, 2.0]),
        TypeError,
        "kernels_cl.sum: argument 'x' must be a pyopencl.array.Array",
    ),
    (
        lambda stream, q, f, foreign, k: k.transpose(stream, f(2, 3, 4)),
        ValueError,
        r"kernels_cl.transpose: 'x' must be 2-D, got shape \(2, 3, 4\)",
    ),
    (
        lambda stream, q, f, foreign, k: (lambda a: k.transpose(stream, a, out=a))(f(3, 3)),
        ValueError,
        "kernels_cl.transpose: 'out' overlaps argument 'x'",
    ),
    (
        lambda stream, q, f, foreign, k: k.softmax(stream, foreign),
        ValueError,
        "kernels_cl.softmax: argument 'x' belongs to another OpenCL context",
    ),
    (
        lambda stream, q, f, foreign, k: (lambda a: k.softmax(stream, a[1:], out=a[:-1]))(f(4, 3)),
        ValueError,
        "kernels_cl.softmax: 'out' partly overlaps argument 'x'",
    ),
    (
        lambda stream, q, f, foreign, k: k.layer_norm(stream, f(3, 4), f(3), f(4)),
        ValueError,
        r"kernels_cl.layer_norm: 'gamma' must have shape \(4,\)",
    ),
    (
        lambda stream, q, f, foreign, k: k.layer_norm(stream, f(3, 4), f(4), cla.zeros(q, 4, np.float64)),
        TypeError,
        "kernels_cl.layer_norm: argument 'beta' has dtype float64 but 'x' has float32",
    ),
    (
        lambda stream, q, f, foreign, k: k.layer_norm(stream, f(3, 4), f(4), f(4), eps=-1),
        ValueError,
        "kernels_cl.layer_norm: 'eps' must be a non-negative number",
    ),
    (
        lambda stream, q, f, foreign, k: k.elementwise(stream, "a + ", a=f(3)),
        ValueError,
        "kernels_cl.elementwise: cannot parse",
    ),
    (
        lambda stream, q, f, foreign, k: k.elementwise(stream, "a + d", a=f(3)),
        ValueError,
        "kernels_cl.elementwise: unknown name 'd'",
    ),
    (
        lambda stream, q, f, foreign, k: k.elementwise(stream, "frob(a)", a=f(3)),
        ValueError,
        "kernels_cl.elementwise: unknown function 'frob'",
    ),
    (
        lambda stream, q, f, foreign, k: k.elementwise(stream, "a[0]", a=f(3)),
        ValueError,
        "kernels_cl.elementwise: unsupported syntax Subscript",
    ),
    (
        lambda stream, q, f, foreign, k: k.elementwise(stream, "a + b", a=f(3), b=f(4)),
        ValueError,
        r"kernels_cl.elementwise: operands do not broadcast together: a\(3,\), b\(4,\)",
    ),
    (
        lambda stream, q, f, foreign, k: k.elementwise(stream, "a + b", a=f(2, 3, 4), b=f(2, 1, 4)),
        ValueError,
        "kernels_cl.elementwise: operand 'b' of shape",
    ),
    (
        lambda stream, q, f, foreign, k: k.elementwise(stream, "a + b", a=f(3), b="x"),
        TypeError,
        "kernels_cl.elementwise: operand 'b' must be a pyopencl.array.Array or a real number",
    ),
    (
        lambda stream, q, f, foreign, k: k.elementwise(stream, "a + b", a=f(3), b=cla.zeros(q, 3, np.float64)),
        TypeError,
        "kernels_cl.elementwise: argument 'b' has dtype float64",
    ),
    (
        lambda stream, q, f, foreign, k: k.elementwise(stream, "a * 2", a=cla.zeros(q, 3, np.int32)),
        TypeError,
        "kernels_cl.elementwise: argument 'a' has dtype int32",
    ),
    (
        lambda stream, q, f, foreign, k: k.elementwise(stream, "1 + 2"),
        TypeError,
        "kernels_cl.elementwise: at least one operand must be an array",
    ),
    (
        lambda stream, q, f, foreign, k: (lambda a, b: k.elementwise(stream, "a + b", a=a, b=b[:1], out=b))(
            f(4, 3), f(4, 3)
        ),
        ValueError,
        "kernels_cl.elementwise: 'out' overlaps argument 'b'",
    ),
]


def _error_id(case) -> str:
    return re.match(r"kernels_cl\.(\w+)", case[2]).group(1)


_foreign: dict = {}


def _foreign_array(stream):
    """A (3, 3) array of another OpenCL context on the stream's device (one per device)."""
    device = stream.device.cl_device
    if device.int_ptr not in _foreign:
        other = cl.Context([device])
        _foreign[device.int_ptr] = cla.zeros(cl.CommandQueue(other), (3, 3), np.float32)
    return _foreign[device.int_ptr]


@pytest.mark.parametrize(
    "call, kind, pattern", _ERROR_CASES,
    ids=[f"{i:02d}-{_error_id(c)}" for i, c in enumerate(_ERROR_CASES)],
)
def test_argument_errors_name_op_and_argument_before_launching(stream, no_launch, call, kind,
                                                               pattern):
    q = stream.queue
    f = lambda *s: cla.zeros(q, s, np.float32)  # noqa: E731
    with pytest.raises(kind, match=pattern):
        call(stream, q, f, _foreign_array(stream), kernels_cl)
    assert no_launch.calls == 0


# -- process modes ------------------------------------------------------------------------


def _small_workload(stream, arrays, outs):
    """Every op, each writing into a caller-provided output."""
    a, b, g, be = arrays
    kernels_cl.matmul(stream, a, b, out=outs["mm"])
    kernels_cl.elementwise(stream, "relu(m + g)", m=outs["mm"], g=g, out=outs["ew"])
    kernels_cl.sum(stream, outs["ew"], axis=0, out=outs["sum0"])
    kernels_cl.max(stream, outs["ew"], axis=1, out=outs["max1"])
    kernels_cl.mean(stream, outs["ew"], out=outs["mean"])
    kernels_cl.transpose(stream, outs["ew"], out=outs["t"])
    kernels_cl.softmax(stream, outs["ew"], out=outs["sm"])
    kernels_cl.layer_norm(stream, outs["ew"], g, be, out=outs["ln"])


def _small_buffers(stream, M, K, N, seed):
    q = stream.queue
    arrays = [
        dev(stream, rand(s, seed=seed + i)) for i, s in enumerate([(M, K), (K, N), (N,), (N,)])
    ]
    shapes = {
        "mm": (M, N),
        "ew": (M, N),
        "sum0": (N,),
        "max1": (M,),
        "mean": (),
        "t": (N, M),
        "sm": (M, N),
        "ln": (M, N),
    }
    outs = {k: cla.to_device(q, np.full(s, 7.25, np.float32)) for k, s in shapes.items()}
    return arrays, outs


def test_compile_only_builds_nothing_then_tunes_then_nothing_left(stream, collector, build_spy,
                                                                  own_store):
    M, K, N = 23, 31, 29  # shapes no other test tunes (and a store no other device's answers)
    arrays, outs = _small_buffers(stream, M, K, N, seed=60)
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY, collector):
        _small_workload(stream, arrays, outs)
        stats = StatisticsReader(collector).statistics()
    assert build_spy.calls == 0
    assert stats.compilation.kernels == 0 and stats.autotune.keys == 0
    with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, collector):
        _small_workload(stream, arrays, outs)
    tuned = StatisticsReader(collector).statistics()
    assert tuned.autotune.keys >= 8  # every op's key, measured
    assert all(np.all(o.get() == 7.25) for o in outs.values())  # launches were dropped
    execute = clmodes.StatisticsCollector()
    builds_before = build_spy.calls
    with ProcessModeOverride(ProcessMode.EXECUTE, execute):
        _small_workload(stream, arrays, outs)
    warmed = StatisticsReader(execute).statistics()
    assert warmed.compilation.kernels == 0 and warmed.autotune.keys == 0
    assert build_spy.calls == builds_before
    a, b, g, be = (f64(x.get()) for x in arrays)
    ew = np.maximum(a @ b + g, 0)
    np.testing.assert_allclose(outs["ln"].get(), layer_norm_ref(ew, g, be), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(outs["sum0"].get(), ew.sum(axis=0), rtol=1e-4, atol=1e-4)


def test_compile_and_autotune_leaves_outputs_and_inputs_untouched(stream, collector, own_store):
    arrays, outs = _small_buffers(stream, 17, 13, 11, seed=70)
    inputs_before = [x.get().tobytes() for x in arrays]
    for _ in range(2):  # a miss (tunes on scratch copies), then a hit (winner dropped)
        with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, collector):
            _small_workload(stream, arrays, outs)
        assert all(np.all(o.get() == 7.25) for o in outs.values())
        assert [x.get().tobytes() for x in arrays] == inputs_before
    assert StatisticsReader(collector).statistics().autotune.keys >= 8


def test_tunables_are_per_op_and_dtype_and_keyed_by_shape(stream, own_store):
    """The tunable matmul uses (`matmul.tunable`: the GEMM space by default) is the one
    with a decision after a call, keyed by the shape's bucket; the 15 hand-written
    candidates stay a tunable of their own (KERNELS_CL_MATMUL=candidates)."""
    names = {t.name for t in kernels_cl.tunables()}
    for expected in (
        "kernels_cl.matmul.float32",
        "kernels_cl.matmul.gemm.float32",
        "kernels_cl.matmul.float64",
        "kernels_cl.matmul.float16",
        "kernels_cl.sum_rows.float32",
        "kernels_cl.max_cols.float32",
        "kernels_cl.transpose.bits32",
        "kernels_cl.softmax.float32",
        "kernels_cl.layer_norm.float64",
    ):
        assert expected in names
    a, b = dev(stream, rand((37, 29))), dev(stream, rand((29, 41)))
    out = cla.empty(stream.queue, (37, 41), np.float32)
    used = MATMUL.tunable("float32")
    assert used.name == "kernels_cl.matmul.gemm.float32"
    kernels_cl.matmul(stream, a, b)
    assert used.key(out, a, b) == {"M": 37, "N": 41, "K": 29}
    assert used.winner(stream, out, a, b) is not None
    assert len(MATMUL.TUNABLES["float32"].candidates) >= 10


# -- small enough for the Oclgrind simulator (out-of-bounds and data-race checks) ----------


@pytest.mark.oclgrind
def test_tiny_awkward_shapes_every_op(stream, grid):
    """Every op on tiny shapes that are multiples of no tile or vector width, with views
    at offsets: under Oclgrind any read or write out of bounds or any local-memory race
    in any candidate fails the test."""
    a, b = rand((5, 3), seed=80), rand((3, 7), seed=81)
    x = rand((6, 11), seed=82, kind="normal")
    g, be = rand((11,), seed=83), rand((11,), seed=84)
    big = dev(stream, np.concatenate([rand((2, 11), seed=85), x]))  # x at an offset
    X = big[2:]
    A, B = dev(stream, a), dev(stream, b)
    np.testing.assert_allclose(
        kernels_cl.matmul(stream, A, B).get(), f64(a) @ b, rtol=1e-5, atol=1e-6
    )
    for axis in (None, 0, 1):
        np.testing.assert_allclose(
            kernels_cl.sum(stream, X, axis=axis).get(), f64(x).sum(axis=axis), rtol=1e-5, atol=1e-5
        )
    np.testing.assert_array_equal(kernels_cl.max(stream, X, axis=0).get(), x.max(axis=0))
    np.testing.assert_array_equal(kernels_cl.transpose(stream, X).get(), x.T)
    np.testing.assert_allclose(
        kernels_cl.softmax(stream, X).get(), softmax_ref(x), rtol=1e-5, atol=1e-7
    )
    np.testing.assert_allclose(
        kernels_cl.layer_norm(stream, X, dev(stream, g), dev(stream, be)).get(),
        layer_norm_ref(x, g, be),
        rtol=1e-4,
        atol=1e-5,
    )
    np.testing.assert_allclose(
        kernels_cl.elementwise(stream, "relu(x * 2 + g)", x=X, g=dev(stream, g)).get(),
        np.maximum(f64(x) * 2 + g, 0),
        rtol=1e-5,
        atol=1e-6,
    )
