#!/usr/bin/env python
"""Autotuning benchmark: clmodes' `Tunable` against Kernel Tuner, side by side on one device.

    python ci/bench/bench_tune.py [--json OUT] [--reps N] [--kernel naive|tiled] [--quick]

Needs the `bench` extra (`pip install -e .[bench]`: Kernel Tuner 1.x).

The space: a 256x256 float32 matmul whose work-group is (block_size_x, block_size_y), with
block_size_x in {4, 8, 16, 32} and block_size_y in {1, 2, 4, 8}: 16 configurations, one
kernel source for both tools. The kernel declares `reqd_work_group_size(block_size_x,
block_size_y, 1)`; by default it is the simple one-work-item-per-element matmul, with
`--kernel tiled` a local-memory tiled one. Kernel Tuner gets the configuration as
`#define block_size_x ...` lines (its own convention); clmodes gets the same names as
defines through `kernel_variants`, its launch function deriving the local size from them.
So each tool has the same 16 distinct kernels to compile and measure.

1. Kernel Tuner: `tune_kernel(..., lang="OpenCL", strategy="brute_force")` with its default
   iterations (7): wall time of the call (it compiles each configuration with its own
   `Program.build`, runs it 7 times and times it with profiling events), and its choice
   (lowest mean `time`).
2. clmodes: a fresh `Tunable` with those 16 candidates, called once under EXECUTE on
   never-built kernels with the default `RacePolicy`: wall time of the call, from the call
   to its return (gather, one batched `Program.build`, race, store write, the winner's
   real launch, finished). The client, the stream and the input buffers exist before the
   clock starts (they are reported separately); Kernel Tuner's context and buffer set-up
   are inside its call.
   Both are cold: POCL_KERNEL_CACHE=0 and PYOPENCL_NO_CACHE=1 are set before pyopencl is
   imported, CLMODES_CACHE_DIR points to a fresh temporary directory, and every repetition
   salts the source with a new `#define BENCH_SALT`, so neither tool can reuse anything.
   Before any timing, one throw-away build and launch wake the compiler up for both.
   Repetitions alternate which tool goes first.
   On PoCL both tools also pay, per configuration, the work-group function generation at
   its first launch (between the event's SUBMIT and START, so outside every sample), which
   no batching can remove; the breakdown lines show it.
3. Quality: afterwards every configuration is re-measured exhaustively with one method —
   profiling events START..END of one launch, interleaved rounds over all 16 after two
   warm-up launches each, median of the rounds — and each tool's choice is reported
   relative to the exhaustive best (target: within 5%).
4. Tune-cache hit overhead: under ProcessModeOverride(COMPILE_AND_AUTOTUNE) (launches
   dropped), calling the tuned `Tunable` with its cached key against calling
   `stream.launch` of the winner kernel directly; interleaved rounds, median µs per call.
   The difference is what a hit adds (target < 20 µs); the winner's candidate function
   called directly splits it into lookup and candidate wrapper.

About 1.5 minutes on an idle 2-core machine with PoCL (3 repetitions; ~2.5 minutes when
other processes share the cores: the load average is printed, since it moves every figure).
"""

from __future__ import annotations

import os
import tempfile

# Before pyopencl is imported anywhere: both tools cold (DESIGN §4), nothing reused. Only
# when run as a script: importing this module (for its kernels) changes nothing.
_CACHE_DIR = None
if __name__ == "__main__":
    os.environ["POCL_KERNEL_CACHE"] = "0"
    os.environ["PYOPENCL_NO_CACHE"] = "1"
    _CACHE_DIR = tempfile.mkdtemp(prefix="clmodes-bench-tune-")
    os.environ["CLMODES_CACHE_DIR"] = _CACHE_DIR

import argparse  # noqa: E402
import contextlib  # noqa: E402
import dataclasses  # noqa: E402
import gc  # noqa: E402
import itertools  # noqa: E402
import logging  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import numpy as np  # noqa: E402
import pyopencl as cl  # noqa: E402
import pyopencl.array as cla  # noqa: E402

import clmodes  # noqa: E402
from benchlib import dist_version, progress_logger, timed, write_json  # noqa: E402
from clmodes import Kernel, ProcessMode, ProcessModeOverride, Tunable, kernel_variants  # noqa: E402
from clmodes.tune.variants import grid  # noqa: E402

N = 256
BLOCK_X = (4, 8, 16, 32)
BLOCK_Y = (1, 2, 4, 8)

