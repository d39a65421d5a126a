"""A parameterized GEMM and its tuning space: C[M, N] = A[M, K] @ B[K, N], row-major.

One OpenCL source, specialised by defines (the CLBlast Xgemm way, adapted to row-major
operands and to CPU runtimes):

- ``MWG`` x ``NWG``: the tile of C one work-group computes; ``KWG``: the depth of the
  K slabs it walks;
- ``MDIMC`` x ``NDIMC``: the work-group (local size ``(NDIMC, MDIMC)``), so each
  work-item computes an ``MWI x NWI`` block, ``MWI = MWG / MDIMC``, ``NWI = NWG / NDIMC``;
- ``VWN``: vector width along N (loads of B, accumulators, stores of C); ``VWM``: vector
  width along M (reads of the staged A tile);
- ``SA`` / ``SB``: stage the A / B tile of each slab in local memory (1) or read global
  memory directly (0: what often suits CPUs, whose caches do the staging);
- ``KWI``: the inner K loop is unrolled by KWI (``#pragma unroll``).
- ``EDGE``: how an edge tile loads past C: zero padding (0: every load checks its row,
  column and k) or clamped (1: rows and columns past C repeat the last one, whose
  products land in accumulators that are never stored, so only the last partial K slab
  checks anything). The two CPU compilers disagree: at the MLP's N = 10 layer Intel's
  runs clamped loads 1.4-1.5x faster, PoCL's 1.9-2.0x slower (measured interleaved,
  64 and 1024 rows), so it is tuned, not chosen here.

- ``STRM`` / ``STRN``: a work-item's rows / columns strided (1, CLBlast's STRM/STRN=1:
  vector block ``j`` of item ``tx`` starts at column ``(j * NDIMC + tx) * VWN``, so
  neighbouring items touch neighbouring vectors) or contiguous (0: item ``tx`` owns
  columns ``tx * NWI`` to ``tx * NWI + NWI - 1``, the hand-written register-blocked
  kernel's layout). Contiguous rows matter at a partial tile: with strided rows every
  item of a 48-row C in 64-row tiles owns a row past M and runs the checked code, with
  contiguous rows 6 of 8 items run unchecked and 2 stop (PoCL, 48x64: 0.082 to
  0.046 ms, the hand-written kernel's 0.047).

Any M, N, K work: a work-group whose tile lies inside C, and every full K slab, runs
unchecked code; the edge tiles and the last partial slab run the same code with bounds
checks (zero padding or clamping on loads, guarded stores), selected by constant
arguments of an inline function so that the compiler specialises each. No `#if`
reads a tuning define (vector widths are chosen by token pasting), so one source text
serves every config. Accumulation is in the dtype's accumulator type (the prelude's ACC).

The restrictions follow CLBlast's Xgemm tuner: MWG % (MDIMC * VWM) == 0 and
NWG % (NDIMC * VWN) == 0 (whole vectors per item), KWG % KWI == 0 (the unroll divides the
slab); plus a register budget (at most 64 accumulators per item), a local-memory budget
(the staged tiles hold at most 4096 elements: 32 KiB in double, OpenCL's minimum), VWM
only where A is staged (without SA it changes nothing). Work-groups are 16 to 256 items;
4 x 4 ones must stay: with 8 x 8 blocks per item they are what PoCL runs fastest
(today's `reg RM=8,WPT=8 local=4x4` candidate), measured.
"""

from __future__ import annotations

import math

import pyopencl.array as cla

from clmodes import Kernel, KernelLaunchError, Stream, TuningSpace
from kernels_cl import _common
from kernels_cl._common import DTYPES, ceil_div, mem, source

GEMM_PARAMS = {
    "MWG": [16, 32, 64],
    "NWG": [16, 32, 64, 128],
    "KWG": [16, 32],
    "MDIMC": [4, 8, 16],
    "NDIMC": [4, 8, 16],
    "VWM": [1, 4],
    "VWN": [1, 4, 8],
    "KWI": [1, 4],
    "STRM": [0, 1],
    "STRN": [0, 1],
    "SA": [0, 1],
    "SB": [0, 1],
    "EDGE": [0, 1],
}

