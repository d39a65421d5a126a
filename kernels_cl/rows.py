"""Row-wise operations over the last axis: `softmax` and `layer_norm`, autotuned.

Both see x as R rows of C elements (R = product of the leading dimensions).

Candidates (one `clmodes.Tunable` per operation and dtype, keyed by (R, C)):
- ``group local=WG``: one work-group of WG items per row (WG 32/64/128/256); each pass
  over the row is strided by WG and combined by a tree in local memory;
- ``serial local=L``: one work-item per row (L rows per work-group), for many short rows.

softmax: y = exp(x - max(x)) / sum(exp(x - max(x))) per row (numerically stable: the
row maximum is subtracted first). Tested against numpy: float32 rtol 1e-5, atol 1e-7;
float64 rtol 1e-12; float16 rtol 5e-3, atol 1e-4.

layer_norm: y = (x - mean) / sqrt(var + eps) * gamma + beta per row, with the biased
variance computed in a second pass over (x - mean)^2 (no cancellation). gamma and beta
have shape (C,). Tested: float32 rtol 1e-4, atol 1e-5; float64 rtol 1e-10, atol 1e-12;
float16 rtol 5e-3, atol 5e-3.

Both may work in place (`out=x`): each element is read for the last time by the item
that writes it, after the row statistics are complete.
"""

from __future__ import annotations

import functools

import pyopencl.array as cla

from clmodes import Kernel, Stream, Tunable, kernel_variants
from kernels_cl import _common
from kernels_cl._common import (
    DTYPES,
    DType,
    check_array,
    check_out,
    check_same_dtype,
    check_stream,
    mem,
    register,
    round_up,
    source,
)

# Two variants of each kernel: GROUP (a work-group per row) and SERIAL (an item per row).
_REDUCERS = r"""
#if GROUP
/* Combine one value per item of the work-group; every item gets the result. */
ACC kcl_group_sum(__local ACC* part, ACC v)
{
    const int lid = get_local_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);   /* part may still be read from a previous call */
    part[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) part[lid] += part[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return part[0];
}
ACC kcl_group_max(__local ACC* part, ACC v)
{
    const int lid = get_local_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    part[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) part[lid] = fmax(part[lid], part[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return part[0];
}
#define FOR_EACH_ROW(r) for (int r = get_group_id(1); r < R; r += get_num_groups(1))
#define FIRST (get_local_id(0))
#define STEP WG
#define LOCALS __local ACC part[WG];
#define GSUM(v) kcl_group_sum(part, (v))
#define GMAX(v) kcl_group_max(part, (v))
#else
#define FOR_EACH_ROW(r) for (int r = get_global_id(0); r < R; r += get_global_size(0))
#define FIRST 0
#define STEP 1
#define LOCALS
#define GSUM(v) (v)
#define GMAX(v) (v)
#endif
"""

SOFTMAX = source(_REDUCERS + r"""
__kernel void kcl_softmax(__global T* Y_, int y_off, __global const T* X_, int x_off,
                          int R, int C)
{
    LOCALS
    FOR_EACH_ROW(r) {   /* GROUP: a work-group per row, the loop uniform over the group */
        const __global T* x = X_ + x_off + (size_t)r * C;
        __global T* y = Y_ + y_off + (size_t)r * C;
        ACC m = -INFINITY;
        for (int i = FIRST; i < C; i += STEP) m = fmax(m, (ACC)LOAD(x, i));
        m = GMAX(m);
        ACC s = 0;
        for (int i = FIRST; i < C; i += STEP) s += exp((ACC)LOAD(x, i) - m);
        s = GSUM(s);
        const ACC inv = (ACC)1 / s;
        for (int i = FIRST; i < C; i += STEP) STORE(y, i, exp((ACC)LOAD(x, i) - m) * inv);
    }
}
""")

LAYER_NORM = source(_REDUCERS + r"""
__kernel void kcl_layer_norm(__global T* Y_, int y_off, __global const T* X_, int x_off,
                             __global const T* G_, int g_off, __global const T* B_, int b_off,
                             int R, int C, ACC eps)
{
    LOCALS
    const __global T* gamma = G_ + g_off;
    const __global T* beta = B_ + b_off;
    FOR_EACH_ROW(r) {
        const __global T* x = X_ + x_off + (size_t)r * C;
        __global T* y = Y_ + y_off + (size_t)r * C;
        ACC s = 0;
        for (int i = FIRST; i < C; i += STEP) s += (ACC)LOAD(x, i);
        const ACC mean = GSUM(s) / (ACC)C;
        ACC q = 0;
        for (int i = FIRST; i < C; i += STEP) {
            const ACC d = (ACC)LOAD(x, i) - mean;
            q += d * d;
        }
        const ACC rstd = rsqrt(GSUM(q) / (ACC)C + eps);
        for (int i = FIRST; i < C; i += STEP)
            STORE(y, i, ((ACC)LOAD(x, i) - mean) * rstd * (ACC)LOAD(gamma, i) + (ACC)LOAD(beta, i));
    }
}
""")


