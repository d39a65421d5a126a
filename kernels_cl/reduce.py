"""Reductions: `sum`, `max`, `mean` over one axis or over everything, autotuned.

An array reduced over `axis` is viewed as (outer, n, inner): n is the reduced length.

- inner == 1 (the last axis, or everything): **rows** kernel. One work-group of WG items
  reduces a chunk of WG * IPT elements of a row (each item IPT elements strided by WG,
  so that neighbouring items read neighbouring elements), then a tree in local memory.
  A row longer than one chunk leaves G partials; further passes (same kernel) reduce
  them until one value per row remains. Candidates: WG (the local size) 32/128/256 x
  IPT 1/4/16.
- otherwise: **cols** kernel. Each work-item reduces IPT consecutive rows of one column
  (neighbouring items: neighbouring columns), passes repeat until one row remains.
  Candidates: WG 16/64/256 x IPT 8/32.

One `clmodes.Tunable` per (operation, layout, dtype) — mean shares sum's — keyed by
(outer, n, inner). Every pass is a `stream.launch`; the number of passes and the
intermediate buffers follow from the shapes only. Partial results are kept in the
accumulator precision (float for float16, double for float64).

Like numpy: the result has the input's dtype; max propagates NaN; reducing an empty axis
gives 0 (sum), NaN (mean) or raises ValueError (max); an empty result launches nothing.

Accuracy (tested against numpy in float64): float32 rtol 1e-5 (sum/mean, with an
absolute term of 1e-6 * sqrt(n) times the largest magnitude), max exact; float64 rtol
1e-12; float16 rtol 2e-3 (one final rounding to half).
"""

from __future__ import annotations

import builtins
import functools
import math

import pyopencl.array as cla

from clmodes import Kernel, Stream, Tunable, kernel_variants
from kernels_cl import _common
from kernels_cl._common import (
    DTYPES,
    DType,
    ceil_div,
    check_array,
    check_out,
    check_stream,
    fill,
    mem,
    register,
    resolve_dtype,
    round_up,
    source,
)

_OPS = r"""
#define XT KCL_CAT(KCL_TYPE_, XDT)
#define YT KCL_CAT(KCL_TYPE_, YDT)
#define LOADX(p, i) KCL_CAT(KCL_LOAD_, XDT)(p, i)
#define STOREY(p, i, v) KCL_CAT(KCL_STORE_, YDT)(p, i, v)
#if OP == 1  /* max, propagating NaN like numpy */
#define IDENT (-INFINITY)
#define RED(a, b) ((isnan(a) || (a) > (b)) ? (a) : (b))
#define FINAL(a, scale) (a)
#else        /* sum (mean: sum * scale) */
#define IDENT ((ACC)0)
#define RED(a, b) ((a) + (b))
#define FINAL(a, scale) ((a) * (scale))
#endif
"""

ROWS = source(_OPS + r"""
/* global (G * WG, min(R, MAX_GROUPS)), local (WG, 1): chunk g of row r -> Y[r * G + g] */
__kernel void kcl_reduce_rows(__global YT* Y_, int y_off, __global const XT* X_, int x_off,
                              int R, int n, int G, ACC scale)
{
    const int lid = get_local_id(0), g = get_group_id(0);
    __local ACC part[WG];
    for (int r = get_group_id(1); r < R; r += get_num_groups(1)) {
        const __global XT* X = X_ + x_off + (size_t)r * n;
        ACC acc = IDENT;
        const int base = g * (WG * IPT) + lid;
        for (int j = 0; j < IPT; ++j) {
            const int i = base + j * WG;
            if (i < n) acc = RED(acc, (ACC)LOADX(X, i));
        }
        part[lid] = acc;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = WG / 2; s > 0; s >>= 1) {
            if (lid < s) part[lid] = RED(part[lid], part[lid + s]);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) STOREY(Y_ + y_off, (size_t)r * G + g, FINAL(part[0], scale));
    }
}
""")

COLS = source(_OPS + r"""
/* X (outer, n, inner) -> Y (outer, G, inner), G = ceil(n / IPT);
   global (round_up(inner, WG), min(G, MAX_GROUPS), min(outer, MAX_GROUPS)), local (WG, 1, 1) */
__kernel void kcl_reduce_cols(__global YT* Y_, int y_off, __global const XT* X_, int x_off,
                              int outer, int n, int inner, int G, ACC scale)
{
    const int c = get_global_id(0);
    if (c >= inner) return;
    for (int o = get_global_id(2); o < outer; o += get_global_size(2)) {
        const __global XT* X = X_ + x_off + (size_t)o * n * inner + c;
        for (int g = get_global_id(1); g < G; g += get_global_size(1)) {
            const int r1 = min(n, (g + 1) * IPT);
            ACC acc = IDENT;
            for (int r = g * IPT; r < r1; ++r) acc = RED(acc, (ACC)LOADX(X, (size_t)r * inner));
            STOREY(Y_ + y_off, ((size_t)o * G + g) * inner + c, FINAL(acc, scale));
        }
    }
}
""")

SUM, MAX = 0, 1


@functools.lru_cache(maxsize=None)
def _pass_kernel(kernel: Kernel, xdt: int, ydt: int, wg: int) -> Kernel:
    return kernel.with_defines(XDT=xdt, YDT=ydt, WG=wg)