GEMM_RESTRICTIONS = (
    "KWG % KWI == 0",
    "MWG % (MDIMC * VWM) == 0",
    "NWG % (NDIMC * VWN) == 0",
    "(MWG // MDIMC) * (NWG // NDIMC) <= 64",
    "KWG * (SA * MWG + SB * NWG) <= 4096",
    "VWM == 1 or SA == 1",
    "STRM == 1 or MWG // MDIMC > VWM",  # one vector of rows an item: both layouts agree
    "STRN == 1 or NWG // NDIMC > VWN",
)

GEMM_SPACE = TuningSpace(GEMM_PARAMS, GEMM_RESTRICTIONS)

GEMM = source(r"""
#define MWI (MWG / MDIMC)
#define NWI (NWG / NDIMC)
#define MVI (MWI / VWM)
#define NVI (NWI / VWN)
#define THREADS (MDIMC * NDIMC)

/* width dispatch pastes with its own macro: a KCL_CAT inside a KCL_CAT expansion would
   not expand (the preprocessor disables a macro inside its own expansion) */
#define GEMM_CAT_(a, b) a##b
#define GEMM_CAT(a, b) GEMM_CAT_(a, b)
/* ACC vectors of width 1, 2, 4, 8 (width 1 is the scalar: there is no float1) */
#define KCL_VT_1 ACC
#define KCL_VT_2 ACCV(2)
#define KCL_VT_4 ACCV(4)
#define KCL_VT_8 ACCV(8)
/* n consecutive T of global memory as an ACC vector, and back */
#define KCL_GLD_1(p) LOAD(p, 0)
#define KCL_GLD_2(p) VLOAD(2, p)
#define KCL_GLD_4(p) VLOAD(4, p)
#define KCL_GLD_8(p) VLOAD(8, p)
#define KCL_GST_1(v, p) STORE(p, 0, v)
#define KCL_GST_2(v, p) VSTORE(2, v, p)
#define KCL_GST_4(v, p) VSTORE(4, v, p)
#define KCL_GST_8(v, p) VSTORE(8, v, p)
/* n consecutive ACC of local or private memory as a vector, and back */
#define KCL_LLD_1(p) (*(p))
#define KCL_LLD_2(p) vload2(0, p)
#define KCL_LLD_4(p) vload4(0, p)
#define KCL_LLD_8(p) vload8(0, p)
#define KCL_LST_1(v, p) (*(p) = (v))
#define KCL_LST_2(v, p) vstore2(v, 0, p)
#define KCL_LST_4(v, p) vstore4(v, 0, p)
#define KCL_LST_8(v, p) vstore8(v, 0, p)

#define VN GEMM_CAT(KCL_VT_, VWN)
#define VM GEMM_CAT(KCL_VT_, VWM)
#define GLOADN(p) GEMM_CAT(KCL_GLD_, VWN)(p)
#define GSTOREN(v, p) GEMM_CAT(KCL_GST_, VWN)(v, p)
#define LLOADN(p) GEMM_CAT(KCL_LLD_, VWN)(p)
#define LSTOREN(v, p) GEMM_CAT(KCL_LST_, VWN)(v, p)
#define LLOADM(p) GEMM_CAT(KCL_LLD_, VWM)(p)
#define LSTOREM(v, p) GEMM_CAT(KCL_LST_, VWM)(v, p)

/* the tile row of a work-item's i-th row, the tile column of its j-th vector */
#define LROW(i, ty) (STRM ? ((((i) / VWM) * MDIMC + (ty)) * VWM + (i) % VWM) : ((ty) * MWI + (i)))
#define LCOL(j, tx) (STRN ? (((j) * NDIMC + (tx)) * VWN) : (((tx) * NVI + (j)) * VWN))

inline void gemm_slab(VN acc[MWI][NVI], __local ACC* As, __local ACC* Bs,
                      __global const T* A, __global const T* B,
                      const int M, const int N, const int K,
                      const int row0, const int col0, const int k0,
                      const int tx, const int ty, const bool clamp, const bool check)
{
    const int tid = ty * NDIMC + tx;
    if (SA) {
        for (int i = tid; i < MWG * KWG; i += THREADS) {
            const int am = i / KWG, ak = i % KWG;   /* consecutive items: along K */
            const int row = clamp ? min(row0 + am, M - 1) : row0 + am, ka = k0 + ak;
            As[ak * MWG + am] = (!check || (ka < K && (clamp || row < M)))
                ? LOAD(A, row * K + ka) : (ACC)0;
        }
    }
    if (SB) {
        for (int i = tid; i < KWG * NWG; i += THREADS) {
            const int bk = i / NWG, bn = i % NWG;   /* consecutive items: along N */
            const int kb = k0 + bk, col = clamp ? min(col0 + bn, N - 1) : col0 + bn;
            Bs[bk * NWG + bn] = (!check || (kb < K && (clamp || col < N)))
                ? LOAD(B, kb * N + col) : (ACC)0;
        }
    }
    if (SA + SB) barrier(CLK_LOCAL_MEM_FENCE);
    for (int kk = 0; kk < KWG; kk += KWI) {
#pragma unroll
        for (int u = 0; u < KWI; ++u) {
            const int k = kk + u, gk = k0 + k;
            VN b[NVI];
            for (int j = 0; j < NVI; ++j) {
                const int lc = LCOL(j, tx);
                if (SB) {
                    b[j] = LLOADN(&Bs[k * NWG + lc]);
                } else if ((!check && !clamp) || ((!check || gk < K) && col0 + lc + VWN <= N)) {
                    b[j] = GLOADN(B + gk * N + col0 + lc);   /* a whole vector inside */
                } else if (check && gk >= K) {
                    b[j] = (VN)0;
                } else {
                    ACC tmp[VWN];
                    for (int v = 0; v < VWN; ++v) {
                        const int col = col0 + lc + v;
                        tmp[v] = clamp ? LOAD(B, gk * N + min(col, N - 1))
                                       : (col < N) ? LOAD(B, gk * N + col) : (ACC)0;
                    }
                    b[j] = LLOADN(tmp);
                }
            }
            ACC a[MWI];
            for (int i = 0; i < MVI; ++i) {
                const int lr = LROW(i * VWM, ty);
                if (SA) {
                    LSTOREM(LLOADM(&As[k * MWG + lr]), &a[i * VWM]);
                } else {
                    for (int v = 0; v < VWM; ++v) {
                        const int row = clamp ? min(row0 + lr + v, M - 1) : row0 + lr + v;
                        a[i * VWM + v] = (!check || (gk < K && (clamp || row < M)))
                            ? LOAD(A, row * K + gk) : (ACC)0;
                    }
                }
            }
            for (int i = 0; i < MWI; ++i)
                for (int j = 0; j < NVI; ++j)
                    acc[i][j] = fma((VN)a[i], b[j], acc[i][j]);
        }
    }
    if (SA + SB) barrier(CLK_LOCAL_MEM_FENCE);
}

__kernel __attribute__((reqd_work_group_size(NDIMC, MDIMC, 1)))
void gemm(__global T* C_, int c_off, __global const T* A_, int a_off,
          __global const T* B_, int b_off, int M, int N, int K)
{
    __global T* C = C_ + c_off;
    __global const T* A = A_ + a_off;
    __global const T* B = B_ + b_off;
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int col0 = get_group_id(0) * NWG;
    __local ACC As[SA ? KWG * MWG : 1];
    __local ACC Bs[SB ? KWG * NWG : 1];
    /* Without staging no item waits for another (no barrier), so one whose columns or
       rows all lie outside C stops: at a narrow or short edge (N = 10) most items do. */
    const bool alone = !(SA || SB);
    if (alone && col0 + LCOL(0, tx) >= N) return;
    /* row tiles: a grid-stride loop, at most MAX_GROUPS work-groups along dimension 1 */
    for (int row0 = get_group_id(1) * MWG; row0 < M; row0 += get_num_groups(1) * MWG) {
        if (alone && row0 + LROW(0, ty) >= M) break;   /* later tiles lie further out */
        VN acc[MWI][NVI];
        for (int i = 0; i < MWI; ++i)
            for (int j = 0; j < NVI; ++j)
                acc[i][j] = (VN)0;
        /* Unchecked code where every load is inside A and B: for the whole tile when
           items stage it together, else for each item's own rows and columns (an
           unstaged item reads nothing else), so at an edge only the items across it
           pay the checks. */
        const bool inside = alone
            ? row0 + LROW(MWI - 1, ty) < M && col0 + LCOL(NVI - 1, tx) + VWN <= N
            : row0 + MWG <= M && col0 + NWG <= N;
        int k0 = 0;
        if (inside)
            for (; k0 + KWG <= K; k0 += KWG)
                gemm_slab(acc, As, Bs, A, B, M, N, K, row0, col0, k0, tx, ty, false, false);
        else if (EDGE)   /* clamped loads need no checks until the last partial slab */
            for (; k0 + KWG <= K; k0 += KWG)
                gemm_slab(acc, As, Bs, A, B, M, N, K, row0, col0, k0, tx, ty, true, false);
        for (; k0 < K; k0 += KWG)
            gemm_slab(acc, As, Bs, A, B, M, N, K, row0, col0, k0, tx, ty, EDGE, true);
        for (int i = 0; i < MWI; ++i) {
            const int row = row0 + LROW(i, ty);
            if (row >= M) continue;
            __global T* crow = C + row * N;
            for (int j = 0; j < NVI; ++j) {
                const int col = col0 + LCOL(j, tx);
                if (col + VWN <= N) {
                    GSTOREN(acc[i][j], crow + col);
                } else {
                    ACC tmp[VWN];
                    LSTOREN(acc[i][j], tmp);
                    for (int v = 0; col + v < N; ++v) STORE(crow, col + v, tmp[v]);
                }
            }
        }
    }
}
""")