def _rows(x: cla.Array) -> tuple[int, int]:
    C = x.shape[-1]
    return (x.size // C if C else 0), C


def _arguments(out, x, rest):
    """Kernel argument order: out, x, [gamma, beta], R, C, [eps]."""
    R, C = _rows(x)
    args = [*mem(out), *mem(x)]
    scalars = []
    for extra in rest:
        if isinstance(extra, cla.Array):
            args.extend(mem(extra))
        else:
            scalars.append(extra)
    return (*args, R, C, *scalars)


@functools.lru_cache(maxsize=None)
def _with_wg(kernel: Kernel, wg: int) -> Kernel:
    return kernel.with_defines(WG=wg)


def _launch_group(stream, kernel, variant, out, x, *rest):
    wg = variant.local_size[0]
    R, _ = _rows(x)
    groups = min(R, _common.MAX_GROUPS)
    return stream.launch(_with_wg(kernel, wg), (wg, groups), (wg, 1), *_arguments(out, x, rest))


def _launch_serial(stream, kernel, variant, out, x, *rest):
    size = variant.local_size[0]
    R, _ = _rows(x)
    return stream.launch(kernel, round_up(R, size), size, *_arguments(out, x, rest))


def _key(out, x, *rest):
    R, C = _rows(x)
    return {"R": R, "C": C}


def _make(op: str, src: str, entry: str, dtype: DType) -> Tunable:
    candidates = {}
    group = kernel_variants(Kernel(src, entry, {"DT": dtype.code, "GROUP": 1}), _launch_group,
                            local_sizes=[32, 64, 128, 256])
    serial = kernel_variants(Kernel(src, entry, {"DT": dtype.code, "GROUP": 0}),
                             _launch_serial, local_sizes=[64])
    candidates.update({f"group {name}": c for name, c in group.items()})
    candidates.update({f"serial {name}": c for name, c in serial.items()})
    return register(Tunable(f"kernels_cl.{op}.{dtype.name}", key=_key, candidates=candidates,
                            bucket={"R": "pow2", "C": "pow2"}))  # sizes are arguments


SOFTMAX_TUNABLES: dict[str, Tunable] = {
    name: _make("softmax", SOFTMAX, "kcl_softmax", d) for name, d in DTYPES.items()
}
LAYER_NORM_TUNABLES: dict[str, Tunable] = {
    name: _make("layer_norm", LAYER_NORM, "kcl_layer_norm", d) for name, d in DTYPES.items()
}


def _check_rows(op: str, stream: Stream, x: object) -> tuple[Stream, cla.Array]:
    stream = check_stream(op, stream)
    x = check_array(op, "x", x, stream)
    if x.ndim < 1:
        raise ValueError(f"kernels_cl.{op}: 'x' must have at least 1 dimension, got a 0-d array")
    return stream, x


def softmax(stream: Stream, x: cla.Array, out: cla.Array | None = None) -> cla.Array:
    """Softmax over the last axis (each row sums to 1), numerically stable."""
    op = "softmax"
    stream, x = _check_rows(op, stream, x)
    dtype = check_same_dtype(op, [("x", x)], stream)
    out = check_out(op, out, tuple(x.shape), dtype, stream, in_place=[("x", x)])
    if out.size == 0:
        return out
    SOFTMAX_TUNABLES[dtype.name](stream, out, x)
    return out


def layer_norm(
    stream: Stream, x: cla.Array, gamma: cla.Array, beta: cla.Array, eps: float = 1e-5,
    out: cla.Array | None = None,
) -> cla.Array:
    """Layer normalization over the last axis: (x - mean) / sqrt(var + eps) * gamma + beta."""
    op = "layer_norm"
    stream, x = _check_rows(op, stream, x)
    gamma = check_array(op, "gamma", gamma, stream)
    beta = check_array(op, "beta", beta, stream)
    dtype = check_same_dtype(op, [("x", x), ("gamma", gamma), ("beta", beta)], stream)
    C = x.shape[-1]
    for name, param in (("gamma", gamma), ("beta", beta)):
        if tuple(param.shape) != (C,):
            raise ValueError(
                f"kernels_cl.{op}: {name!r} must have shape ({C},) to match the last axis of "
                f"'x' {x.shape}, got {param.shape}"
            )
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not eps >= 0:
        raise ValueError(f"kernels_cl.{op}: 'eps' must be a non-negative number, got {eps!r}")
    out = check_out(op, out, tuple(x.shape), dtype, stream, [("gamma", gamma), ("beta", beta)],
                    in_place=[("x", x)])
    if out.size == 0:
        return out
    LAYER_NORM_TUNABLES[dtype.name](stream, out, x, gamma, beta, float(eps))
    return out
