#!/usr/bin/env python
"""How OpenCL program build time grows with the number of units in one build, per runtime.

    python ci/bench/bench_batch_size.py [--json OUT] [--devices pocl,intel] [--quick]
        [--kinds small,library] [--ks 1,2,4,...] [--reps N] [--launch] [--preprocess]

Standalone: raw pyopencl only (clmodes is not imported). Both caches are off before
pyopencl is imported (`POCL_KERNEL_CACHE=0`, `PYOPENCL_NO_CACHE=1`), and every program
source starts with a fresh `#define SALT <n>` and comment, and every unit gets names no
other unit in the run has (`..._u<n>`), so nothing is ever reused.

Two kinds of unit:

* small: one kernel, two helper functions and a loop (~25 lines);
* library: a CLBlast-like tiled GEMM (local-memory tiles, register blocking, `#pragma
  unroll` loops, seven helpers) with a direct (no local memory) GEMM, a padded copy and a
  local-memory transpose: four kernels, ~190 lines.

Units are written with macros (tile parameters behind `#ifndef` defaults, a function-like
`MAD`, `#ifdef` branches, a small common header); for the OpenCL builds each unit inlines
the header and `#undef`s every macro at its end, so any number of units concatenate.

For each K: (i) batched, one build of K units concatenated; (ii) separate, K builds of one
unit each. Each build is followed by `cl.Kernel(prg, name)` for every kernel in it (some
drivers defer work to kernel creation); with `--launch`, every kernel is also enqueued
once on a tiny problem and the queue finished (PoCL generates each kernel's work-group
function only at its first enqueue, so a build alone leaves that part out). Each figure
is the median of --reps repetitions (default 2; batched and separate interleaved, the
order alternating). Printed per runtime and kind: K, batched s, separate s,
separate/batched, batched and separate s per unit; then the same in this process's CPU
seconds (builds run on one thread, so CPU time leaves out time-slicing by other work on a
shared machine, though not a busy sibling hyper-thread: compare pairs, not absolutes).
The default runs K = 1, 2, 4, ..., 64 (and 128 for small units on PoCL), about 7-8
minutes for both runtimes on 2 shared cores; --quick K = 1, 4, 16, 32.

`--preprocess` instead measures what preprocessing one unit costs: pcpp (parse + write)
and libclang (parse a translation unit; and whether its token stream is the expanded one).
The machine's load (`os.getloadavg`) is printed and recorded: other work shifts every figure.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _register_intel() -> None:
    """Re-execute once with Intel's ICD registered, if its runtime is installed here."""
    if os.environ.get("CLMODES_BENCH_REEXEC") or os.environ.get("OCL_ICD_VENDORS"):
        return  # done already, or registered by the caller (`eval "$(python ci/opencl_env.py)"`)
    if not (Path(sys.prefix) / "lib" / "libintelocl.so").exists():
        return
    out = subprocess.run([sys.executable, str(ROOT / "ci" / "opencl_env.py")],
                         capture_output=True, text=True, check=False)
    exports = {}
    for line in out.stdout.splitlines():
        if line.startswith("export "):
            name, _, value = line[len("export "):].partition("=")
            exports[name] = shlex.split(value)[0] if value else ""
    if exports:
        env = {**os.environ, **exports, "CLMODES_BENCH_REEXEC": "1"}
        os.execve(sys.executable, [sys.executable, *sys.argv], env)


_register_intel()
# Both caches off, before pyopencl (and through it the ICDs) is loaded.
os.environ["POCL_KERNEL_CACHE"] = "0"
os.environ["PYOPENCL_NO_CACHE"] = "1"

import argparse  # noqa: E402
import gc  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
import pyopencl as cl  # noqa: E402

BUILD_OPTIONS = ["-cl-kernel-arg-info"]

# {{{ unit sources ("@" stands for the unit's suffix, e.g. "_u17")

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

# }}}

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


# {{{ builds

