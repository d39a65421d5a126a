#!/usr/bin/env python
"""How OpenCL program build time grows with the number of units in one build, per runtime.

    python ci/bench/bench_batch_size.py [--json OUT] [--devices pocl,intel] [--quick|--smoke]
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
The default runs K = 1, 2, 4, ..., 64 (and 128 for small units on PoCL; minutes for both
runtimes, docs/benchmarks.md has the run time); --quick K = 1, 4, 16, 32.

`--preprocess` instead measures what preprocessing one unit costs: pcpp (parse + write)
and libclang (parse a translation unit; and whether its token stream is the expanded one).
The machine's load (`os.getloadavg`) is printed and recorded: other work shifts every figure.
"""

from __future__ import annotations

import benchlib

# Both caches off, before pyopencl (and through it the ICDs) is loaded.
benchlib.cold_caches()

import os  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
import pyopencl as cl  # noqa: E402

from batch_size_units import KINDS, raw_unit, salted  # noqa: E402
from benchlib import timed_wall_cpu as timed  # noqa: E402

BUILD_OPTIONS = ["-cl-kernel-arg-info"]


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


def batched(ctx, kind: str, k: int, launcher) -> tuple[float, float]:
    units = [raw_unit(kind) for _ in range(k)]
    return timed(lambda: build(ctx, units, launcher))


def separate(ctx, kind: str, k: int, launcher) -> tuple[float, float]:
    units = [raw_unit(kind) for _ in range(k)]

    def run():
        for unit in units:
            build(ctx, [unit], launcher)
    return timed(run)


def sample_sides(ctx, kind: str, ks: list[int], reps: int, launcher) -> dict:
    """{K: {"batched": [(wall, cpu)], "separate": [...]}} over `reps` repetitions."""
    samples = {k: {"batched": [], "separate": []} for k in ks}
    for rep in range(reps):
        for k in ks:
            # alternate which side goes first, so drift in load splits evenly
            for side in benchlib.rotated(("batched", "separate"), rep):
                fn = batched if side == "batched" else separate
                samples[k][side].append(fn(ctx, kind, k, launcher))
    return samples


def size_row(k: int, sides: dict) -> dict:
    """One K's medians (wall and CPU) and samples."""
    b, s = (statistics.median(w for w, _ in sides[side]) for side in ("batched", "separate"))
    bc, sc = (statistics.median(c for _, c in sides[side]) for side in ("batched", "separate"))
    return {"k": k, "batched_s": b, "separate_s": s,
            "separate_over_batched_ratio": s / b,
            "batched_s_per_unit": b / k, "separate_s_per_unit": s / k,
            "batched_cpu_s": bc, "separate_cpu_s": sc,
            "separate_over_batched_cpu_ratio": sc / bc,
            "batched_samples": sides["batched"],
            "separate_samples": sides["separate"]}


def print_kind(kind: str, fig: dict, launch: bool) -> None:
    print(f"\n-- {kind} units ({fig['lines']} lines, {len(KINDS[kind][2])} kernel(s) each); "
          f"one-unit build {fig['single_unit_build_s'] * 1e3:.0f} ms; median of {fig['reps']}; "
          f"{fig['seconds']:.0f} s; load {benchlib.loadavg()[0]:.2f}"
          + ("; with one launch per kernel" if launch else ""))
    print(f"{'K':>5} {'batched s':>10} {'separate s':>11} {'sep/batch':>10} "
          f"{'batch s/unit':>13} {'sep s/unit':>11} | {'cpu: batch/unit':>15} "
          f"{'sep/unit':>9} {'sep/batch':>9}")
    for row in fig["rows"]:
        k = row["k"]
        print(f"{k:>5} {row['batched_s']:>10.3f} {row['separate_s']:>11.3f} "
              f"{row['separate_over_batched_ratio']:>10.2f} "
              f"{row['batched_s_per_unit']:>13.4f} {row['separate_s_per_unit']:>11.4f} | "
              f"{row['batched_cpu_s'] / k:>15.4f} {row['separate_cpu_s'] / k:>9.4f} "
              f"{row['separate_over_batched_cpu_ratio']:>9.2f}", flush=True)
    best = next(row for row in fig["rows"] if row["k"] == fig["best_k"])
    print(f"   lowest batched s/unit at K={best['k']} "
          f"({best['batched_s_per_unit'] * 1e3:.1f} ms/unit)")


