"""`matmul(stream, a, b, out=None)`: C[M, N] = A[M, K] @ B[K, N], autotuned.

Candidates (one `clmodes.Tunable` per dtype, key {"M", "N", "K"}, each bucketed to
powers of two: 33..64 rows share a decision):

- ``naive local=16x16``: one work-item per element of C, straight from global memory;
- ``tiled TILE=t``: TILE x TILE work-groups staging TILE x TILE blocks of A and B in
  local memory (TILE 8, 16, 32);
- ``reg RM=r,WPT=w local=..``: register blocking without local memory: each work-item
  computes an RM x WPT block of C (RM 2/4/6/8), reading rows of B as WPT-wide vectors
  (WPT 2, 4, 8) — what suits CPUs, whose caches do the staging;
- ``blocked TS=s,WPT=w``: local memory *and* register blocking: an s x s tile of C per
  work-group of (s/w) x (s/w) items, each item a w x w block, B read from local memory as
  w-wide vectors (WPT 2, 4, 8).

Any M, N, K work: tiles are loaded with bounds checks (zero padding) and stores are
guarded; vector paths fall back to scalar code at the right edge. K == 0 gives zeros; an
empty result launches nothing. Accumulation is in the dtype's accumulator precision
(float for float16 and float32, double for float64).

Accuracy (tested against a float64 numpy product, inputs uniform in [-1, 1)):
float32 rtol 1e-4, atol 1e-5 * K; float64 rtol 1e-10, atol 1e-12 * K;
float16 rtol 2e-3, atol 2e-3 * sqrt(K) (the result is rounded to half once).
"""

from __future__ import annotations


import pyopencl.array as cla

from clmodes import Kernel, Stream, Tunable, kernel_variants
from clmodes.tune import Budget, LocalSearch
from kernels_cl import _common, settings
from kernels_cl.gemm import GEMM_SPACE, launch_out
from kernels_cl._common import (
    DTYPES,
    DType,
    ceil_div,
    check_array,
    check_out,
    check_same_dtype,
    check_stream,
    fill,
    mem,
    register,
    round_up,
    source,
)

_ARGS = """
    __global T* C_, int c_off, __global const T* A_, int a_off,
    __global const T* B_, int b_off, int M, int N, int K"""

_POINTERS = """
    __global T* C = C_ + c_off;
    __global const T* A = A_ + a_off;
    __global const T* B = B_ + b_off;"""

# Rows are walked with a grid-stride loop over dimension 1, so that launches never need
# more than MAX_GROUPS work-groups along it (CUDA-based runtimes cap grid.y at 65535).

NAIVE = source(f"""
__kernel void mm_naive({_ARGS})
{{{_POINTERS}
    const int col = get_global_id(0);
    if (col >= N) return;
    for (int row = get_global_id(1); row < M; row += get_global_size(1)) {{
        ACC acc = 0;
        for (int k = 0; k < K; ++k)
            acc += LOAD(A, row * K + k) * LOAD(B, k * N + col);
        STORE(C, row * N + col, acc);
    }}
}}
""")

TILED = source(f"""
__kernel void mm_tiled({_ARGS})
{{{_POINTERS}
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int col = get_global_id(0);
    __local ACC As[TILE][TILE];
    __local ACC Bs[TILE][TILE];
    for (int row0 = get_group_id(1) * TILE; row0 < M; row0 += get_num_groups(1) * TILE) {{
        const int row = row0 + ly;
        ACC acc = 0;
        for (int t = 0; t < K; t += TILE) {{
            const int ka = t + lx, kb = t + ly;
            As[ly][lx] = (row < M && ka < K) ? LOAD(A, row * K + ka) : (ACC)0;
            Bs[ly][lx] = (kb < K && col < N) ? LOAD(B, kb * N + col) : (ACC)0;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int k = 0; k < TILE; ++k)
                acc += As[ly][k] * Bs[k][lx];
            barrier(CLK_LOCAL_MEM_FENCE);
        }}
        if (row < M && col < N) STORE(C, row * N + col, acc);
    }}
}}
""")