KERNEL_NAME = "gemm"


def kernel(config: dict, dtype_name: str = "float32") -> Kernel:
    """The kernel one config (of `GEMM_SPACE`) launches for one dtype."""
    return Kernel(GEMM, KERNEL_NAME, {"DT": DTYPES[dtype_name].code, **config})


def geometry(config: dict, m: int, n: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """(global size, local size) of a launch over an m x n result."""
    local = (config["NDIMC"], config["MDIMC"])
    groups_m = min(ceil_div(m, config["MWG"]), _common.MAX_GROUPS)
    return (ceil_div(n, config["NWG"]) * local[0], groups_m * local[1]), local


def launch(stream: Stream, config: dict, a: cla.Array, b: cla.Array, c: cla.Array,
           m: int, n: int, k: int):
    """C[m, n] = A[m, k] @ B[k, n] with one config: one launch through `stream.launch`
    (so it obeys the stream's and the process's modes). Arrays are C-contiguous
    pyopencl arrays of one dtype, possibly at an offset; nothing is checked here beyond
    the work-group size (the public `kernels_cl.matmul` checks arguments). Returns the
    launch's event (None when the mode drops it, or when there is nothing to compute)."""
    if m == 0 or n == 0 or k == 0:
        return None
    global_size, local_size = geometry(config, m, n)
    limit = stream.device.max_work_group_size
    if math.prod(local_size) > limit:
        raise KernelLaunchError(
            f"kernel {KERNEL_NAME!r} config {GEMM_SPACE.name(config)}: work-group of "
            f"{math.prod(local_size)} exceeds {stream.device.label}'s maximum {limit}"
        )
    return stream.launch(kernel(config, c.dtype.name), global_size, local_size,
                         *mem(c), *mem(a), *mem(b), m, n, k)


def launch_out(stream: Stream, config: dict, out: cla.Array, a: cla.Array, b: cla.Array):
    """`launch` with the argument order of the matmul tunable (out, a, b); the shape from
    the arrays. What a `Tunable(space=GEMM_SPACE, launch=...)` takes."""
    m, k = a.shape
    return launch(stream, config, a, b, out, m, b.shape[1], k)