def measure_kind(ctx, kind: str, ks: list[int], reps: int, launcher) -> dict:
    started = time.perf_counter()
    # warm-up: the first build of a process loads the compiler
    build(ctx, [raw_unit(kind)], launcher)
    warm_single = statistics.median(batched(ctx, kind, 1, launcher)[0] for _ in range(3))
    samples = sample_sides(ctx, kind, ks, reps, launcher)
    rows = [size_row(k, samples[k]) for k in ks]
    best = min(rows, key=lambda row: row["batched_s_per_unit"])
    elapsed = time.perf_counter() - started
    lines = sum(1 for _ in KINDS[kind][0].splitlines())
    return {"rows": rows, "lines": lines, "reps": reps, "single_unit_build_s": warm_single,
            "best_k": best["k"], "seconds": elapsed, "launch": launcher is not None}


def measure_device(device: cl.Device, kinds: list[str], ks: dict[str, list[int]],
                   reps: int, launch: bool) -> dict:
    ctx = cl.Context([device])
    launcher = Launcher(ctx) if launch else None
    name = f"{device.platform.name} / {device.name}"
    result = {"device": name, "platform_version": device.platform.version,
              "kinds": {}}
    print(f"\n== {name}  ({device.platform.version})", flush=True)
    for kind in kinds:
        result["kinds"][kind] = measure_kind(ctx, kind, ks[kind], reps, launcher)
        print_kind(kind, result["kinds"][kind], launch)
    return result

# }}}

def _label(platform_: cl.Platform, device: cl.Device) -> str:
    """What --devices matches: platform name and version, and the device name except on
    PoCL (whose CPU device is named after the processor, e.g. "pthread-Intel(R) Xeon",
    which "intel" should not pick)."""
    label = f"{platform_.name} / {platform_.version}"
    if "pocl" not in label.lower():
        label += f" / {device.name}"
    return label


def parse_args(argv: list[str] | None):
    parser = benchlib.parser(__doc__,
                             smoke_help="seconds: small units, K in 1,2, one rep, the first "
                                        "device (ci/bench/run --smoke)")
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
    if args.smoke:
        args.kinds, args.ks, args.reps = "small", "1,2", 1
    return args


def sizes_for(device: cl.Device, kinds: list[str], args) -> dict[str, list[int]]:
    """The K to measure per kind on `device` (--ks, --quick, or the default)."""
    pocl = "portable" in device.platform.name.lower()
    if args.ks:
        base = [int(k) for k in args.ks.split(",")]
        return {kind: base for kind in kinds}
    if args.quick:
        return {kind: [1, 4, 16, 32] for kind in kinds}
    return {kind: [1, 2, 4, 8, 16, 32, 64] + ([128] if kind == "small" and pocl else [])
            for kind in kinds}


def measure_builds(kinds: list[str], args) -> list[dict] | None:
    """measure_device for every device --devices matches (None when none does)."""
    wanted = [w.strip().lower() for w in args.devices.split(",") if w.strip()]
    devices = [d for p in cl.get_platforms() for d in p.get_devices()
               if any(w in _label(p, d).lower() for w in wanted)]
    if not devices:
        print(f"no device matches {args.devices!r}", file=sys.stderr)
        return None
    if args.smoke:
        devices = devices[:1]
    reps = args.reps or 2
    return [measure_device(device, kinds, sizes_for(device, kinds, args), reps, args.launch)
            for device in devices]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    warnings.simplefilter("ignore", cl.CompilerWarning)

    results: dict = {"machine": platform.node(), "cpus": os.cpu_count(), "smoke": args.smoke,
                     "load_before": benchlib.loadavg(), "date": time.strftime("%F %T")}
    started = time.perf_counter()
    if args.preprocess:
        from batch_size_preprocess import preprocess_figures
        results["preprocess"] = preprocess_figures(kinds, args.pre_units)
    else:
        devices = measure_builds(kinds, args)
        if devices is None:
            return 1
        results["devices"] = devices
    results["seconds"] = time.perf_counter() - started
    results["load_after"] = benchlib.loadavg()
    print(f"\ntotal {results['seconds']:.0f} s; load before "
          f"{' '.join(f'{x:.2f}' for x in results['load_before'])}, after "
          f"{' '.join(f'{x:.2f}' for x in results['load_after'])}")
    benchlib.write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