# Each work-item: rows r0..r0+RM-1 (clamped to M-1 for loading; guarded when storing),
# columns c0..c0+WPT-1 as one vector.
REG = source(f"""
#define VEC ACCV(WPT)
__kernel void mm_reg({_ARGS})
{{{_POINTERS}
    const int c0 = get_global_id(0) * WPT;
    if (c0 >= N) return;
    for (int r0 = get_global_id(1) * RM; r0 < M; r0 += get_global_size(1) * RM) {{
        const __global T* arow[RM];
        VEC acc[RM];
        for (int r = 0; r < RM; ++r) {{
            arow[r] = A + min(r0 + r, M - 1) * K;
            acc[r] = (VEC)0;
        }}
        if (c0 + WPT <= N) {{
            for (int k = 0; k < K; ++k) {{
                const VEC b = VLOAD(WPT, B + k * N + c0);
                for (int r = 0; r < RM; ++r)
                    acc[r] = fma((VEC)LOAD(arow[r], k), b, acc[r]);
            }}
        }} else {{
            ACC tmp[WPT];
            for (int k = 0; k < K; ++k) {{
                for (int j = 0; j < WPT; ++j)
                    tmp[j] = (c0 + j < N) ? LOAD(B, k * N + c0 + j) : (ACC)0;
                const VEC b = KCL_CAT(vload, WPT)(0, tmp);
                for (int r = 0; r < RM; ++r)
                    acc[r] = fma((VEC)LOAD(arow[r], k), b, acc[r]);
            }}
        }}
        for (int r = 0; r < RM; ++r) {{
            if (r0 + r >= M) break;
            __global T* crow = C + (r0 + r) * N;
            if (c0 + WPT <= N) {{
                VSTORE(WPT, acc[r], crow + c0);
            }} else {{
                ACC tmp[WPT];
                KCL_CAT(vstore, WPT)(acc[r], 0, tmp);
                for (int j = 0; c0 + j < N; ++j) STORE(crow, c0 + j, tmp[j]);
            }}
        }}
    }}
}}
""")

# A TS x TS tile of C per work-group of RTS x RTS items (RTS = TS / WPT); each item a
# WPT x WPT block. K is walked in TSK-deep slabs staged in local memory.
BLOCKED = source(f"""
#define RTS (TS / WPT)
#define VEC ACCV(WPT)
__kernel void mm_blocked({_ARGS})
{{{_POINTERS}
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int tid = ty * RTS + tx;
    const int col0 = get_group_id(0) * TS;
    const int c0 = col0 + tx * WPT;
    __local ACC As[TSK][TS];
    __local ACC Bs[TSK][TS];
    for (int row0 = get_group_id(1) * TS; row0 < M; row0 += get_num_groups(1) * TS) {{
        VEC acc[WPT];
        for (int m = 0; m < WPT; ++m) acc[m] = (VEC)0;
        for (int k0 = 0; k0 < K; k0 += TSK) {{
            for (int i = tid; i < TS * TSK; i += RTS * RTS) {{
                const int am = i / TSK, ak = i % TSK;        /* consecutive items: along K */
                const int row = row0 + am, ka = k0 + ak;
                As[ak][am] = (row < M && ka < K) ? LOAD(A, row * K + ka) : (ACC)0;
                const int bk = i / TS, bn = i % TS;          /* consecutive items: along N */
                const int kb = k0 + bk, col = col0 + bn;
                Bs[bk][bn] = (kb < K && col < N) ? LOAD(B, kb * N + col) : (ACC)0;
            }}
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int k = 0; k < TSK; ++k) {{
                const VEC b = KCL_CAT(vload, WPT)(0, &Bs[k][tx * WPT]);
                for (int m = 0; m < WPT; ++m)
                    acc[m] = fma((VEC)As[k][ty * WPT + m], b, acc[m]);
            }}
            barrier(CLK_LOCAL_MEM_FENCE);
        }}
        for (int m = 0; m < WPT && c0 < N; ++m) {{
            const int row = row0 + ty * WPT + m;
            if (row >= M) break;
            __global T* crow = C + row * N;
            if (c0 + WPT <= N) {{
                VSTORE(WPT, acc[m], crow + c0);
            }} else {{
                ACC tmp[WPT];
                KCL_CAT(vstore, WPT)(acc[m], 0, tmp);
                for (int j = 0; c0 + j < N; ++j) STORE(crow, c0 + j, tmp[j]);
            }}
        }}
    }}
}}
""")

TSK = 16  # depth of the K slabs of the blocked kernel


def _shape(out: cla.Array, a: cla.Array, b: cla.Array) -> tuple[int, int, int]:
    return a.shape[0], b.shape[1], a.shape[1]


def _args(out, a, b):
    M, N, K = _shape(out, a, b)
    return (*mem(out), *mem(a), *mem(b), M, N, K)


def _groups(items: int, per_group: int) -> int:
    """Work-groups along dimension 1: enough for `items`, at most MAX_GROUPS (the kernels
    loop over the rest)."""
    return min(ceil_div(items, per_group), _common.MAX_GROUPS)


def _launch_naive(stream, kernel, variant, out, a, b):
    M, N, _ = _shape(out, a, b)
    lx, ly = variant.local_size
    return stream.launch(kernel, (round_up(N, lx), _groups(M, ly) * ly), variant.local_size,
                         *_args(out, a, b))