class Launcher:
    """Enqueues each kernel once on a tiny problem (--launch)."""

    def __init__(self, ctx: cl.Context) -> None:
        self.queue = cl.CommandQueue(ctx)
        mf = cl.mem_flags
        zeros = np.zeros(64 * 64, dtype=np.float32)
        self.a = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=zeros)
        self.b = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=zeros)
        self.c = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=zeros)

    def launch(self, knl: cl.Kernel, name: str) -> None:
        i32, f32 = np.int32, np.float32
        a, b, c = self.a, self.b, self.c
        base = name.rsplit("_u", 1)[0]
        if base == "small":
            knl.set_args(a, b, i32(64), f32(1.5), f32(0.25))
            cl.enqueue_nd_range_kernel(self.queue, knl, (64,), None)
        elif base in ("xgemm", "xgemm_direct"):
            # the tiled kernel: tiles of 32 x 32 (MWG/NWG), work-groups of 8 x 8
            knl.set_args(i32(32), i32(32), i32(32), f32(1.0), f32(0.5), a, b, c)
            cl.enqueue_nd_range_kernel(self.queue, knl, (8, 8) if base == "xgemm"
                                       else (32, 32), (8, 8) if base == "xgemm" else None)
        elif base == "pad_copy":
            knl.set_args(i32(30), i32(30), i32(32), i32(32), a, b)
            cl.enqueue_nd_range_kernel(self.queue, knl, (32, 32), None)
        elif base == "transpose":
            knl.set_args(i32(32), i32(32), a, b)
            cl.enqueue_nd_range_kernel(self.queue, knl, (32, 32), (8, 8))
        else:
            raise ValueError(name)

    def finish(self) -> None:
        self.queue.finish()


def build(ctx: cl.Context, units: list[tuple[str, list[str]]],
          launcher: Launcher | None) -> None:
    """Build one program of `units` and create (and with a launcher, run) each kernel."""
    prg = cl.Program(ctx, salted([src for src, _ in units])).build(options=BUILD_OPTIONS)
    kernels = [(cl.Kernel(prg, name), name) for _, names in units for name in names]
    if launcher is not None:
        for knl, name in kernels:
            launcher.launch(knl, name)
        launcher.finish()
    del kernels, prg


def timed(fn) -> tuple[float, float]:
    """(wall seconds, this process's CPU seconds) of fn(). The builds run on one thread,
    so CPU time is wall time less the time other work on the machine took the core."""
    gc.collect()
    gc.disable()
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        return time.perf_counter() - wall, time.process_time() - cpu
    finally:
        gc.enable()


def batched(ctx, kind: str, k: int, launcher) -> tuple[float, float]:
    units = [raw_unit(kind) for _ in range(k)]
    return timed(lambda: build(ctx, units, launcher))


def separate(ctx, kind: str, k: int, launcher) -> tuple[float, float]:
    units = [raw_unit(kind) for _ in range(k)]

    def run():
        for unit in units:
            build(ctx, [unit], launcher)
    return timed(run)


def measure_device(device: cl.Device, kinds: list[str], ks: dict[str, list[int]],
                   reps: int, launch: bool) -> dict:
    ctx = cl.Context([device])
    launcher = Launcher(ctx) if launch else None
    name = f"{device.platform.name} / {device.name}"
    result = {"device": name, "platform_version": device.platform.version,
              "kinds": {}}
    print(f"\n== {name}  ({device.platform.version})", flush=True)
    for kind in kinds:
        started = time.perf_counter()
        # warm-up: the first build of a process loads the compiler
        build(ctx, [raw_unit(kind)], launcher)
        warm_single = statistics.median(batched(ctx, kind, 1, launcher)[0]
                                        for _ in range(3))
        samples = {k: {"batched": [], "separate": []} for k in ks[kind]}
        for rep in range(reps):
            for k in ks[kind]:
                # alternate which side goes first, so drift in load splits evenly
                order = ("batched", "separate") if rep % 2 == 0 else ("separate", "batched")
                for side in order:
                    fn = batched if side == "batched" else separate
                    samples[k][side].append(fn(ctx, kind, k, launcher))
        rows = []
        for k in ks[kind]:
            b, s = (statistics.median(w for w, _ in samples[k][side])
                    for side in ("batched", "separate"))
            bc, sc = (statistics.median(c for _, c in samples[k][side])
                      for side in ("batched", "separate"))
            rows.append({"k": k, "batched_s": b, "separate_s": s,
                         "separate_over_batched_ratio": s / b,
                         "batched_s_per_unit": b / k, "separate_s_per_unit": s / k,
                         "batched_cpu_s": bc, "separate_cpu_s": sc,
                         "separate_over_batched_cpu_ratio": sc / bc,
                         "batched_samples": samples[k]["batched"],
                         "separate_samples": samples[k]["separate"]})
        best = min(rows, key=lambda row: row["batched_s_per_unit"])
        elapsed = time.perf_counter() - started
        lines = sum(1 for _ in KINDS[kind][0].splitlines())
        print(f"\n-- {kind} units ({lines} lines, {len(KINDS[kind][2])} kernel(s) each); "
              f"one-unit build {warm_single * 1e3:.0f} ms; median of {reps}; "
              f"{elapsed:.0f} s; load {os.getloadavg()[0]:.2f}"
              + ("; with one launch per kernel" if launch else ""))
        print(f"{'K':>5} {'batched s':>10} {'separate s':>11} {'sep/batch':>10} "
              f"{'batch s/unit':>13} {'sep s/unit':>11} | {'cpu: batch/unit':>15} "
              f"{'sep/unit':>9} {'sep/batch':>9}")
        for row in rows:
            k = row["k"]
            print(f"{k:>5} {row['batched_s']:>10.3f} {row['separate_s']:>11.3f} "
                  f"{row['separate_over_batched_ratio']:>10.2f} "
                  f"{row['batched_s_per_unit']:>13.4f} {row['separate_s_per_unit']:>11.4f} | "
                  f"{row['batched_cpu_s'] / k:>15.4f} {row['separate_cpu_s'] / k:>9.4f} "
                  f"{row['separate_over_batched_cpu_ratio']:>9.2f}", flush=True)
        print(f"   lowest batched s/unit at K={best['k']} "
              f"({best['batched_s_per_unit'] * 1e3:.1f} ms/unit)")
        result["kinds"][kind] = {"rows": rows, "lines": lines, "reps": reps,
                                 "single_unit_build_s": warm_single,
                                 "best_k": best["k"], "seconds": elapsed,
                                 "launch": launch}
    return result

