"""`transpose(stream, x, out=None)`: the (C, R) transpose of a 2-D (R, C) array, autotuned.

A work-group of TILE x ROWS items moves one TILE x TILE tile through local memory: reads
along rows of x, writes along rows of the result, both coalesced. Candidates: TILE
8/16/32 (work-groups of 8x8, 16x16 and 32x8: ROWS = TILE up to 16, so that no group
exceeds 256 items; each item moves TILE / ROWS elements), with and without a
padding column in local memory (PAD 0/1: the +1 column that keeps a tile's column reads
off a single memory bank on GPUs). One `clmodes.Tunable` per element size (transposing
moves bits: float16/32/64 use ushort/uint/ulong, so NaN payloads survive), keyed by
(R, C). Edges are guarded: any R, C. Exact (no arithmetic).
"""

from __future__ import annotations

import pyopencl.array as cla

from clmodes import Kernel, Stream, Tunable, kernel_variants
from kernels_cl import _common
from kernels_cl._common import (
    ceil_div,
    check_array,
    check_out,
    check_stream,
    mem,
    register,
    resolve_dtype,
    round_up,
    source,
)

TRANSPOSE = source(r"""
#define U KCL_CAT(KCL_BITS_, BITS)
#define KCL_BITS_16 ushort
#define KCL_BITS_32 uint
#define KCL_BITS_64 ulong
/* global (round_up(C, TILE), min(ceil(R / TILE), MAX_GROUPS) * ROWS), local (TILE, ROWS) */
__kernel void kcl_transpose(__global U* Y_, int y_off, __global const U* X_, int x_off,
                            int R, int C)
{
    __global U* Y = Y_ + y_off;
    const __global U* X = X_ + x_off;
    __local U tile[TILE][TILE + PAD];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int c0 = get_group_id(0) * TILE;
    for (int r0 = get_group_id(1) * TILE; r0 < R; r0 += get_num_groups(1) * TILE) {
        for (int k = 0; k < TILE / ROWS; ++k) {
            const int j = ly + k * ROWS;
            const int r = r0 + j, c = c0 + lx;
            if (r < R && c < C) tile[j][lx] = X[(size_t)r * C + c];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE / ROWS; ++k) {
            const int j = ly + k * ROWS;
            const int c = c0 + j, r = r0 + lx;   /* row c, column r of the result */
            if (c < C && r < R) Y[(size_t)c * R + r] = tile[lx][j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);  /* the tile is refilled by the next iteration */
    }
}
""")


def _launch(stream, kernel, variant, out, x):
    R, C = x.shape
    tile, rows = variant["TILE"], variant.local_size[1]
    groups = min(ceil_div(R, tile), _common.MAX_GROUPS)
    return stream.launch(kernel, (round_up(C, tile), groups * rows), variant.local_size,
                         *mem(out), *mem(x), R, C)


def _key(out, x):
    return {"R": x.shape[0], "C": x.shape[1]}


def _make(bits: int) -> Tunable:
    candidates = {}
    for tile in (8, 16, 32):
        rows = tile if tile <= 16 else 8
        candidates.update(kernel_variants(
            Kernel(TRANSPOSE, "kcl_transpose", {"BITS": bits, "ROWS": rows}), _launch,
            defines={"TILE": [tile], "PAD": [0, 1]}, local_sizes=[(tile, rows)],
        ))
    return register(Tunable(f"kernels_cl.transpose.bits{bits}", key=_key, candidates=candidates,
                             bucket={"R": "pow2", "C": "pow2"}))  # sizes are arguments


TUNABLES: dict[int, Tunable] = {bits: _make(bits) for bits in (16, 32, 64)}


def transpose(stream: Stream, x: cla.Array, out: cla.Array | None = None) -> cla.Array:
    """``x.T`` of a 2-D array, materialized (C-contiguous); `out` may not overlap `x`."""
    op = "transpose"
    stream = check_stream(op, stream)
    x = check_array(op, "x", x, stream)
    dtype = resolve_dtype(op, "x", x.dtype, stream)
    if x.ndim != 2:
        raise ValueError(f"kernels_cl.{op}: 'x' must be 2-D, got shape {x.shape}")
    R, C = x.shape
    out = check_out(op, out, (C, R), dtype, stream, [("x", x)])
    if out.size == 0:
        return out
    TUNABLES[dtype.code](stream, out, x)
    return out
