#!/usr/bin/env python
"""What persisting costs a batch build: clmodes with a persistent store against the same
with the store in memory, separate builds and one hand-concatenated program, first
launches included.

    python ci/bench/bench_persist.py [--json OUT] [--smoke] [--ks 32,128] [--reps N]
        [--separate-max N] [--generic-work-groups]

On the device `$CLMODES_DEVICE` names (default: the first usable one), for each K, K fresh
small units (`SMALL` below: one kernel, two helpers, a loop) obtained and then
launched once each (PoCL generates each kernel's work-group function at its first enqueue,
so a build alone leaves that part out; the figure is build + first launches + finish):

- separate: raw pyopencl, one `Program.build` per unit, each kernel created and launched;
- raw batch: raw pyopencl, one program of the K units concatenated;
- in memory: clmodes, a runtime whose store is in memory: the K launches under
  `COMPILE_ONLY` inside `COMPILE_AND_AUTOTUNE` (one batch build), then under `EXECUTE`;
- persistent: the same in a runtime with a store on disk, so the outermost override's
  close captures the K kernels' binaries (`clmodes.capture`);
- binary read: the read of a raw batch's BINARIES alone, after its build and first
  launches (untimed): what capturing adds by itself. `read_bound_speed_ratio` (raw batch
  over raw batch plus the read) is the best a capture on the critical path can reach.

`--pocl-cache` turns PoCL's kernel cache on (its default), in a fresh folder: every unit
is fresh, so it serves no side, and clmodes keeps a PoCL batch as its source record instead
of reading its BINARIES (`clmodes.source_records`).

`--generic-work-groups` sets `POCL_WORK_GROUP_SPECIALIZATION=0` before PoCL loads: every
launch then runs the generic work-group function, which is what a binary read generates,
so the read's code serves the first launches too (what that costs the kernels' own speed
is not measured here).

The target figures are `persistent_over_in_memory_speed_ratio` (in-memory seconds over
persistent seconds: what persisting leaves of the batching gain) and
`persistent_over_raw_batch_speed_ratio` (raw batch seconds over persistent: how near the
limit, one hand-concatenated program with nothing prepared or kept, clmodes comes). The separate side is
measured on at most `--separate-max` units and scaled to K (said in the output). Both
caches are off (`POCL_KERNEL_CACHE=0`, `PYOPENCL_NO_CACHE=1`); sides run in a rotated order
per repetition; figures are medians. The machine's load is printed and recorded.
"""

from __future__ import annotations

import benchlib

benchlib.cold_caches()
benchlib.temp_store("clmodes-bench-persist-")

import os  # noqa: E402
import sys  # noqa: E402

# PoCL reads it when it loads, so before pyopencl: launches then run the generic
# work-group function, the one a binary read generates (see --generic-work-groups).
GENERIC = "POCL_WORK_GROUP_SPECIALIZATION"
if "--generic-work-groups" in sys.argv[1:]:
    os.environ[GENERIC] = "0"
if "--pocl-cache" in sys.argv[1:]:  # PoCL's kernel cache on, as users have it, in a fresh folder
    import tempfile as _tempfile

    os.environ.update(POCL_KERNEL_CACHE="1", POCL_CACHE_DIR=_tempfile.mkdtemp(prefix="pocl-"))

import itertools  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable  # noqa: E402

import numpy as np  # noqa: E402
import pyopencl as cl  # noqa: E402

import clmodes  # noqa: E402
from clmodes import Kernel, ProcessMode, ProcessModeOverride  # noqa: E402
from clmodes.runtime import Runtime  # noqa: E402

# One small unit: a kernel, two helpers and a loop, with a common header inlined ("@"
# stands for the unit's fresh suffix). It was the small unit of the former
# `ci/bench/bench_batch_size.py` (`batch_size_units.py`; commit 2fb9fda).
SMALL = """\
// small unit @
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
#undef TAPS
#undef SCALE
#undef CLM_COMMON_H
#undef REAL
#undef ZERO
#undef ONE
#undef MAD
#undef IDX2
"""
_fresh = itertools.count(1)
_run_token = time.time_ns() % 10**12


def raw_unit() -> tuple[str, list[str]]:
    """A small unit with fresh names that concatenates with any other (every macro
    #undef'd at its end): (source, kernel names)."""
    suffix = f"_u{next(_fresh)}"
    return SMALL.replace("@", suffix), [f"small{suffix}"]