def _launch_rows(dtype: DType):
    def launch(stream, kernel, variant, out, x, outer, n, inner, scale):
        wg, ipt = variant.local_size[0], variant["IPT"]
        src, src_off = mem(x)
        xdt = dtype.code
        while True:
            groups = ceil_div(n, wg * ipt)
            if groups == 1:
                dst, dst_off = mem(out)
                ydt, factor = dtype.code, scale
            else:
                partial = cla.empty(stream.queue, (outer, groups), dtype.acc_numpy)
                dst, dst_off = mem(partial)
                ydt, factor = dtype.acc_code, 1.0
            event = stream.launch(
                _pass_kernel(kernel, xdt, ydt, wg),
                (groups * wg, min(outer, _common.MAX_GROUPS)), (wg, 1),
                dst, dst_off, src, src_off, outer, n, groups, factor,
            )
            if groups == 1:
                return event
            src, src_off, n, xdt = dst, 0, groups, dtype.acc_code

    return launch


def _launch_cols(dtype: DType):
    def launch(stream, kernel, variant, out, x, outer, n, inner, scale):
        wg, ipt = variant.local_size[0], variant["IPT"]
        src, src_off = mem(x)
        xdt = dtype.code
        while True:
            groups = ceil_div(n, ipt)
            if groups == 1:
                dst, dst_off = mem(out)
                ydt, factor = dtype.code, scale
            else:
                partial = cla.empty(stream.queue, (outer, groups, inner), dtype.acc_numpy)
                dst, dst_off = mem(partial)
                ydt, factor = dtype.acc_code, 1.0
            event = stream.launch(
                _pass_kernel(kernel, xdt, ydt, wg),
                (round_up(inner, wg), min(groups, _common.MAX_GROUPS),
                 min(outer, _common.MAX_GROUPS)),
                (wg, 1, 1), dst, dst_off, src, src_off, outer, n, inner, groups, factor,
            )
            if groups == 1:
                return event
            src, src_off, n, xdt = dst, 0, groups, dtype.acc_code

    return launch


def _key(out, x, outer, n, inner, scale):
    return {"outer": outer, "n": n, "inner": inner}


def _make(op_name: str, op: int, layout: str, dtype: DType) -> Tunable:
    base_defines = {"DT": dtype.code, "OP": op}
    if layout == "rows":
        candidates = kernel_variants(
            Kernel(ROWS, "kcl_reduce_rows", base_defines), _launch_rows(dtype),
            defines={"IPT": [1, 4, 16]}, local_sizes=[32, 128, 256],
        )
    else:
        candidates = kernel_variants(
            Kernel(COLS, "kcl_reduce_cols", base_defines), _launch_cols(dtype),
            defines={"IPT": [8, 32]}, local_sizes=[16, 64, 256],
        )
    return register(Tunable(f"kernels_cl.{op_name}_{layout}.{dtype.name}", key=_key,
                            candidates=candidates,  # sizes are arguments: any size works
                            bucket={"outer": "pow2", "n": "pow2", "inner": "pow2"}))


TUNABLES: dict[tuple[str, str, str], Tunable] = {
    (op_name, layout, dname): _make(op_name, op, layout, d)
    for op_name, op in (("sum", SUM), ("max", MAX))
    for layout in ("rows", "cols")
    for dname, d in DTYPES.items()
}


def _normalize_axis(op: str, axis: object, ndim: int) -> int | None:
    if axis is None:
        return None
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"kernels_cl.{op}: 'axis' must be None or an int, got {axis!r}")
    limit = builtins.max(ndim, 1)
    if not -limit <= axis < limit:
        raise ValueError(f"kernels_cl.{op}: axis {axis} is out of bounds for {ndim}-D 'x'")
    return axis % limit


def _reduce(
    op: str, stream: Stream, x: cla.Array, axis: object, out: cla.Array | None
) -> cla.Array:
    stream = check_stream(op, stream)
    x = check_array(op, "x", x, stream)
    dtype = resolve_dtype(op, "x", x.dtype, stream)
    shape = tuple(x.shape)
    ax = _normalize_axis(op, axis, len(shape))
    if ax is None or not shape:
        outer, n, inner, result_shape = 1, x.size, 1, ()
    else:
        outer, n, inner = math.prod(shape[:ax]), shape[ax], math.prod(shape[ax + 1:])
        result_shape = shape[:ax] + shape[ax + 1:]
    if op == "max" and n == 0 and outer * inner:
        raise ValueError(
            f"kernels_cl.max: 'x' of shape {shape} is empty along the reduced axis "
            f"(max has no identity)"
        )
    out = check_out(op, out, result_shape, dtype, stream)
    if out.size == 0:
        return out
    if n == 0:
        fill(stream, out, 0.0 if op == "sum" else math.nan, dtype)
        return out
    kind = "max" if op == "max" else "sum"
    layout = "rows" if inner == 1 else "cols"
    scale = 1.0 / n if op == "mean" else 1.0
    TUNABLES[(kind, layout, dtype.name)](stream, out, x, outer, n, inner, scale)
    return out


def sum(  # noqa: A001 - numpy's name on purpose
    stream: Stream, x: cla.Array, axis: int | None = None, out: cla.Array | None = None
) -> cla.Array:
    """Sum of `x` over `axis` (None: everything, giving a 0-d array), like ``np.sum``."""
    return _reduce("sum", stream, x, axis, out)


def max(  # noqa: A001 - numpy's name on purpose
    stream: Stream, x: cla.Array, axis: int | None = None, out: cla.Array | None = None
) -> cla.Array:
    """Maximum of `x` over `axis` (None: everything), like ``np.max`` (NaN propagates)."""
    return _reduce("max", stream, x, axis, out)


def mean(
    stream: Stream, x: cla.Array, axis: int | None = None, out: cla.Array | None = None
) -> cla.Array:
    """Mean of `x` over `axis` (None: everything), like ``np.mean`` (same dtype as x)."""
    return _reduce("mean", stream, x, axis, out)