# Simple matmul C = A B (row-major, n x n): one work-item per element of C, the work-group
# (block_size_x, block_size_y) fixed by reqd_work_group_size, so each configuration is its
# own kernel (PoCL specializes it) and must be launched with that local size.
NAIVE_SOURCE = """\
#define BENCH_SALT {salt}

__kernel __attribute__((reqd_work_group_size(block_size_x, block_size_y, 1)))
void matmul(__global float *C, __global const float *A, __global const float *B, int n)
{{
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    float acc = 0.0f;
    for (int k = 0; k < n; ++k)
        acc += A[row * n + k] * B[k * n + col];
    C[row * n + col] = acc;
}}
"""

# Local-memory tiled matmul (n a multiple of block_size_x). A work-group computes a
# block_size_y x block_size_x tile of C; per step of block_size_x along k it stages a
# block_size_y x block_size_x tile of A and a block_size_x square tile of B in local memory
# (the B tile is loaded cooperatively, whatever the group's shape).
TILED_SOURCE = """\
#define BENCH_SALT {salt}

__kernel __attribute__((reqd_work_group_size(block_size_x, block_size_y, 1)))
void matmul(__global float *C, __global const float *A, __global const float *B, int n)
{{
    __local float As[block_size_y][block_size_x];
    __local float Bs[block_size_x][block_size_x];
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    const int col0 = get_group_id(0) * block_size_x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += block_size_x) {{
        As[ly][lx] = A[row * n + k0 + lx];
        for (int i = ly * block_size_x + lx; i < block_size_x * block_size_x;
             i += block_size_x * block_size_y) {{
            const int kk = i / block_size_x;
            const int cc = i % block_size_x;
            Bs[kk][cc] = B[(k0 + kk) * n + col0 + cc];
        }}
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int kk = 0; kk < block_size_x; ++kk)
            acc += As[ly][kk] * Bs[kk][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }}
    C[row * n + col] = acc;
}}
"""

SOURCES = {"naive": NAIVE_SOURCE, "tiled": TILED_SOURCE}

WARMUP_SOURCE = """\
#define BENCH_SALT {salt}
__kernel void wake(__global float *x) {{ x[get_global_id(0)] += 1.0f; }}
"""

_salts = itertools.count(int(time.time() * 1000) % 1_000_000_000)


def config_name(bx: int, by: int) -> str:
    return f"{bx}x{by}"


# -- clmodes ---------------------------------------------------------------------------


def launch_matmul(stream, kernel, variant, C, A, B, n):
    local = (variant["block_size_x"], variant["block_size_y"])
    return stream.launch(kernel, (n, n), local, C.data, A.data, B.data, n)


def tune_defines() -> dict[str, list[int]]:
    return {"block_size_x": list(BLOCK_X), "block_size_y": list(BLOCK_Y)}


def make_tunable(name: str, source: str) -> tuple[Tunable, dict[str, str]]:
    """The Tunable, and its candidate names -> config names ("16x4")."""
    candidates = kernel_variants(Kernel(source, "matmul"), launch_matmul, defines=tune_defines())
    names = {
        v.name: config_name(v["block_size_x"], v["block_size_y"])
        for v in grid(tune_defines())
    }
    if set(names) != set(candidates) or len(candidates) != 16:
        raise RuntimeError(f"unexpected candidate set: {sorted(candidates)}")
    tunable = Tunable(
        name, key=lambda C, A, B, n: {"n": n, "dtype": "float32"}, candidates=candidates
    )
    return tunable, names


