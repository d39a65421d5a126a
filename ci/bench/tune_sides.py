"""The two sides of `bench_tune.py`: the matmul space, clmodes' `Tunable` and Kernel Tuner,
the exhaustive re-measurement and the tune-cache hit overhead.

Part of `bench_tune.py` (its docstring says what is measured); importing this module
(for its kernels) changes no environment variable: the script turns the caches off.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import logging
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np
import pyopencl as cl

import clmodes
from benchlib import rotated, salt_counter, timed
from clmodes import Kernel, ProcessMode, ProcessModeOverride, Tunable, kernel_variants
from clmodes.tune.variants import grid

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

_salts = salt_counter()


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


@contextlib.contextmanager
def build_log():
    """clmodes' logger at DEBUG into a BuildLog (not propagated) for the block."""
    handler = BuildLog()
    logger = logging.getLogger("clmodes")
    previous = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous[0])
        logger.propagate = previous[1]


def cold_tune(tunable: Tunable, stream, bufs) -> tuple[float, BuildLog, object]:
    """One call of a never-tuned `tunable` under EXECUTE: (seconds, its builds, statistics)."""
    C, A, B = bufs
    if tunable.winner(stream, C, A, B, N) is not None:
        raise RuntimeError("clmodes side: the key is already tuned (not cold)")
    collector = clmodes.StatisticsCollector()
    with build_log() as handler:
        stream.finish()
        started = time.perf_counter()
        with ProcessModeOverride(ProcessMode.EXECUTE, collector):
            tunable(stream, C, A, B, N)  # returns once the winner's real launch is enqueued
        elapsed = time.perf_counter() - started
        stream.finish()
    stats = clmodes.StatisticsReader(collector).statistics()
    if stats.autotune.keys != 1 or stats.compilation.builds != 1 or stats.compilation.compiled != 16:
        raise RuntimeError(f"clmodes side: expected 1 key, 1 build of 16 kernels, got {stats}")
    return elapsed, handler, stats


def run_clmodes(client: clmodes.Client, stream, bufs, source: str, rep: int) -> dict[str, object]:
    C, A, B = bufs
    tunable, names = make_tunable(f"bench_tune.matmul.{rep}", source)
    elapsed, handler, stats = cold_tune(tunable, stream, bufs)
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


def hit_sides(client: clmodes.Client, stream, bufs, tunable: Tunable,
              source: str) -> tuple[str, Callable[[], None], list]:
    """The tuned key's winner, a check that its calls are dropped, and the three ways of
    calling it, (label, fn(count))."""
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

    def dropped_checks() -> None:
        if tunable(stream, C, A, B, N) is not None:
            raise RuntimeError("hit overhead: the winner's launch was not dropped")
        if launch(kernel, gsize, local, Cd, Ad, Bd, N) is not None:
            raise RuntimeError("hit overhead: stream.launch was not dropped")

    return winner, dropped_checks, [("tunable", via_tunable), ("candidate", via_candidate),
                                    ("launch", via_launch)]


def hit_rounds(dropped_checks: Callable[[], None], sides: list, per_round: int,
               rounds: int) -> dict[str, list[float]]:
    """Seconds per call of each side per round, dropped launches (COMPILE_AND_AUTOTUNE);
    checks that nothing was tuned or compiled meanwhile."""
    collector = clmodes.StatisticsCollector()
    times: dict[str, list[float]] = {label: [] for label, _ in sides}
    with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, collector):
        dropped_checks()
        for _, fn in sides:
            fn(min(1000, per_round))
        for r in range(rounds):
            for label, fn in rotated(sides, r):
                times[label].append(timed(fn, per_round))
            gc.collect()
    stats = clmodes.StatisticsReader(collector).statistics()
    if stats.autotune.keys or stats.compilation.kernels or stats.compilation.builds:
        raise RuntimeError(f"hit overhead: a cached call tuned or compiled something: {stats}")
    return times


def hit_overhead(client: clmodes.Client, stream, bufs, tunable: Tunable, names: dict[str, str],
                 source: str, calls: int, rounds: int, log) -> dict[str, object]:
    winner, dropped_checks, sides = hit_sides(client, stream, bufs, tunable, source)
    per_round = max(1, calls // rounds)
    times = hit_rounds(dropped_checks, sides, per_round, rounds)
    us = {label: statistics.median(t) * 1e6 for label, t in times.items()}
    best_us = {label: min(t) * 1e6 for label, t in times.items()}
    log(f"  hit: tunable {us['tunable']:.2f} us, candidate {us['candidate']:.2f} us, "
        f"stream.launch {us['launch']:.2f} us")
    return {
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