def salted(sources: list[str]) -> str:
    """`sources` as one program no earlier build in this run (or cache) has seen."""
    n = next(_fresh)
    return (f"// salt {_run_token}-{n}\n#define SALT {_run_token}{n:06d}\n"
            + "\n".join(sources) + "#undef SALT\n")


N = 64
BUILD_OPTIONS = ["-cl-kernel-arg-info"]
SIDES = ("separate", "raw_batch", "in_memory", "persistent", "binary_read")


class Raw:
    """The raw pyopencl sides, on a context of their own."""

    def __init__(self, device: cl.Device) -> None:
        self.device = device
        self.ctx = cl.Context([device])
        self.queue = cl.CommandQueue(self.ctx)
        self.a = cl.Buffer(self.ctx, cl.mem_flags.READ_WRITE, 4 * N)
        self.b = cl.Buffer(self.ctx, cl.mem_flags.READ_WRITE, 4 * N)

    def program(self, units: list[tuple[str, list[str]]]) -> cl.Program:
        prg = cl.Program(self.ctx, salted([s for s, _ in units])).build(options=BUILD_OPTIONS)
        for _, names in units:
            for name in names:
                knl = cl.Kernel(prg, name)
                knl.set_args(self.a, self.b, np.int32(N), np.float32(1.5), np.float32(0.25))
                cl.enqueue_nd_range_kernel(self.queue, knl, (N,), None)
        self.queue.finish()
        return prg

    def read_binary(self, k: int) -> float:
        """Seconds of reading the BINARIES of a K-unit batch built and launched (untimed):
        what a capture adds to the in-memory path by itself, whatever clmodes does."""
        prg = self.program([raw_unit() for _ in range(k)])
        return timed(lambda: prg.get_info(cl.program_info.BINARIES))

    def separate(self, k: int) -> None:
        for _ in range(k):
            self.program([raw_unit()])

    def batch(self, k: int) -> None:
        self.program([raw_unit() for _ in range(k)])


class Clmodes:
    """One clmodes side: a runtime (store on disk or in memory) and a stream on it."""

    def __init__(self, device: clmodes.Device, location: str | None) -> None:
        self.runtime = Runtime(location, default=False)
        self.client = self.runtime.client(device)
        self.stream = self.client.stream("bench-persist")
        ctx = self.client.context
        self.a = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 * N)
        self.b = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 * N)

    def run(self, k: int) -> None:
        kernels = [Kernel(source, names[0]) for source, names in
                   (raw_unit() for _ in range(k))]

        def launch_all() -> None:
            for kernel in kernels:
                self.stream.launch(kernel, N, None, self.a, self.b, N, 1.5, 0.25)

        with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE):
            with ProcessModeOverride(ProcessMode.COMPILE_ONLY):
                launch_all()
            launch_all()  # the first launch builds the whole queue
        launch_all()  # EXECUTE: the first launches
        self.stream.queue.finish()
        if not all(self.client.server.is_obtained(kernel) for kernel in kernels):
            raise RuntimeError("clmodes side: not every kernel was obtained")

    def binaries(self) -> int:
        return self.runtime.store.count("binaries")


def timed(fn: Callable[[], object]) -> float:
    return benchlib.timed_wall_cpu(fn)[0]


def measure(raw: Raw, memory: Clmodes, persistent: Clmodes, k: int, reps: int,
            separate_max: int, log) -> dict[str, object]:
    measured_separately = min(k, separate_max)
    actions: dict[str, Callable[[], float]] = {
               "separate": lambda: timed(lambda: raw.separate(measured_separately)),
               "raw_batch": lambda: timed(lambda: raw.batch(k)),
               "in_memory": lambda: timed(lambda: memory.run(k)),
               "persistent": lambda: timed(lambda: persistent.run(k)),
               "binary_read": lambda: raw.read_binary(k)}

    def run(side: str, rep: int) -> float:
        before = persistent.binaries()
        seconds = actions[side]()
        if side == "persistent" and persistent.binaries() <= before:
            raise RuntimeError("persistent side: nothing was captured")
        log(f"  K={k} rep {rep}: {side} {seconds:.2f} s")
        return seconds

    runs = benchlib.rounds(SIDES, reps, run)
    seconds = benchlib.medians(runs)
    seconds["separate"] *= k / measured_separately
    return {
        "k": k, "seconds": seconds, "runs_s": runs,
        "separate_measured_units": measured_separately,
        "separate_over_raw_batch_ratio": seconds["separate"] / seconds["raw_batch"],
        "separate_over_in_memory_ratio": seconds["separate"] / seconds["in_memory"],
        "separate_over_persistent_ratio": seconds["separate"] / seconds["persistent"],
        "persistent_over_in_memory_speed_ratio": seconds["in_memory"] / seconds["persistent"],
        # The limit: K units hand-concatenated into one program, nothing prepared or kept.
        "persistent_over_raw_batch_speed_ratio": seconds["raw_batch"] / seconds["persistent"],
        # The best a capture that reads the batch's binary on the critical path can do:
        # the raw batch with the read added (PoCL generates code for every kernel there).
        "read_bound_speed_ratio": seconds["raw_batch"]
        / (seconds["raw_batch"] + seconds["binary_read"]),
    }


