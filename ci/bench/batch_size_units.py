"""The units `bench_batch_size.py` builds: a small one and a CLBlast-like library one.

Part of `bench_batch_size.py` (its docstring describes them). Raw sources only: no
pyopencl, no clmodes. "@" in a template stands for the unit's suffix, e.g. "_u17".
"""

from __future__ import annotations

import time

HEADER_NAME = "clm_common.h"
HEADER = """\
#ifndef CLM_COMMON_H
#define CLM_COMMON_H
#define REAL float
#define ZERO 0.0f
#define ONE 1.0f
#ifdef USE_FMA
#define MAD(c, a, b) c = fma((a), (b), (c))
#else
#define MAD(c, a, b) c += (a) * (b)
#endif
#define IDX2(r, c, ld) ((r) * (ld) + (c))
#endif
"""
HEADER_MACROS = ["CLM_COMMON_H", "REAL", "ZERO", "ONE", "MAD", "IDX2"]

SMALL = """\
// small unit @
#include "clm_common.h"
#ifndef TAPS
#define TAPS 16
#endif
#define SCALE 0.5f

inline REAL clamp01@(REAL x) { return fmin(fmax(x, ZERO), ONE); }

inline REAL poly@(REAL x, REAL a, REAL b) { return (a * x + b) * x + SCALE; }

__kernel void small@(__global const REAL* restrict src, __global REAL* restrict dst,
                     const int n, const REAL a, const REAL b) {
  const int gid = get_global_id(0);
  if (gid >= n) return;
  REAL acc = ZERO;
  for (int k = 0; k < TAPS; ++k) {
    const int j = min(gid + k, n - 1);
#ifdef USE_CLAMP
    MAD(acc, clamp01@(poly@(src[j], a, b)), ONE);
#else
    MAD(acc, poly@(src[j], a, b), ONE);
#endif
  }
  dst[gid] = acc / (REAL)TAPS;
}
"""
SMALL_MACROS = ["TAPS", "SCALE"]
SMALL_KERNELS = ["small@"]