class BuildLog(logging.Handler):
    """Collects clmodes' "built N units ... in S s" debug records (build time breakdown)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.builds: list[tuple[int, float]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg.startswith("built %d units") and record.args:
            self.builds.append((int(record.args[0]), float(record.args[2])))


def run_clmodes(client: clmodes.Client, stream, bufs, source: str, rep: int) -> dict[str, object]:
    C, A, B = bufs
    tunable, names = make_tunable(f"bench_tune.matmul.{rep}", source)
    if tunable.winner(stream, C, A, B, N) is not None:
        raise RuntimeError("clmodes side: the key is already tuned (not cold)")
    handler = BuildLog()
    logger = logging.getLogger("clmodes")
    previous = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    collector = clmodes.StatisticsCollector()
    try:
        stream.finish()
        started = time.perf_counter()
        with ProcessModeOverride(ProcessMode.EXECUTE, collector):
            tunable(stream, C, A, B, N)  # returns once the winner's real launch is enqueued
        elapsed = time.perf_counter() - started
        stream.finish()
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous[0])
        logger.propagate = previous[1]
    stats = clmodes.StatisticsReader(collector).statistics()
    if stats.autotune.keys != 1 or stats.compilation.builds != 1 or stats.compilation.compiled != 16:
        raise RuntimeError(f"clmodes side: expected 1 key, 1 build of 16 kernels, got {stats}")
    winner = tunable.winner(stream, C, A, B, N)
    key = tunable.tune_key(stream, (C, A, B, N))
    entry = clmodes.default_store().get_tune(*key) or {}
    measurements = {
        names[n]: {"median_s": m["median_s"], "samples": len(m["samples_s"]),
                   "samples_s": m["samples_s"]}
        for n, m in entry.get("measurements", {}).items()
    }
    build_s = sum(s for _, s in handler.builds)
    sampled_s = sum(sum(m["samples_s"]) for m in measurements.values())
    return {
        "wall_s": elapsed,
        "choice": names[winner],
        "build_s": build_s,
        "sampled_device_s": sampled_s,
        "other_s": elapsed - build_s - sampled_s,
        "builds": [{"units": u, "seconds": s} for u, s in handler.builds],
        "tune_seconds_recorded": entry.get("tune_seconds"),
        "samples_total": sum(m["samples"] for m in measurements.values()),
        "measured": measurements,
        "dropped": {names[n]: why for n, why in entry.get("dropped", {}).items()},
        "statistics": stats.as_dict(),
        "_tunable": tunable,
        "_names": names,
        "_source": source,
    }


# -- Kernel Tuner ----------------------------------------------------------------------


def kt_device_indices(device: cl.Device) -> tuple[int, int]:
    for p, plat in enumerate(cl.get_platforms()):
        for d, dev in enumerate(plat.get_devices()):
            if dev.int_ptr == device.int_ptr:
                return p, d
    raise RuntimeError(f"device {device.name} not found among the OpenCL platforms")


def run_kernel_tuner(kernel_tuner, platform_index: int, device_index: int,
                     host: tuple[np.ndarray, np.ndarray, np.ndarray], source: str) -> dict[str, object]:
    C, A, B = host
    tune_params = {"block_size_x": list(BLOCK_X), "block_size_y": list(BLOCK_Y)}
    args = [C.copy(), A, B, np.int32(N)]
    started = time.perf_counter()
    with contextlib.redirect_stdout(sys.stderr):
        results, env = kernel_tuner.tune_kernel(
            "matmul", source, (N, N), args, tune_params,
            lang="OpenCL", strategy="brute_force",
            platform=platform_index, device=device_index, quiet=True,
        )
    elapsed = time.perf_counter() - started
    valid = [r for r in results if isinstance(r.get("time"), (float, int, np.floating))]
    if len(valid) != 16:
        raise RuntimeError(f"Kernel Tuner side: {len(valid)} valid configurations of 16")
    best = min(valid, key=lambda r: r["time"])

    def total_ms(field: str) -> float:
        return float(sum(float(r.get(field, 0) or 0) for r in valid))

    return {
        "wall_s": elapsed,
        "choice": config_name(best["block_size_x"], best["block_size_y"]),
        "iterations": env.get("iterations"),
        "compile_s": total_ms("compile_time") / 1e3,
        "benchmark_s": total_ms("benchmark_time") / 1e3,
        "verification_s": total_ms("verification_time") / 1e3,
        "framework_s": total_ms("framework_time") / 1e3,
        "strategy_s": total_ms("strategy_time") / 1e3,
        "sampled_device_s": float(sum(sum(r["times"]) for r in valid)) / 1e3,
        "measured_ms": {
            config_name(r["block_size_x"], r["block_size_y"]): float(r["time"]) for r in valid
        },
        "times_ms": {
            config_name(r["block_size_x"], r["block_size_y"]): [float(t) for t in r["times"]]
            for r in valid
        },
        "kernel_tuner": getattr(kernel_tuner, "__version__", None),
    }


# -- exhaustive re-measurement ---------------------------------------------------------


def exhaustive(client: clmodes.Client, bufs, source: str, rounds: int,
               log) -> dict[str, dict[str, float]]:
    """Median device seconds of one launch per configuration (profiling events)."""
    stream = client.stream("bench-tune-exhaustive")
    C, A, B = bufs
    kernels = {}
    for bx, by in itertools.product(BLOCK_X, BLOCK_Y):
        kernel = Kernel(source, "matmul", defines={"block_size_x": bx, "block_size_y": by})
        if not client.server.is_obtained(kernel):
            raise RuntimeError(f"exhaustive: {config_name(bx, by)} was not obtained by the tune")
        kernels[config_name(bx, by)] = (kernel, (bx, by))

    def once(name: str) -> float:
        kernel, local = kernels[name]
        event = stream.launch(kernel, (N, N), local, C.data, A.data, B.data, N)
        event.wait()
        return (event.profile.end - event.profile.start) * 1e-9

    with ProcessModeOverride(ProcessMode.EXECUTE):
        for name in kernels:
            once(name)
            once(name)
        samples: dict[str, list[float]] = {name: [] for name in kernels}
        order = list(kernels)
        for r in range(rounds):
            for name in (order if r % 2 == 0 else order[::-1]):
                samples[name].append(once(name))
    table = {
        name: {"median_s": statistics.median(s), "min_s": min(s), "max_s": max(s)}
        for name, s in samples.items()
    }
    log("  exhaustive: " + ", ".join(f"{n} {t['median_s'] * 1e3:.2f}" for n, t in table.items())
        + " ms")
    return table


def check_result(stream, bufs, host) -> float:
    C, _, _ = bufs
    _, A, B = host
    stream.finish()
    got = C.get(queue=stream.queue)
    expected = A.astype(np.float64) @ B.astype(np.float64)
    return float(np.max(np.abs(got - expected)) / np.max(np.abs(expected)))


# -- tune-cache hit overhead -----------------------------------------------------------




def hit_overhead(client: clmodes.Client, stream, bufs, tunable: Tunable, names: dict[str, str],
                 source: str, calls: int, rounds: int, log) -> dict[str, object]:
    C, A, B = bufs
    winner = tunable.winner(stream, C, A, B, N)
    if winner is None:
        raise RuntimeError("hit overhead: the key is not tuned")
    variant = next(v for v in grid(tune_defines()) if v.name == winner)
    kernel = variant.kernel(Kernel(source, "matmul"))
    local = (variant["block_size_x"], variant["block_size_y"])
    if not client.server.is_obtained(kernel):
        raise RuntimeError("hit overhead: the winner kernel is not obtained")
    candidate = tunable.candidates[winner]
    launch = stream.launch
    gsize = (N, N)
    Cd, Ad, Bd = C.data, A.data, B.data

    def via_tunable(count: int) -> None:
        for _ in range(count):
            tunable(stream, C, A, B, N)

    def via_candidate(count: int) -> None:
        for _ in range(count):
            candidate(stream, C, A, B, N)

    def via_launch(count: int) -> None:
        for _ in range(count):
            launch(kernel, gsize, local, Cd, Ad, Bd, N)

    collector = clmodes.StatisticsCollector()
    per_round = max(1, calls // rounds)
    times: dict[str, list[float]] = {"tunable": [], "candidate": [], "launch": []}
    sides = [("tunable", via_tunable), ("candidate", via_candidate), ("launch", via_launch)]
    with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, collector):
        if tunable(stream, C, A, B, N) is not None:
            raise RuntimeError("hit overhead: the winner's launch was not dropped")
        if launch(kernel, gsize, local, Cd, Ad, Bd, N) is not None:
            raise RuntimeError("hit overhead: stream.launch was not dropped")
        for fn in (via_tunable, via_candidate, via_launch):
            fn(min(1000, per_round))
        for r in range(rounds):
            order = sides[r % 3:] + sides[:r % 3]
            for label, fn in order:
                times[label].append(timed(fn, per_round))
            gc.collect()
    stats = clmodes.StatisticsReader(collector).statistics()
    if stats.autotune.keys or stats.compilation.kernels or stats.compilation.builds:
        raise RuntimeError(f"hit overhead: a cached call tuned or compiled something: {stats}")
    us = {label: statistics.median(t) * 1e6 for label, t in times.items()}
    best_us = {label: min(t) * 1e6 for label, t in times.items()}
    result = {
        "calls_per_side": per_round * rounds,
        "rounds": rounds,
        "winner": names[winner],
        "tunable_call_us": us["tunable"],
        "candidate_call_us": us["candidate"],
        "stream_launch_us": us["launch"],
        "hit_overhead_us": us["tunable"] - us["launch"],
        "lookup_us": us["tunable"] - us["candidate"],
        "candidate_wrapper_us": us["candidate"] - us["launch"],
        "hit_overhead_best_round_us": best_us["tunable"] - best_us["launch"],
        "rounds_us": {label: [x * 1e6 for x in t] for label, t in times.items()},
    }
    log(f"  hit: tunable {us['tunable']:.2f} us, candidate {us['candidate']:.2f} us, "
        f"stream.launch {us['launch']:.2f} us")
    return result


# -- report ----------------------------------------------------------------------------


def table(results: dict[str, object]) -> str:
    meta = results["meta"]
    summary = results["summary"]
    lines = [
        f"clmodes autotune benchmark on {meta['device']}",
        f"256x256 float32 matmul ({meta['kernel']} kernel), 16 work-group shapes (block_size_x {list(BLOCK_X)} x "
        f"block_size_y {list(BLOCK_Y)}), {meta['reps']} repetition(s), order alternating",
        f"POCL_KERNEL_CACHE={meta['env']['POCL_KERNEL_CACHE']} "
        f"PYOPENCL_NO_CACHE={meta['env']['PYOPENCL_NO_CACHE']}  kernel_tuner "
        f"{meta['kernel_tuner']}  pyopencl {meta['pyopencl']}  clmodes {meta['clmodes']}  "
        f"python {meta['python']}  cpus {meta['cpus']}  load average before/after "
        f"{meta['loadavg_before'][0]:.2f}/{meta['loadavg_after'][0]:.2f}",
        "",
        "1. Wall time to a decision (cold: nothing compiled or cached), per repetition",
    ]
    header = (f"  {'rep':>3}  {'first':<12}  {'KernelTuner s':>13}  {'clmodes s':>9}  "
              f"{'clm/KT':>6}  {'KT choice':>9}  {'clm choice':>10}")
    lines.append(header)
    lines.append("  " + "-" * (len(header) - 2))
    for rep in results["reps"]:
        kt, clm = rep["kernel_tuner"], rep["clmodes"]
        lines.append(
            f"  {rep['rep']:>3}  {rep['first']:<12}  {kt['wall_s']:>13.2f}  {clm['wall_s']:>9.2f}  "
            f"{clm['wall_s'] / kt['wall_s']:>6.2f}  {kt['choice']:>9}  {clm['choice']:>10}"
        )
    lines.append(
        f"  {'med':>3}  {'':<12}  {summary['kernel_tuner_wall_s']:>13.2f}  "
        f"{summary['clmodes_wall_s']:>9.2f}  {summary['ratio_clmodes_over_kernel_tuner']:>6.2f}"
        "  (target <= 0.50)"
    )
    lines.append("  where the time went (median over repetitions):")
    b = summary["breakdown"]
    lines.append(
        f"    Kernel Tuner: 16 Program.build {b['kt_compile_s']:.2f} s; runs "
        f"{b['kt_benchmark_s']:.2f} s ({b['kt_runs_per_config']} per config: "
        f"{b['kt_sampled_device_s']:.2f} s of kernel time, the rest mostly PoCL's code "
        f"generation at each config's first launch); other {b['kt_other_s']:.2f} s"
    )
    lines.append(
        f"    clmodes:      1 Program.build of 16 {b['clm_build_s']:.2f} s; "
        f"{b['clm_samples']:.0f} samples, {b['clm_sampled_device_s']:.2f} s of kernel time "
        f"({b['clm_dropped']:.0f} of 16 dropped after the first round); other "
        f"{b['clm_other_s']:.2f} s "
        "(warm-ups incl. PoCL's first-launch code generation, host)"
    )
    lines.append(
        f"    (clmodes client + input buffers set up before its clock: "
        f"{meta['clmodes_setup_s']:.2f} s)"
    )
    lines.append("")
    lines.append(
        f"2. Choice quality: every config re-measured (profiling events, median of "
        f"{meta['exhaustive_rounds']} interleaved runs after 2 warm-ups)"
    )
    ex = results["exhaustive"]
    best = summary["exhaustive_best"]
    ranked = sorted(ex, key=lambda n: ex[n]["median_s"])
    lines.append(
        f"  exhaustive best {best} {ex[best]['median_s'] * 1e3:.3f} ms, then "
        + ", ".join(f"{n} {ex[n]['median_s'] / ex[best]['median_s']:.3f}x" for n in ranked[1:4])
        + f"; worst {ranked[-1]} {ex[ranked[-1]]['median_s'] / ex[best]['median_s']:.3f}x"
    )
    best_min = summary["exhaustive_best_by_min"]
    spread = max(t["min_s"] for t in ex.values()) / ex[best_min]["min_s"]
    lines.append(
        f"  by each config's fastest run instead: best {best_min} {ex[best_min]['min_s'] * 1e3:.3f}"
        f" ms, slowest {spread:.3f}x"
    )
    header = (f"  {'rep':>3}  {'tool':<12}  {'choice':>7}  {'time ms':>8}  {'vs best':>8}"
              f"  {'(by min)':>8}")
    lines.append(header)
    lines.append("  " + "-" * (len(header) - 2))
    for rep in results["reps"]:
        for tool, label in (("kernel_tuner", "KernelTuner"), ("clmodes", "clmodes")):
            q = rep[tool]["quality"]
            lines.append(
                f"  {rep['rep']:>3}  {label:<12}  {rep[tool]['choice']:>7}  "
                f"{q['time_s'] * 1e3:>8.3f}  {q['relative_to_best']:>7.3f}x"
                f"  {q['relative_to_best_by_min']:>7.3f}x"
            )
    lines.append("  (target: within 1.05x of the exhaustive best)")
    lines.append("")
    hit = results["hit_overhead"]
    lines.append(
        f"3. Tune-cache hit under COMPILE_AND_AUTOTUNE (launch dropped), "
        f"{hit['calls_per_side']} calls per side in {hit['rounds']} interleaved rounds, median"
    )
    lines.append(f"  {'tunable(stream, C, A, B, n)':<40} {hit['tunable_call_us']:>7.2f} us")
    lines.append(f"  {'winner candidate fn called directly':<40} {hit['candidate_call_us']:>7.2f} us")
    lines.append(f"  {'stream.launch(winner kernel)':<40} {hit['stream_launch_us']:>7.2f} us")
    lines.append(
        f"  {'hit overhead (tunable - stream.launch)':<40} {hit['hit_overhead_us']:>7.2f} us"
        "   (target < 20 us)"
    )
    lines.append(
        f"  {'  (fastest round of each side)':<40} {hit['hit_overhead_best_round_us']:>7.2f} us"
    )
    lines.append(
        f"  {'  of which key + cache lookup':<40} {hit['lookup_us']:>7.2f} us; "
        f"candidate wrapper + launch fn {hit['candidate_wrapper_us']:.2f} us"
    )
    lines.append("")
    lines.append(f"total benchmark time {meta['total_s']:.1f} s")
    return "\n".join(lines)


@dataclasses.dataclass
class Setup:
    """What both tools share, made before any clock starts: clmodes' client, stream and
    device buffers, the host matrices, and Kernel Tuner's indices of the same device."""

    client: clmodes.Client
    stream: clmodes.Stream
    host: tuple[np.ndarray, np.ndarray, np.ndarray]  # C, A, B
    bufs: tuple[cla.Array, cla.Array, cla.Array]  # C, A, B on the device
    setup_s: float  # clmodes client + input buffers
    platform_index: int
    device_index: int


