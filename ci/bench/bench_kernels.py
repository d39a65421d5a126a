#!/usr/bin/env python
"""kernels_cl matmul: the tuned winner against the naive candidate and numpy, in one run.

    python ci/bench/bench_kernels.py [--json OUT] [--size N ...] [--dtype float32]
                                     [--device SELECTOR] [--repeat R] [--rounds K] [--smoke]

On the selected device ($CLMODES_DEVICE, else the first; or --device), for each N
(default 512), an N x N @ N x N product:

1. tunes `kernels_cl.matmul` (the real Tunable, default race policy) in a throw-away
   store, so the tune is always measured here and now;
2. times the winner and the naive candidate (``naive local=16x16``: one work-item per
   element, straight from global memory) on the same data: rounds of R back-to-back
   calls, wall clock until the queue is finished (what a caller sees); the two sides'
   rounds alternate, so that other jobs on a shared machine slow both alike; median round
   per side. Device time from profiling events is reported beside;
3. times numpy's matmul (its BLAS, all its threads) on the same data, the same way,
   before and after the OpenCL work, and keeps the better: never interleaved with it, and
   after a pause, since a CPU OpenCL runtime's worker threads and OpenBLAS's keep spinning
   for a while after their last work and would steal the cores from the other side.

Prints GFLOP/s (2 N^3 / time) and the ratios tuned/naive (target: >= 4x) and
tuned/numpy. Exit status 0 unless --strict and the 4x target is missed.
"""

from __future__ import annotations

import benchlib

# A throw-away clmodes store: the tune is measured in this run, never read from a cache.
benchlib.temp_store("kernels-cl-bench-")

import importlib  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import pyopencl as cl  # noqa: E402
import pyopencl.array as cla  # noqa: E402

import clmodes  # noqa: E402
import kernels_cl  # noqa: E402

MATMUL = importlib.import_module("kernels_cl.matmul")
TARGET = 4.0  # tuned >= 4x naive


def _blas() -> str:
    try:
        config = np.show_config(mode="dicts")
        blas = config["Build Dependencies"]["blas"]
        return f"{blas.get('name', '?')} {blas.get('version', '')}".strip()
    except Exception:  # noqa: BLE001 - informational only
        return "unknown BLAS"


def _round_candidate(candidate, stream, out, a, b, repeat: int) -> tuple[float, float]:
    """One round: (wall seconds per call, median device seconds per call)."""
    events = []
    started = time.perf_counter()
    for _ in range(repeat):
        events.append(candidate(stream, out, a, b))
    stream.finish()
    wall = (time.perf_counter() - started) / repeat
    return wall, statistics.median((e.profile.end - e.profile.start) * 1e-9 for e in events)


def _round_numpy(a: np.ndarray, b: np.ndarray, repeat: int) -> float:
    started = time.perf_counter()
    for _ in range(repeat):
        a @ b
    return (time.perf_counter() - started) / repeat


def _time_numpy(a_host: np.ndarray, b_host: np.ndarray, repeat: int, rounds: int) -> float:
    """Median seconds per product, after a pause: a CPU OpenCL runtime's worker threads
    (and OpenBLAS's own) keep spinning for a while after their last work and would steal
    the cores from whatever runs next."""
    time.sleep(1.0)
    a_host @ b_host
    return statistics.median(_round_numpy(a_host, b_host, repeat) for _ in range(rounds))


def _interleaved(sides: dict, stream, out, a, b, repeat: int, rounds: int) -> dict:
    """The OpenCL sides' rounds alternate, so that a change of machine load (other jobs on
    a shared runner) hits them alike; each side's median round is kept."""
    time.sleep(1.0)
    for candidate in sides.values():
        candidate(stream, out, a, b)  # PoCL generates the work-group function at first enqueue
    stream.finish()
    walls: dict[str, list[float]] = {label: [] for label in sides}
    devices: dict[str, list[float]] = {label: [] for label in sides}
    for _ in range(rounds):
        for label, candidate in sides.items():
            wall, device = _round_candidate(candidate, stream, out, a, b, repeat)
            walls[label].append(wall)
            devices[label].append(device)
    return {label: {"wall_s": statistics.median(walls[label]),
                    "device_s": statistics.median(devices[label])} for label in sides}