LIBRARY = """\
// library unit @: CLBlast-like GEMM, C = alpha * A * B + beta * C (row-major).
// A is M x K, B is K x N, C is M x N; the tiled kernel needs M % MWG == 0,
// N % NWG == 0 and K % KWG == 0 (pad_copy@ pads a matrix to tile multiples).
#include "clm_common.h"

#ifndef MWG
#define MWG 32
#endif
#ifndef NWG
#define NWG 32
#endif
#ifndef KWG
#define KWG 16
#endif
#ifndef MDIMC
#define MDIMC 8
#endif
#ifndef NDIMC
#define NDIMC 8
#endif
#ifndef TRA_DIM
#define TRA_DIM 8
#endif
#define MWI (MWG / MDIMC)
#define NWI (NWG / NDIMC)
#define THREADS (MDIMC * NDIMC)
#define LOADS_A ((MWG * KWG) / THREADS)
#define LOADS_B ((KWG * NWG) / THREADS)

inline void init_acc@(REAL* acc) {
  #pragma unroll
  for (int i = 0; i < MWI * NWI; ++i) {
    acc[i] = ZERO;
  }
}

inline int local_id@(void) {
  return (int)(get_local_id(1) * MDIMC + get_local_id(0));
}

inline void glb_to_loc_a@(const __global REAL* restrict agm, __local REAL* alm,
                          const int lda, const int tile_k, const int group_m) {
  const int lid = local_id@();
  #pragma unroll
  for (int l = 0; l < LOADS_A; ++l) {
    const int i = l * THREADS + lid;
    const int r = i / KWG;
    const int c = i % KWG;
    alm[IDX2(r, c, KWG)] = agm[IDX2(group_m * MWG + r, tile_k * KWG + c, lda)];
  }
}

inline void glb_to_loc_b@(const __global REAL* restrict bgm, __local REAL* blm,
                          const int ldb, const int tile_k, const int group_n) {
  const int lid = local_id@();
  #pragma unroll
  for (int l = 0; l < LOADS_B; ++l) {
    const int i = l * THREADS + lid;
    const int r = i / NWG;
    const int c = i % NWG;
    blm[IDX2(r, c, NWG)] = bgm[IDX2(tile_k * KWG + r, group_n * NWG + c, ldb)];
  }
}

inline void loc_to_priv_a@(__local const REAL* alm, REAL* apm, const int k) {
  #pragma unroll
  for (int mi = 0; mi < MWI; ++mi) {
    apm[mi] = alm[IDX2((int)get_local_id(0) + mi * MDIMC, k, KWG)];
  }
}

inline void loc_to_priv_b@(__local const REAL* blm, REAL* bpm, const int k) {
  #pragma unroll
  for (int ni = 0; ni < NWI; ++ni) {
    bpm[ni] = blm[IDX2(k, (int)get_local_id(1) + ni * NDIMC, NWG)];
  }
}

inline void mult_acc@(REAL* acc, const REAL* apm, const REAL* bpm) {
  #pragma unroll
  for (int mi = 0; mi < MWI; ++mi) {
    #pragma unroll
    for (int ni = 0; ni < NWI; ++ni) {
      MAD(acc[mi * NWI + ni], apm[mi], bpm[ni]);
    }
  }
}

inline void store_result@(__global REAL* cgm, const REAL* acc, const REAL alpha,
                          const REAL beta, const int ldc, const int group_m,
                          const int group_n) {
  #pragma unroll
  for (int mi = 0; mi < MWI; ++mi) {
    #pragma unroll
    for (int ni = 0; ni < NWI; ++ni) {
      const int r = group_m * MWG + (int)get_local_id(0) + mi * MDIMC;
      const int c = group_n * NWG + (int)get_local_id(1) + ni * NDIMC;
#ifdef BETA_ZERO
      cgm[IDX2(r, c, ldc)] = alpha * acc[mi * NWI + ni];
#else
      cgm[IDX2(r, c, ldc)] = alpha * acc[mi * NWI + ni] + beta * cgm[IDX2(r, c, ldc)];
#endif
    }
  }
}

__kernel __attribute__((reqd_work_group_size(MDIMC, NDIMC, 1)))
void xgemm@(const int M, const int N, const int K, const REAL alpha, const REAL beta,
            const __global REAL* restrict agm, const __global REAL* restrict bgm,
            __global REAL* cgm) {
  __local REAL alm[MWG * KWG];
  __local REAL blm[KWG * NWG];
  REAL acc[MWI * NWI];
  REAL apm[MWI];
  REAL bpm[NWI];
  const int group_m = (int)get_group_id(0);
  const int group_n = (int)get_group_id(1);
  init_acc@(acc);
  for (int t = 0; t < K / KWG; ++t) {
    glb_to_loc_a@(agm, alm, K, t, group_m);
    glb_to_loc_b@(bgm, blm, N, t, group_n);
    barrier(CLK_LOCAL_MEM_FENCE);
    #pragma unroll
    for (int k = 0; k < KWG; ++k) {
      loc_to_priv_a@(alm, apm, k);
      loc_to_priv_b@(blm, bpm, k);
      mult_acc@(acc, apm, bpm);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  store_result@(cgm, acc, alpha, beta, N, group_m, group_n);
}

// Direct GEMM for small or ragged sizes: no local memory, bounds checked.
__kernel void xgemm_direct@(const int M, const int N, const int K, const REAL alpha,
                            const REAL beta, const __global REAL* restrict agm,
                            const __global REAL* restrict bgm, __global REAL* cgm) {
  const int r = (int)get_global_id(0);
  const int c = (int)get_global_id(1);
  if (r >= M || c >= N) return;
  REAL acc = ZERO;
  int k = 0;
  for (; k + 4 <= K; k += 4) {
    #pragma unroll
    for (int u = 0; u < 4; ++u) {
      MAD(acc, agm[IDX2(r, k + u, K)], bgm[IDX2(k + u, c, N)]);
    }
  }
  for (; k < K; ++k) {
    MAD(acc, agm[IDX2(r, k, K)], bgm[IDX2(k, c, N)]);
  }
#ifdef BETA_ZERO
  cgm[IDX2(r, c, N)] = alpha * acc;
#else
  cgm[IDX2(r, c, N)] = alpha * acc + beta * cgm[IDX2(r, c, N)];
#endif
}

// Copy a rows x cols matrix into a prows x pcols one, zero-filling the padding.
__kernel void pad_copy@(const int rows, const int cols, const int prows, const int pcols,
                        const __global REAL* restrict src, __global REAL* restrict dst) {
  const int r = (int)get_global_id(0);
  const int c = (int)get_global_id(1);
  if (r >= prows || c >= pcols) return;
  REAL value = ZERO;
  if (r < rows && c < cols) {
    value = src[IDX2(r, c, cols)];
  }
  dst[IDX2(r, c, pcols)] = value;
}

// Transpose through a local tile (one column of padding against bank conflicts).
__kernel __attribute__((reqd_work_group_size(TRA_DIM, TRA_DIM, 1)))
void transpose@(const int rows, const int cols, const __global REAL* restrict src,
                __global REAL* restrict dst) {
  __local REAL tile[TRA_DIM][TRA_DIM + 1];
  const int lr = (int)get_local_id(0);
  const int lc = (int)get_local_id(1);
  const int r = (int)get_group_id(0) * TRA_DIM + lr;
  const int c = (int)get_group_id(1) * TRA_DIM + lc;
  if (r < rows && c < cols) {
    tile[lc][lr] = src[IDX2(r, c, cols)];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const int tr = (int)get_group_id(1) * TRA_DIM + lr;
  const int tc = (int)get_group_id(0) * TRA_DIM + lc;
  if (tr < cols && tc < rows) {
    dst[IDX2(tr, tc, rows)] = tile[lr][lc];
  }
}
"""
LIBRARY_MACROS = ["MWG", "NWG", "KWG", "MDIMC", "NDIMC", "TRA_DIM", "MWI", "NWI",
                  "THREADS", "LOADS_A", "LOADS_B"]