def _launch_tiled(stream, kernel, variant, out, a, b):
    M, N, _ = _shape(out, a, b)
    t = variant["TILE"]
    return stream.launch(kernel, (round_up(N, t), _groups(M, t) * t), (t, t), *_args(out, a, b))


def _launch_reg(stream, kernel, variant, out, a, b):
    M, N, _ = _shape(out, a, b)
    lx, ly = variant.local_size
    gx = ceil_div(N, variant["WPT"])
    return stream.launch(kernel, (round_up(gx, lx), _groups(M, ly * variant["RM"]) * ly),
                         variant.local_size, *_args(out, a, b))


def _launch_blocked(stream, kernel, variant, out, a, b):
    M, N, _ = _shape(out, a, b)
    ts, wpt = variant["TS"], variant["WPT"]
    rts = ts // wpt
    return stream.launch(kernel, (ceil_div(N, ts) * rts, _groups(M, ts) * rts), (rts, rts),
                         *_args(out, a, b))


def _key(out, a, b):
    M, N, K = _shape(out, a, b)
    return {"M": M, "N": N, "K": K}


# Every candidate is correct at any M, N, K (bounds-checked tiles, sizes are kernel
# arguments), so a winner tuned at 64 rows may run 48: the key's sizes are powers-of-two
# buckets, and one tune answers 33..64 rows.
BUCKETS = {"M": "pow2", "N": "pow2", "K": "pow2"}


NAIVE_CANDIDATE = "naive local=16x16"
# (RM, WPT) blocks of the register-blocked kernel; the two largest are also tried in 4x4
# work-groups (on CPU runtimes, small groups keep a group's strips of B in cache).
# (TS, WPT) of the blocked kernel: work-groups of 16x16, 16x16 and 8x8 items.
_BLOCKED_TILES = {(32, 2), (64, 4), (64, 8)}
_REG_BLOCKS = {(4, 2), (4, 4), (2, 8), (4, 8), (6, 8), (8, 8)}


def candidates(dtype: DType) -> dict:
    """Every candidate for one dtype, by name ("tiled TILE=16", "reg RM=4,WPT=8 local=8x8")."""
    dt = {"DT": dtype.code}
    found: dict = {}

    def add(prefix, variants):
        found.update({f"{prefix} {name}": c for name, c in variants.items()})

    add("naive", kernel_variants(Kernel(NAIVE, "mm_naive", dt), _launch_naive,
                                 local_sizes=[(16, 16)]))
    add("tiled", kernel_variants(Kernel(TILED, "mm_tiled", dt), _launch_tiled,
                                 defines={"TILE": [8, 16, 32]}))
    add("reg", kernel_variants(
        Kernel(REG, "mm_reg", dt), _launch_reg,
        defines={"WPT": [2, 4, 8], "RM": [2, 4, 6, 8]}, local_sizes=[(8, 8), (4, 4)],
        where=lambda v: (v["RM"], v["WPT"]) in _REG_BLOCKS
        and (v.local_size == (8, 8) or (v["WPT"] == 8 and v["RM"] >= 6)),
    ))
    add("blocked", kernel_variants(Kernel(BLOCKED, "mm_blocked", {**dt, "TSK": TSK}),
                                   _launch_blocked, defines={"TS": [32, 64], "WPT": [2, 4, 8]},
                                   where=lambda v: (v["TS"], v["WPT"]) in _BLOCKED_TILES))
    return found


TUNABLES: dict[str, Tunable] = {
    name: register(Tunable(f"kernels_cl.matmul.{name}", key=_key, candidates=candidates(d),
                           bucket=BUCKETS))
    for name, d in DTYPES.items()
}


# The GEMM space (kernels_cl.gemm) searched by local search from a few configs known to
# do well on the kind of device (`start`), generations of 8 (a neighbourhood), at most
# `SPACE_BUDGET` configs per key. The kernels do not depend on the shape, so the keys of one workload share their
# start configs' builds and PoCL's first-launch code generation.
def _config(text: str) -> dict:
    return GEMM_SPACE.config(text)


