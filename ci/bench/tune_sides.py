"""The two sides of `bench_tune.py`: the matmul space, clmodes' `Tunable` and Kernel Tuner,
the exhaustive re-measurement and the tune-cache hit overhead.

Part of `bench_tune.py` (its docstring says what is measured); importing this module
(for its kernels) changes no environment variable: the script turns the caches off.
"""

from __future__ import annotations

import gc
import itertools
import statistics
import time
from collections.abc import Callable

import numpy as np

import clmodes
import kt_harness
from benchlib import rotated, salt_counter, timed
from clmodes import (Kernel, ProcessMode, ProcessModeOverride, RacePolicy, Tunable, Variant,
                     kernel_variants)

N = 256  # the default size (--smoke: 64); each side takes n from its inputs
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


def variants() -> dict[str, tuple[int, int]]:
    """Each candidate's name (its `Variant`'s, as `kernel_variants` names it) -> (x, y)."""
    return {Variant((("block_size_x", bx), ("block_size_y", by)), None).name: (bx, by)
            for bx, by in itertools.product(BLOCK_X, BLOCK_Y)}


# clmodes deciding on about the evidence Kernel Tuner decides on: one race (7 samples of a
# config at most, 1 run each at this size), its fastest median wins; no final, and one
# warm-up timing. The floor of clmodes' own decision rules, measured beside them.
RACE_ONLY = RacePolicy(finalists=1, race_finalists=1, finalists_max=1, warmup_timings=1)


def make_tunable(name: str, source: str,
                 policy: RacePolicy | None = None) -> tuple[Tunable, dict[str, str]]:
    """The Tunable (the default `RacePolicy`, or `policy`), and its candidate names ->
    config names ("16x4")."""
    candidates = kernel_variants(Kernel(source, "matmul"), launch_matmul, defines=tune_defines())
    names = {name: config_name(*xy) for name, xy in variants().items()}
    if set(names) != set(candidates) or len(candidates) != 16:
        raise RuntimeError(f"unexpected candidate set: {sorted(candidates)}")
    tunable = Tunable(
        name, key=lambda C, A, B, n: {"n": n, "dtype": "float32"}, candidates=candidates,
        policy=policy or RacePolicy(),
    )
    return tunable, names


def cold_tune(tunable: Tunable, stream, bufs) -> tuple[float, kt_harness.BuildLog, object]:
    """One call of a never-tuned `tunable` under EXECUTE: (seconds, its builds, statistics)."""
    C, A, B = bufs
    n = A.shape[0]
    if tunable.winner(stream, C, A, B, n) is not None:
        raise RuntimeError("clmodes side: the key is already tuned (not cold)")
    collector = clmodes.StatisticsCollector()
    with kt_harness.build_log() as handler:
        stream.finish()
        started = time.perf_counter()
        with ProcessModeOverride(ProcessMode.EXECUTE, collector):
            tunable(stream, C, A, B, n)  # returns once the winner's real launch is enqueued
        elapsed = time.perf_counter() - started
        stream.finish()
    stats = clmodes.StatisticsReader(collector).statistics()
    if stats.autotune.keys != 1 or stats.compilation.builds != 1 or stats.compilation.compiled != 16:
        raise RuntimeError(f"clmodes side: expected 1 key, 1 build of 16 kernels, got {stats}")
    return elapsed, handler, stats


def run_clmodes(client: clmodes.Client, stream, bufs, source: str, rep: int,
                policy: RacePolicy | None = None) -> dict[str, object]:
    C, A, B = bufs
    n = A.shape[0]
    tag = "race_only." if policy is RACE_ONLY else ""
    tunable, names = make_tunable(f"bench_tune.matmul.{tag}{rep}", source, policy)
    elapsed, handler, stats = cold_tune(tunable, stream, bufs)
    winner = tunable.winner(stream, C, A, B, n)
    key = tunable.tune_key(stream, (C, A, B, n))
    entry = clmodes.default_store().get_tune_json(*key) or {}
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


def run_kernel_tuner(kernel_tuner, platform_index: int, device_index: int,
                     host: tuple[np.ndarray, np.ndarray, np.ndarray], source: str) -> dict[str, object]:
    C, A, B = host
    n = A.shape[0]
    args = [C.copy(), A, B, np.int32(n)]
    results, env, elapsed = kt_harness.tune(
        kernel_tuner, (platform_index, device_index), "matmul", source, (n, n), args,
        tune_defines(), strategy="brute_force")
    valid = kt_harness.valid(results)
    if len(valid) != 16:
        raise RuntimeError(f"Kernel Tuner side: {len(valid)} valid configurations of 16")
    best = min(valid, key=lambda r: r["time"])
    return {
        "wall_s": elapsed,
        "choice": config_name(best["block_size_x"], best["block_size_y"]),
        "iterations": env.get("iterations"),
        **{f"{field}_s": kt_harness.cost_s(valid, f"{field}_time")
           for field in ("compile", "benchmark", "verification", "framework", "strategy")},
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
    n = A.shape[0]
    launches = {}
    for bx, by in itertools.product(BLOCK_X, BLOCK_Y):
        kernel = Kernel(source, "matmul", defines={"block_size_x": bx, "block_size_y": by})
        if not client.server.is_obtained(kernel):
            raise RuntimeError(f"exhaustive: {config_name(bx, by)} was not obtained by the tune")
        launches[config_name(bx, by)] = (
            lambda kernel=kernel, local=(bx, by):
            stream.launch(kernel, (n, n), local, C.data, A.data, B.data, n))
    with ProcessModeOverride(ProcessMode.EXECUTE):
        table = kt_harness.interleaved_device_times(launches, rounds)
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
    n = A.shape[0]
    winner = tunable.winner(stream, C, A, B, n)
    if winner is None:
        raise RuntimeError("hit overhead: the key is not tuned")
    local = variants()[winner]
    kernel = Kernel(source, "matmul", defines={"block_size_x": local[0], "block_size_y": local[1]})
    if not client.server.is_obtained(kernel):
        raise RuntimeError("hit overhead: the winner kernel is not obtained")
    candidate = tunable.candidates[winner]
    launch = stream.launch
    gsize = (n, n)
    Cd, Ad, Bd = C.data, A.data, B.data

    def via_tunable(count: int) -> None:
        for _ in range(count):
            tunable(stream, C, A, B, n)

    def via_candidate(count: int) -> None:
        for _ in range(count):
            candidate(stream, C, A, B, n)

    def via_launch(count: int) -> None:
        for _ in range(count):
            launch(kernel, gsize, local, Cd, Ad, Bd, n)

    def dropped_checks() -> None:
        if tunable(stream, C, A, B, n) is not None:
            raise RuntimeError("hit overhead: the winner's launch was not dropped")
        if launch(kernel, gsize, local, Cd, Ad, Bd, n) is not None:
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