# }}}


# {{{ preprocessing (--preprocess)

def macro_unit(kind: str) -> str:
    """A unit as written: macros, the #include, #ifdef branches (fresh names)."""
    return KINDS[kind][0].replace("@", f"_u{fresh()}")


def _pocl_include() -> str | None:
    """The directory of PoCL's wheel that holds opencl-c-base.h, if installed."""
    import importlib.util
    spec = importlib.util.find_spec("pocl_binary_distribution")
    if spec is None or not spec.submodule_search_locations:
        return None
    for base in spec.submodule_search_locations:
        found = sorted(Path(base).rglob("opencl-c-base.h"))
        if found:
            return str(found[0].parent)
    return None


def preprocess_figures(kinds: list[str], count: int) -> dict:
    import pcpp
    include = tempfile.mkdtemp(prefix="bench-batch-size-include-")
    Path(include, HEADER_NAME).write_text(HEADER)
    out: dict = {"include_dir": include, "units": count, "kinds": {}}
    try:
        import clang.cindex as ci
        index = ci.Index.create()
    except Exception as err:  # libclang not installed
        print(f"libclang unavailable: {err}")
        ci = index = None

    for kind in kinds:
        defines = DEFINES[kind]
        units = [macro_unit(kind) for _ in range(count + 1)]
        fig: dict = {}

        # pcpp: parse + write the preprocessed text
        def pcpp_one(text: str) -> str:
            p = pcpp.Preprocessor()
            p.line_directive = None
            p.add_path(include)
            for name, value in defines.items():
                p.define(f"{name} {value}")
            p.parse(text, "unit.cl")
            buf = io.StringIO()
            p.write(buf)
            if p.return_code:
                raise RuntimeError(f"pcpp reported {p.return_code} error(s)")
            return buf.getvalue()

        expanded = pcpp_one(units[0])  # warm-up, and a check below
        times = []
        for text in units[1:]:
            t = time.perf_counter()
            pcpp_one(text)
            times.append(time.perf_counter() - t)
        fig["pcpp_ms_per_unit"] = statistics.median(times) * 1e3
        fig["pcpp_expanded_lines"] = sum(1 for line in expanded.splitlines() if line.strip())
        fig["pcpp_output_has_macros"] = bool(re.search(r"\b(MAD|IDX2|MWG|REAL)\b", expanded))

        if index is not None:
            args = ["-x", "cl", "-cl-std=CL1.2", "-I", include,
                    *(f"-D{n}={v}" for n, v in defines.items())]
            opts = ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
            # The libclang wheel ships no resource headers, and with -x cl clang includes
            # opencl-c-base.h itself: "plain" stops at that fatal error. The others: no
            # standard header; that plus clang's table-generated builtin declarations;
            # and the header from PoCL's wheel (LLVM 14's) on the include path.
            variants = [("plain", []), ("no_stdinc", ["-cl-no-stdinc"]),
                        ("no_stdinc_builtins",
                         ["-cl-no-stdinc", "-Xclang", "-fdeclare-opencl-builtins"])]
            pocl_include = _pocl_include()
            if pocl_include:
                variants.append(("pocl_header", ["-isystem", pocl_include]))
                variants.append(("pocl_header_default_header",
                                 ["-isystem", pocl_include,
                                  "-Xclang", "-finclude-default-header"]))
            for variant, extra in variants:
                times, diags = [], []
                index.parse("unit.cl", args=args + extra,
                            unsaved_files=[("unit.cl", units[0])])  # warm-up
                for text in units[1:]:
                    t = time.perf_counter()
                    tu = index.parse("unit.cl", args=args + extra,
                                     unsaved_files=[("unit.cl", text)])
                    times.append(time.perf_counter() - t)
                    diags = [str(d) for d in tu.diagnostics if d.severity >= 3]
                fig[f"libclang_{variant}_ms_per_unit"] = statistics.median(times) * 1e3
                fig[f"libclang_{variant}_errors"] = diags[:5]
                fig[f"libclang_{variant}_error_count"] = len(diags)
            # Tokens: libclang's tokens are the file as spelled (before expansion).
            tu = index.parse("unit.cl", args=args, options=opts,
                             unsaved_files=[("unit.cl", units[0])])
            spelled = [tok.spelling for tok in tu.get_tokens(extent=tu.cursor.extent)]
            fig["libclang_tokens"] = len(spelled)
            fig["libclang_tokens_have_macros"] = any(
                s in ("MAD", "IDX2", "MWG", "TAPS", "REAL") for s in spelled)
            fig["libclang_tokens_have_directives"] = "define" in spelled
            kinds_seen = {c.kind.name for c in tu.cursor.get_children()}
            fig["libclang_macro_expansion_cursors"] = "MACRO_INSTANTIATION" in kinds_seen
        out["kinds"][kind] = fig
        print(f"\n-- preprocessing, {kind} units (median of {count}):")
        for key, value in fig.items():
            print(f"   {key}: {value}")
    return out