def bench(stream: clmodes.Stream, n: int, dtype: np.dtype, repeat: int, rounds: int) -> dict:
    rng = np.random.default_rng(0)
    a_host = rng.uniform(-1, 1, (n, n)).astype(dtype)
    b_host = rng.uniform(-1, 1, (n, n)).astype(dtype)
    a, b = cla.to_device(stream.queue, a_host), cla.to_device(stream.queue, b_host)
    out = cla.empty(stream.queue, (n, n), dtype)
    numpy_before = _time_numpy(a_host, b_host, repeat, rounds)

    started = time.perf_counter()
    kernels_cl.matmul(stream, a, b, out=out)  # tunes (one batch build, then measures)
    stream.finish()
    tune_s = time.perf_counter() - started
    # the tunable the call used (the GEMM space by default, `KERNELS_CL_MATMUL` selects)
    tunable = MATMUL.tunable(np.dtype(dtype).name)
    winner = tunable.winner(stream, out, a, b)
    naive = MATMUL.TUNABLES[np.dtype(dtype).name].candidates[MATMUL.NAIVE_CANDIDATE]
    ref = a_host.astype(np.float64) @ b_host.astype(np.float64)
    error = float(np.max(np.abs(out.get() - ref)))

    flops = 2.0 * n ** 3
    names = {"tuned": winner, "naive": MATMUL.NAIVE_CANDIDATE}
    timings = _interleaved({"tuned": tunable.choices.get(winner), "naive": naive},
                           stream, out, a, b, repeat, rounds)
    # numpy before and after the OpenCL work; the better of the two (the least disturbed)
    timings["numpy"] = {"wall_s": min(numpy_before, _time_numpy(a_host, b_host, repeat, rounds))}
    rows = {}
    for label, name in names.items():
        t = timings[label]
        rows[label] = {"candidate": name, **t, "gflops": flops / t["wall_s"] / 1e9,
                       "device_gflops": flops / t["device_s"] / 1e9}
    rows["numpy"] = {"candidate": f"numpy {np.__version__} ({_blas()})", **timings["numpy"],
                     "gflops": flops / timings["numpy"]["wall_s"] / 1e9}
    record = clmodes.default_store().get_tune_json(*tunable.tune_key(stream, (out, a, b)))
    return {
        "n": n,
        "dtype": np.dtype(dtype).name,
        "tune_s": tune_s,
        "max_abs_error": error,
        "rows": rows,
        "tuned_over_naive": rows["tuned"]["gflops"] / rows["naive"]["gflops"],
        "tuned_over_numpy": rows["tuned"]["gflops"] / rows["numpy"]["gflops"],
        "candidates_measured": {
            name: m["median_s"] for name, m in (record or {}).get("measurements", {}).items()
        },
        "candidates_dropped": (record or {}).get("dropped", {}),
    }


def _table(device: str, results: list[dict]) -> str:
    lines = [f"kernels_cl matmul on {device} ({platform.machine()}, {os.cpu_count()} CPUs)"]
    for r in results:
        lines.append("")
        lines.append(f"N={r['n']} {r['dtype']}: tuned in {r['tune_s']:.1f} s, "
                     f"max |error| {r['max_abs_error']:.2g}")
        lines.append(f"  {'':7} {'candidate':36} {'ms/call':>9} {'GFLOP/s':>9} "
                     f"{'device GFLOP/s':>15}")
        for label in ("tuned", "naive", "numpy"):
            row = r["rows"][label]
            device_rate = f"{row['device_gflops']:.2f}" if "device_gflops" in row else "-"
            lines.append(f"  {label:7} {row['candidate'][:36]:36} {row['wall_s'] * 1e3:9.2f} "
                         f"{row['gflops']:9.2f} {device_rate:>15}")
        met = "met" if r["tuned_over_naive"] >= TARGET else "NOT met"
        lines.append(f"  tuned / naive: {r['tuned_over_naive']:.2f}x "
                     f"(target >= {TARGET:g}x: {met})")
        lines.append(f"  tuned / numpy: {r['tuned_over_numpy']:.2f} (fraction of numpy's GFLOP/s)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = benchlib.parser(__doc__, smoke_help="seconds: N = 64, one call per round, 2 rounds "
                                        "(ci/bench/run --smoke)")
    parser.add_argument("--size", type=int, nargs="+", default=[512], help="N (default 512)")
    parser.add_argument("--dtype", default="float32", choices=sorted(kernels_cl.DTYPES))
    parser.add_argument("--device", default=None, help="index or label substring")
    parser.add_argument("--repeat", type=int, default=3, help="calls per timed round")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds per side")
    parser.add_argument("--strict", action="store_true", help="exit 1 if tuned < 4x naive")
    args = parser.parse_args(argv)
    if args.smoke:
        args.size, args.repeat, args.rounds = [64], 1, 2

    stream = clmodes.client(args.device).stream("bench-kernels")
    device = stream.device.label
    results = [bench(stream, n, np.dtype(args.dtype), args.repeat, args.rounds)
               for n in args.size]
    print(_table(device, results))
    benchlib.write_json(args.json, {
        **benchlib.device_meta(stream.device),
        "pyopencl": cl.VERSION_TEXT,
        "numpy": np.__version__,
        "blas": _blas(),
        "cpus": os.cpu_count(),
        "target_tuned_over_naive": TARGET,
        "smoke": args.smoke,
        "results": results,
    }, newline=False)
    missed = any(r["tuned_over_naive"] < TARGET for r in results)
    return 1 if (args.strict and missed) else 0


if __name__ == "__main__":
    sys.exit(main())