@dataclasses.dataclass(frozen=True)
class Sizes:
    """How much each part measures (--quick shrinks every one)."""

    reps: int
    ex_rounds: int
    hit_calls: int
    hit_rounds: int


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", metavar="OUT", help="write every figure as a JSON dict to OUT")
    parser.add_argument("--reps", type=int, default=3,
                        help="cold tuning runs per tool, order alternating (default 3)")
    parser.add_argument("--kernel", choices=sorted(SOURCES), default="naive",
                        help="naive: one work-item per element (default); tiled: local memory "
                             "tiles (PoCL's code generation at first launch is ~2x slower)")
    parser.add_argument("--quick", action="store_true",
                        help="one repetition and fewer samples, for a smoke test")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    return parser.parse_args(argv)


def sizes(args: argparse.Namespace) -> Sizes:
    if args.quick:
        return Sizes(reps=1, ex_rounds=5, hit_calls=20_000, hit_rounds=6)
    return Sizes(reps=max(1, args.reps), ex_rounds=15, hit_calls=120_000, hit_rounds=12)


def import_kernel_tuner():
    """Kernel Tuner, quietened; None (with a hint) when the `bench` extra is missing."""
    try:
        import kernel_tuner
    except ImportError:
        print("bench_tune needs Kernel Tuner: pip install -e '.[bench]'", file=sys.stderr)
        return None
    logging.getLogger("kernel_tuner").setLevel(logging.WARNING)
    return kernel_tuner