# }}}


def _label(platform_: cl.Platform, device: cl.Device) -> str:
    """What --devices matches: platform name and version, and the device name except on
    PoCL (whose CPU device is named after the processor, e.g. "pthread-Intel(R) Xeon",
    which "intel" should not pick)."""
    label = f"{platform_.name} / {platform_.version}"
    if "pocl" not in label.lower():
        label += f" / {device.name}"
    return label


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", metavar="OUT", help="write every figure as JSON to OUT")
    parser.add_argument("--devices", default="pocl,intel",
                        help="comma-separated substrings of 'platform / version / device' "
                        "(the device name is left out on PoCL)")
    parser.add_argument("--quick", action="store_true", help="K in 1,4,16,32 only")
    parser.add_argument("--kinds", default="small,library")
    parser.add_argument("--ks", help="comma-separated K (default 1..64, and 128 for "
                        "small units on PoCL)")
    parser.add_argument("--reps", type=int, help="repetitions (default 2)")
    parser.add_argument("--launch", action="store_true",
                        help="also enqueue every kernel once after each build")
    parser.add_argument("--preprocess", action="store_true",
                        help="measure pcpp and libclang per unit instead of builds")
    parser.add_argument("--pre-units", type=int, default=20,
                        help="units per preprocessing figure")
    args = parser.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    warnings.simplefilter("ignore", cl.CompilerWarning)

    results: dict = {"machine": platform.node(), "cpus": os.cpu_count(),
                     "load_before": os.getloadavg(), "date": time.strftime("%F %T")}
    started = time.perf_counter()
    if args.preprocess:
        results["preprocess"] = preprocess_figures(kinds, args.pre_units)
    else:
        wanted = [w.strip().lower() for w in args.devices.split(",") if w.strip()]
        devices = [d for p in cl.get_platforms() for d in p.get_devices()
                   if any(w in _label(p, d).lower() for w in wanted)]
        if not devices:
            print(f"no device matches {args.devices!r}", file=sys.stderr)
            return 1
        reps = args.reps or 2
        results["devices"] = []
        for device in devices:
            pocl = "portable" in device.platform.name.lower()
            if args.ks:
                base = [int(k) for k in args.ks.split(",")]
                ks = {kind: base for kind in kinds}
            elif args.quick:
                ks = {kind: [1, 4, 16, 32] for kind in kinds}
            else:
                ks = {kind: [1, 2, 4, 8, 16, 32, 64] + ([128] if kind == "small" and pocl
                                                       else []) for kind in kinds}
            results["devices"].append(measure_device(device, kinds, ks, reps, args.launch))
    results["seconds"] = time.perf_counter() - started
    results["load_after"] = os.getloadavg()
    print(f"\ntotal {results['seconds']:.0f} s; load before "
          f"{' '.join(f'{x:.2f}' for x in results['load_before'])}, after "
          f"{' '.join(f'{x:.2f}' for x in results['load_after'])}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(results, handle, indent=2)
            handle.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
