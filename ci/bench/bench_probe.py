#!/usr/bin/env python
"""Throughput probe benchmark: `clmodes.probe`'s figures beside what numpy achieves.

    python ci/bench/bench_probe.py [--json OUT] [--copy-mib N] [--matmul N] [--reps N] [--smoke]

The device: `$CLMODES_DEVICE` selects (an index into `clmodes devices`, or a substring of
"platform / device"); unset, the first usable PoCL, else the first usable device. Intel's CPU runtime, when installed in this environment
(`pip install '.[intel]'`), registers itself (`clmodes.icd`), and `CLMODES_DEVICE=intel`
selects it.

1. The probe, measured fresh (`refresh=True`, into a temporary store, so nothing cached
   is shown): every figure with its size, work-group and samples, and the probe's wall
   time; then the cost of a cached call.
2. numpy on the same machine: a large copy (`np.copyto` between two float32 arrays of
   --copy-mib MiB; GB/s counts the bytes read plus the bytes written, as the probe's
   `copy` does) and a large float32 matmul (n x n, 2 n^3 FLOPs, numpy's BLAS with its own
   threads). Each: one warm-up, then --reps timed runs; median and best reported.
3. Side by side: the probe's copy against numpy's copy, the probe's best compute against
   numpy's matmul, with the ratio (probe / numpy).

On a CPU runtime both sides run on the same cores, so the ratios say how close the probe
comes to what the machine can do (a matmul does loads and stores besides FMAs, so a BLAS
sits below the FMA peak; numpy's copy is libc's memcpy, whose non-temporal stores skip the
read-for-ownership that an OpenCL kernel's ordinary stores pay: about a third more
traffic than either side counts, so a probe copy near 2/3 of numpy's is what ordinary
kernel stores, the ones the probe scores, can reach). On a GPU the numpy figures are the host's, for scale. The machine's load is
printed: other work on it shifts every figure.
"""

from __future__ import annotations

import benchlib

benchlib.temp_store("clmodes-bench-probe-")

import os  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
import pyopencl as cl  # noqa: E402

import clmodes  # noqa: E402
from benchlib import samples, write_json  # noqa: E402


def _device() -> clmodes.Client:
    if os.environ.get("CLMODES_DEVICE"):
        return clmodes.client()
    pocl = benchlib.usable_devices("PoCL")
    return clmodes.client(pocl[0] if pocl else None)  # else the first usable device


def numpy_copy(mib: int, reps: int) -> dict:
    source = np.ones(mib * (1 << 20) // 4, dtype=np.float32)
    target = np.empty_like(source)
    times = samples(lambda: np.copyto(target, source), reps)
    moved = 2 * source.nbytes
    return {"bytes_moved": moved, "median_gbps": moved / statistics.median(times) / 1e9,
            "best_gbps": moved / min(times) / 1e9, "reps": reps, "mib": mib}


def numpy_matmul(n: int, reps: int) -> dict:
    rng = np.random.default_rng(0)
    a = rng.random((n, n), dtype=np.float32)
    b = rng.random((n, n), dtype=np.float32)
    out = np.empty((n, n), dtype=np.float32)
    times = samples(lambda: np.matmul(a, b, out=out), reps)
    flops = 2 * n**3
    return {"flops": flops, "median_gflops": flops / statistics.median(times) / 1e9,
            "best_gflops": flops / min(times) / 1e9, "reps": reps, "n": n}


def measure_probe(client: clmodes.Client) -> tuple[object, float, float]:
    """The probe measured fresh: (its result, wall seconds, microseconds per cached call)."""
    started = time.perf_counter()
    result = clmodes.probe(client, refresh=True)
    wall = time.perf_counter() - started
    started = time.perf_counter()
    for _ in range(1000):
        clmodes.probe(client)
    return result, wall, (time.perf_counter() - started) / 1000 * 1e6


def print_figures(client: clmodes.Client, result, load: float, wall: float,
                  cached_us: float) -> None:
    print(f"device: {client.device.label}")
    print(f"model:  {client.device.fingerprint.model}")
    print(f"host:   {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"numpy {np.__version__}, load average {load:.2f}")
    print(f"probe:  {wall:.2f} s measured fresh (build, code generation, calibration, samples); "
          f"a cached call {cached_us:.1f} us")
    print()
    print(f"  {'figure':8} {'value':>9}  {'unit':8} {'per launch':>12}  {'global x local':>16}  "
          f"{'samples':>7}  {'rounds':>6}  stable")
    for f in (*result.bandwidth, *result.compute):
        work = f"{f.work / 2**20:.0f} MiB" if f.unit == "GB/s" else f"{f.work / 1e9:.3f} GFLOP"
        shape = f"{f.global_size} x {f.local_size}"
        print(f"  {f.name:8} {f.value:9.2f}  {f.unit:8} {work:>12}  {shape:>16}  {f.samples:>7}  "
              f"{f.rounds:>6}  {'yes' if f.stable else 'no'}")
    print()


def print_side_by_side(result, copy: dict, matmul: dict, args) -> None:
    print(f"  {'side by side':40} {'probe':>10} {'numpy median':>13} {'numpy best':>11} "
          f"{'probe/median':>13}")
    rows = [
        (f"copy GB/s (numpy: {args.copy_mib} MiB copyto)", result.copy_gbps,
         copy["median_gbps"], copy["best_gbps"]),
        ("read GB/s (numpy: the same copy)", result.read_gbps,
         copy["median_gbps"], copy["best_gbps"]),
        (f"float32 GFLOP/s (numpy: {args.matmul}^2 matmul)", result.compute_gflops,
         matmul["median_gflops"], matmul["best_gflops"]),
    ]
    for label, mine, median, best in rows:
        print(f"  {label:40} {mine:10.2f} {median:13.2f} {best:11.2f} {mine / median:12.2f}x")
    print(f"\n  roofline: min({result.bandwidth_gbps:.2f} GB/s x FLOP/byte, "
          f"{result.compute_gflops:.2f} GFLOP/s); ridge at {result.ridge_intensity:.2f} FLOP/byte")
    print(f"  statistic: {result.statistic}")


def main(argv: list[str] | None = None) -> int:
    parser = benchlib.parser(__doc__, smoke_help="seconds: numpy at 4 MiB and n = 128, 2 runs "
                                        "(ci/bench/run --smoke)")
    parser.add_argument("--copy-mib", type=int, default=256, help="numpy copy size (MiB)")
    parser.add_argument("--matmul", type=int, default=2048, help="numpy matmul size n")
    parser.add_argument("--reps", type=int, default=7, help="timed numpy runs")
    args = parser.parse_args(argv)
    if args.smoke:
        args.copy_mib, args.matmul, args.reps = 4, 128, 2
    warnings.filterwarnings("ignore", category=cl.CompilerWarning)

    client = _device()
    load = benchlib.loadavg_1min()
    load = float("nan") if load is None else load
    result, wall, cached_us = measure_probe(client)
    copy = numpy_copy(args.copy_mib, args.reps)
    matmul = numpy_matmul(args.matmul, args.reps)
    print_figures(client, result, load, wall, cached_us)
    print_side_by_side(result, copy, matmul, args)
    write_json(args.json, {
        "device": client.device.label, "load_average": load, "smoke": args.smoke, "probe_wall_s": wall,
        "cached_call_us": cached_us, "probe": result.as_dict(),
        "numpy_copy": copy, "numpy_matmul": matmul,
        "ratio_probe_copy_over_numpy_copy": result.copy_gbps / copy["median_gbps"],
        "ratio_probe_compute_over_numpy_matmul": result.compute_gflops / matmul["median_gflops"],
    }, newline=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