def set_up(log: Callable[[str], None]) -> Setup:
    """The client, its stream and the inputs (timed: reported beside the tools' times)."""
    setup_started = time.perf_counter()
    client = clmodes.client()
    stream = client.stream("bench-tune")
    rng = np.random.default_rng(0)
    A_host = rng.random((N, N), dtype=np.float32)
    B_host = rng.random((N, N), dtype=np.float32)
    C_host = np.zeros((N, N), np.float32)
    bufs = (
        cla.to_device(stream.queue, C_host),
        cla.to_device(stream.queue, A_host),
        cla.to_device(stream.queue, B_host),
    )
    stream.finish()
    setup_s = time.perf_counter() - setup_started
    log(f"device: {client.device.label}; store {_CACHE_DIR}")
    platform_index, device_index = kt_device_indices(client.device.cl_device)
    return Setup(client, stream, (C_host, A_host, B_host), bufs, setup_s,
                 platform_index, device_index)


def wake_compiler(setup: Setup) -> None:
    """Wake the compiler up (LLVM start-up, PoCL's first work-group code generation) for
    both tools: one throw-away build and launch."""
    context = setup.client.context
    wake = cl.Kernel(cl.Program(context, WARMUP_SOURCE.format(salt=next(_salts))).build(),
                     "wake")
    wake_buf = cl.Buffer(context, cl.mem_flags.READ_WRITE, 4 * 64)
    wake(setup.stream.queue, (64,), (16,), wake_buf).wait()