LIBRARY_KERNELS = ["xgemm@", "xgemm_direct@", "pad_copy@", "transpose@"]

KINDS = {  # kind -> (template, its own macros, its kernels)
    "small": (SMALL, SMALL_MACROS, SMALL_KERNELS),
    "library": (LIBRARY, LIBRARY_MACROS, LIBRARY_KERNELS),
}
# The defines the preprocessing figures pass (as -D / p.define), per kind.
DEFINES = {
    "small": {"TAPS": "24", "USE_CLAMP": "1", "USE_FMA": "1"},
    "library": {"MWG": "64", "NWG": "64", "KWG": "16", "MDIMC": "8", "NDIMC": "8",
                "USE_FMA": "1"},
}

_counter = 0
_run_token = time.time_ns() % 10**12


def fresh() -> int:
    """A number no other unit or program in this run has (salts and unit suffixes)."""
    global _counter
    _counter += 1
    return _counter


def raw_unit(kind: str) -> tuple[str, list[str]]:
    """A unit with fresh names that concatenates with any other: the header inlined,
    every macro #undef'd at its end. Returns (source, kernel names)."""
    template, macros, kernels = KINDS[kind]
    suffix = f"_u{fresh()}"
    body = template.replace(f'#include "{HEADER_NAME}"\n', HEADER).replace("@", suffix)
    undefs = "".join(f"#undef {m}\n" for m in [*macros, *HEADER_MACROS])
    return body + undefs, [k.replace("@", suffix) for k in kernels]


def salted(sources: list[str]) -> str:
    n = fresh()
    return (f"// salt {_run_token}-{n}\n#define SALT {_run_token}{n:06d}\n"
            + "\n".join(sources) + "#undef SALT\n")


def macro_unit(kind: str) -> str:
    """A unit as written: macros, the #include, #ifdef branches (fresh names)."""
    return KINDS[kind][0].replace("@", f"_u{fresh()}")