def parse_args(argv: list[str] | None):
    parser = benchlib.parser(__doc__, reps=1, smoke_help="seconds: K = 2, one rep")
    parser.add_argument("--ks", default="32,128", help="comma-separated K")
    parser.add_argument("--generic-work-groups", action="store_true",
                        help=f"{GENERIC}=0 on PoCL: launches run the generic work-group "
                        "function the binary read generates, instead of one specialized "
                        "at the first enqueue")
    parser.add_argument("--pocl-cache", action="store_true",
                        help="PoCL's kernel cache on (its default), in a fresh folder")
    parser.add_argument("--separate-max", type=int, default=32,
                        help="most units the separate side builds (scaled to K past it)")
    args = parser.parse_args(argv)
    if args.smoke:
        args.ks, args.reps, args.separate_max = "2", 1, 2
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    warnings.simplefilter("ignore", cl.CompilerWarning)
    log = benchlib.progress_logger(False)
    device = clmodes.client().device
    load_before = benchlib.loadavg()
    raw = Raw(device.cl_device)
    with tempfile.TemporaryDirectory(prefix="clmodes-bench-persist-store-") as directory:
        memory, persistent = Clmodes(device, None), Clmodes(device, directory)
        raw.batch(2), memory.run(2), persistent.run(2)  # warm-up: the compiler's start-up
        rows = [measure(raw, memory, persistent, int(k), args.reps, args.separate_max, log)
                for k in args.ks.split(",")]
    env = (*benchlib.CACHE_VARIABLES, GENERIC)
    results = {**benchlib.run_meta(device, env), "smoke": args.smoke, "reps": args.reps,
               "load_before": load_before, "load_after": benchlib.loadavg(),
               "date": time.strftime("%F %T"), "rows": rows}
    print(f"\nbench_persist on {device.label}; {GENERIC}={os.environ.get(GENERIC)}; "
          f"median of {args.reps}; load "
          f"{' '.join(f'{x:.2f}' for x in load_before or ())} before, "
          f"{' '.join(f'{x:.2f}' for x in results['load_after'] or ())} after")
    print(f"{'K':>5} {'separate s':>11} {'raw batch s':>12} {'in-memory s':>12} "
          f"{'persist s':>10} {'read s':>7} | {'sep/raw':>8} {'sep/mem':>8} {'sep/pers':>9} "
          f"{'pers/mem':>9} {'pers/raw':>9} {'bound':>6}")
    for row in rows:
        s = row["seconds"]
        print(f"{row['k']:>5} {s['separate']:>11.2f} {s['raw_batch']:>12.2f} "
              f"{s['in_memory']:>12.2f} {s['persistent']:>10.2f} {s['binary_read']:>7.2f} | "
              f"{row['separate_over_raw_batch_ratio']:>7.1f}x "
              f"{row['separate_over_in_memory_ratio']:>7.1f}x "
              f"{row['separate_over_persistent_ratio']:>8.1f}x "
              f"{row['persistent_over_in_memory_speed_ratio']:>9.2f} "
              f"{row['persistent_over_raw_batch_speed_ratio']:>9.2f} "
              f"{row['read_bound_speed_ratio']:>6.2f}"
              + (f"  (separate: {row['separate_measured_units']} units, scaled)"
                 if row["separate_measured_units"] < row["k"] else ""))
    benchlib.write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