def run_rep(setup: Setup, kernel_tuner, kernel: str, rep: int,
            log: Callable[[str], None]) -> dict[str, object]:
    """One cold tuning run of each tool on a freshly salted source, alternating who goes
    first."""
    source = SOURCES[kernel].format(salt=next(_salts))
    first = "KernelTuner" if rep % 2 == 0 else "clmodes"
    runs: dict[str, dict[str, object]] = {}
    order = ["kernel_tuner", "clmodes"] if first == "KernelTuner" else ["clmodes", "kernel_tuner"]
    for tool in order:
        if tool == "kernel_tuner":
            runs[tool] = run_kernel_tuner(
                kernel_tuner, setup.platform_index, setup.device_index, setup.host, source
            )
        else:
            runs[tool] = run_clmodes(setup.client, setup.stream, setup.bufs, source, rep)
            runs[tool]["max_rel_error"] = check_result(setup.stream, setup.bufs, setup.host)
        log(f"  rep {rep}: {tool} {runs[tool]['wall_s']:.2f} s -> {runs[tool]['choice']}")
    return {"rep": rep, "first": first, **runs}


def rate_choices(rep_results: list[dict], ex: dict[str, dict[str, float]]) -> dict[str, str]:
    """Each tool's choice relative to the exhaustive best (added to the reps); the best,
    worst and best-by-fastest-run configurations."""
    ranked = {
        "best": min(ex, key=lambda n: ex[n]["median_s"]),
        "worst": max(ex, key=lambda n: ex[n]["median_s"]),
        "best_min": min(ex, key=lambda n: ex[n]["min_s"]),
    }
    best, best_min = ranked["best"], ranked["best_min"]
    for rep in rep_results:
        for tool in ("kernel_tuner", "clmodes"):
            choice = rep[tool]["choice"]
            rep[tool]["quality"] = {
                "time_s": ex[choice]["median_s"],
                "relative_to_best": ex[choice]["median_s"] / ex[best]["median_s"],
                # The same with each config's fastest run: contention only ever adds time.
                "relative_to_best_by_min": ex[choice]["min_s"] / ex[best_min]["min_s"],
            }
    return ranked