# Measured (2 cores, PoCL 6 and Intel's CPU runtime, the MLP's and attention's shapes,
# interleaved): register blocking without local memory, 8-wide vectors along N, 8x8
# blocks per item in 4x4, 8x4 or 8x8 work-groups, or 4x16 in 4x4, each item's rows
# contiguous (STRM=0: the hand-written `reg` candidates' layout, which keeps partial
# tiles cheap), the 4x16 one's columns too. The two CPU compilers disagree on edges
# (the MLP's N = 10 layer, at 64 and 1024 rows): Intel's runs the 4x4 config 1.4-1.5x
# faster with clamped loads (EDGE=1, the hand-written `reg` kernel's way), PoCL's runs
# every config 1.9-2.0x slower with them. So the 4x4 one starts clamped, the others
# zero-padded, and the search continues from whichever wins.
CPU_START = tuple(_config(text) for text in (
    "MWG=32,NWG=32,KWG=16,MDIMC=4,NDIMC=4,VWM=1,VWN=8,KWI=1,STRM=0,STRN=1,SA=0,SB=0,EDGE=1",
    "MWG=64,NWG=32,KWG=16,MDIMC=8,NDIMC=4,VWM=1,VWN=8,KWI=1,STRM=0,STRN=1,SA=0,SB=0,EDGE=0",
    "MWG=16,NWG=64,KWG=16,MDIMC=4,NDIMC=4,VWM=1,VWN=8,KWI=1,STRM=0,STRN=0,SA=0,SB=0,EDGE=0",
    "MWG=64,NWG=64,KWG=16,MDIMC=8,NDIMC=8,VWM=1,VWN=8,KWI=1,STRM=0,STRN=1,SA=0,SB=0,EDGE=0",
))
# Not measured here (no GPU was lent): CLBlast's Xgemm defaults for GPUs, mapped onto
# this space: both tiles staged in local memory, 16x16 or 8x16 work-groups, 4x4 blocks.
GPU_START = tuple(_config(text) for text in (
    "MWG=64,NWG=64,KWG=16,MDIMC=16,NDIMC=16,VWM=4,VWN=4,KWI=4,STRM=1,STRN=1,SA=1,SB=1,EDGE=0",
    "MWG=32,NWG=64,KWG=32,MDIMC=8,NDIMC=16,VWM=1,VWN=4,KWI=1,STRM=1,STRN=1,SA=1,SB=1,EDGE=0",
    "MWG=64,NWG=64,KWG=32,MDIMC=16,NDIMC=16,VWM=1,VWN=1,KWI=4,STRM=1,STRN=1,SA=1,SB=1,EDGE=0",
))


def start_configs(device) -> tuple[dict, ...]:
    """Where the GEMM search starts on `device` (a `clmodes.Device`): the CPU configs on
    a CPU (on PoCL, a staged config's first launch costs several times an unstaged one's
    code generation: `clmodes.tune.search.starts`), the GPU ones on a GPU, both elsewhere."""
    kind = device.description.device_type
    return CPU_START if kind == "CPU" else GPU_START if kind == "GPU" else CPU_START + GPU_START


SPACE_STRATEGY = LocalSearch(seed=0, generation=8)
SPACE_BUDGET = Budget(configs=8)
SPACE_TUNABLES: dict[str, Tunable] = {
    name: register(Tunable(f"kernels_cl.matmul.gemm.{name}", key=_key, space=GEMM_SPACE, bucket=BUCKETS,
                           launch=launch_out, strategy=SPACE_STRATEGY, budget=SPACE_BUDGET,
                           start=start_configs))
    for name in DTYPES
}


def tunable(dtype_name: str) -> Tunable:
    """The matmul tunable in use: the GEMM space searched from `start_configs` (the
    default), or with `KERNELS_CL_MATMUL=candidates` the 15 hand-written candidates (read
    at each call, like the workloads' sizes). Measured side by side by the former
    `ci/bench/bench_matmul_default.py` at commit 2fb9fda (docs/decisions/search-starts.md)."""
    return (SPACE_TUNABLES if settings.MATMUL.get() == "space" else TUNABLES)[dtype_name]


def matmul(stream: Stream, a: cla.Array, b: cla.Array, out: cla.Array | None = None) -> cla.Array:
    """``a @ b`` for 2-D arrays a (M, K) and b (K, N): a new (M, N) array, or `out`.

    `out` may not overlap `a` or `b`. Raises TypeError/ValueError naming the argument
    before anything is launched.
    """
    op = "matmul"
    stream = check_stream(op, stream)
    a = check_array(op, "a", a, stream)
    b = check_array(op, "b", b, stream)
    dtype = check_same_dtype(op, [("a", a), ("b", b)], stream)
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError(
            f"kernels_cl.{op}: 'a' and 'b' must be 2-D, got shapes {a.shape} and {b.shape}"
        )
    if a.shape[1] != b.shape[0]:
        raise ValueError(
            f"kernels_cl.{op}: 'a' {a.shape} and 'b' {b.shape} do not align "
            f"({a.shape[1]} != {b.shape[0]})"
        )
    M, K = a.shape
    N = b.shape[1]
    out = check_out(op, out, (M, N), dtype, stream, [("a", a), ("b", b)])
    if M == 0 or N == 0:
        return out
    if K == 0:
        fill(stream, out, 0.0, dtype)
        return out
    tunable(dtype.name)(stream, out, a, b)
    return out