def breakdown(rep_results: list[dict]) -> dict[str, float]:
    """Where each tool's time went, median over the repetitions."""
    def med(tool: str, field: str, fn=None) -> float:
        return statistics.median(
            float(fn(r[tool]) if fn else r[tool][field]) for r in rep_results
        )

    return {
        "kt_compile_s": med("kernel_tuner", "compile_s"),
        "kt_benchmark_s": med("kernel_tuner", "benchmark_s"),
        "kt_sampled_device_s": med("kernel_tuner", "sampled_device_s"),
        "kt_runs_per_config": rep_results[0]["kernel_tuner"]["iterations"],
        "kt_other_s": med("kernel_tuner", "", lambda r: r["wall_s"] - r["compile_s"] - r["benchmark_s"]),
        "clm_build_s": med("clmodes", "build_s"),
        "clm_sampled_device_s": med("clmodes", "sampled_device_s"),
        "clm_samples": med("clmodes", "samples_total"),
        "clm_dropped": med("clmodes", "", lambda r: len(r["dropped"])),
        "clm_other_s": med("clmodes", "other_s"),
    }


def summarize(rep_results: list[dict], ranked: dict[str, str], hit: dict[str, object]) -> dict:
    """The headline figures and whether each meets its target."""
    kt_walls = [r["kernel_tuner"]["wall_s"] for r in rep_results]
    clm_walls = [r["clmodes"]["wall_s"] for r in rep_results]
    kt_quality = [r["kernel_tuner"]["quality"]["relative_to_best"] for r in rep_results]
    clm_quality = [r["clmodes"]["quality"]["relative_to_best"] for r in rep_results]
    summary = {
        "breakdown": breakdown(rep_results),
        "kernel_tuner_wall_s": statistics.median(kt_walls),
        "clmodes_wall_s": statistics.median(clm_walls),
        "ratio_clmodes_over_kernel_tuner": statistics.median(clm_walls) / statistics.median(kt_walls),
        "target_clmodes_over_kernel_tuner": 0.5,
        "exhaustive_best": ranked["best"],
        "exhaustive_worst": ranked["worst"],
        "exhaustive_best_by_min": ranked["best_min"],
        # the worst choice over the repetitions, relative to the exhaustive best (median)
        "quality_ratio_kernel_tuner_choice_over_best": max(kt_quality),
        "quality_ratio_clmodes_choice_over_best": max(clm_quality),
        "quality_target": 1.05,
        "hit_overhead_us": hit["hit_overhead_us"],
        "hit_overhead_target_us": 20.0,
    }
    summary["meets"] = {
        "wall_time": summary["ratio_clmodes_over_kernel_tuner"] <= 0.5,
        "clmodes_quality": summary["quality_ratio_clmodes_choice_over_best"] <= 1.05,
        "kernel_tuner_quality": summary["quality_ratio_kernel_tuner_choice_over_best"] <= 1.05,
        "hit_overhead": summary["hit_overhead_us"] < 20.0,
    }
    return summary


def meta(setup: Setup, kernel_tuner, args: argparse.Namespace, size: Sizes, started: float,
         load_before: tuple[float, float, float]) -> dict[str, object]:
    """How and where the benchmark ran (total_s and the load average are taken now)."""
    return {
        "device": setup.client.device.label,
        "fingerprint": setup.client.device.fingerprint.exact,
        "env": {name: os.environ.get(name)
                for name in ("POCL_KERNEL_CACHE", "PYOPENCL_NO_CACHE", "CLMODES_CACHE_DIR")},
        "kernel_tuner": getattr(kernel_tuner, "__version__", None) or dist_version("kernel_tuner"),
        "pyopencl": cl.VERSION_TEXT,
        "clmodes": clmodes.__version__,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "n": N,
        "kernel": args.kernel,
        "configs": [config_name(bx, by) for bx, by in itertools.product(BLOCK_X, BLOCK_Y)],
        "race_policy": repr(clmodes.RacePolicy()),  # a string: ci/bench/run collects *ratio*
        "reps": size.reps,
        "exhaustive_rounds": size.ex_rounds,
        "clmodes_setup_s": setup.setup_s,
        "quick": args.quick,
        "total_s": time.perf_counter() - started,
        "loadavg_before": load_before,
        "loadavg_after": os.getloadavg(),
    }


def run_all(setup: Setup, kernel_tuner, args: argparse.Namespace, size: Sizes,
            log: Callable[[str], None]) -> tuple[list[dict], dict, dict[str, str], dict]:
    """The repetitions, the exhaustive re-measurement and the hit overhead, in that order;
    (reps, exhaustive table, ranked configurations, hit overhead)."""
    rep_results = [run_rep(setup, kernel_tuner, args.kernel, rep, log) for rep in range(size.reps)]
    last_clm = rep_results[-1]["clmodes"]
    if last_clm["max_rel_error"] > 1e-4:
        raise RuntimeError(f"clmodes' winner computed a wrong product ({last_clm['max_rel_error']})")
    log("exhaustive re-measurement")
    ex = exhaustive(setup.client, setup.bufs, last_clm["_source"], size.ex_rounds, log)
    ranked = rate_choices(rep_results, ex)
    log("tune-cache hit overhead")
    hit = hit_overhead(setup.client, setup.stream, setup.bufs, last_clm["_tunable"],
                       last_clm["_names"], last_clm["_source"], size.hit_calls,
                       size.hit_rounds, log)
    for rep in rep_results:
        for key in ("_tunable", "_names", "_source"):
            rep["clmodes"].pop(key, None)
    return rep_results, ex, ranked, hit


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    log = progress_logger(args.quiet)
    kernel_tuner = import_kernel_tuner()
    if kernel_tuner is None:
        return 2
    if os.environ.get("POCL_KERNEL_CACHE") != "0" or _CACHE_DIR is None:
        log("warning: not run as a script; PoCL's kernel cache or the clmodes store may be warm")
    size = sizes(args)
    started = time.perf_counter()
    load_before = os.getloadavg()
    setup = set_up(log)
    wake_compiler(setup)
    rep_results, ex, ranked, hit = run_all(setup, kernel_tuner, args, size, log)
    summary = summarize(rep_results, ranked, hit)
    results = {
        "meta": meta(setup, kernel_tuner, args, size, started, load_before),
        "summary": summary,
        "reps": rep_results,
        "exhaustive": ex,
        "hit_overhead": hit,
    }
    print(table(results))
    write_json(args.json, results)
    clmodes.default_store().close()
    if _CACHE_DIR is not None:
        shutil.rmtree(_CACHE_DIR, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
