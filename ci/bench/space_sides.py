"""The two sides of `bench_space.py` on the GEMM space: one cold clmodes tune, one cold
Kernel Tuner tune, the re-measurement of the chosen configs, the build counter.

Part of `bench_space.py` (its docstring says what is measured); importing this module
changes no environment variable: the script turns the caches off before pyopencl loads.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

import numpy as np
import pyopencl.array as cla

import clmodes
import kt_harness
from benchlib import salt_counter
from kt_harness import BuildCounter, build_log
from clmodes import (Budget, Exhaustive, Kernel, LocalSearch, ProcessMode, ProcessModeOverride,
                     RandomSample, Tunable, TuningSpace)
from kernels_cl.gemm import GEMM, GEMM_RESTRICTIONS, KERNEL_NAME, geometry

_salts = salt_counter(500_000)  # apart from tune_sides' counter


def salted_source() -> str:
    """The GEMM source, new to every cache (PoCL's is off; clmodes' in-process programs
    and store would otherwise serve a config that an earlier run built)."""
    return f"#define BENCH_SALT {next(_salts)}\n{GEMM}"


@dataclasses.dataclass(frozen=True)
class Plan:
    """One strategy family as both tools run it: clmodes' strategy and budget, Kernel
    Tuner's strategy and options, and the space both search."""

    label: str
    space: TuningSpace
    clmodes_strategy: object
    budget_configs: int | None
    kt_strategy: str
    kt_options: dict | None


def plans(space: TuningSpace, subspace: TuningSpace, configs: int, seed: int,
          kt_local: str) -> list[Plan]:
    return [
        Plan("random", space, RandomSample(configs, seed=seed), configs, "random_sample",
             {"max_fevals": configs}),
        Plan("local", space, LocalSearch(seed=seed), configs, kt_local,
             {"max_fevals": configs}),
        Plan("exhaustive", subspace, Exhaustive(), None, "brute_force", None),
    ]


# -- the problem -------------------------------------------------------------------------


@dataclasses.dataclass
class Problem:
    """One size's inputs, on the device (clmodes) and on the host (Kernel Tuner)."""

    n: int
    host: tuple[np.ndarray, np.ndarray]  # A, B
    expected: np.ndarray  # A @ B in float64
    device: tuple[cla.Array, cla.Array, cla.Array]  # A, B, C


def problem(stream: clmodes.Stream, n: int) -> Problem:
    rng = np.random.default_rng(n)
    a = rng.random((n, n), dtype=np.float32)
    b = rng.random((n, n), dtype=np.float32)
    arrays = tuple(cla.to_device(stream.queue, x) for x in (a, b, np.zeros((n, n), np.float32)))
    stream.finish()
    return Problem(n, (a, b), a.astype(np.float64) @ b.astype(np.float64), arrays)


def gemm_kernel(source: str, config: dict) -> Kernel:
    return Kernel(source, KERNEL_NAME, {"DT": 32, **config})


def gemm_launcher(source: str) -> Callable:
    """`kernels_cl.gemm.launch` on a salted source: the same geometry and arguments."""
    def launch(stream, config, a, b, c, m, n, k):
        global_size, local_size = geometry(config, m, n)
        return stream.launch(gemm_kernel(source, config), global_size, local_size,
                             c.base_data, c.offset // 4, a.base_data, a.offset // 4,
                             b.base_data, b.offset // 4, m, n, k)
    return launch


def relative_error(got: np.ndarray, expected: np.ndarray) -> float:
    return float(np.max(np.abs(got - expected)) / np.max(np.abs(expected)))


# -- clmodes -------------------------------------------------------------------------------


def run_clmodes(stream: clmodes.Stream, prob: Problem, plan: Plan, source: str, tag: str,
                builds: BuildCounter) -> dict[str, object]:
    """One call of a never-tuned Tunable under EXECUTE (the wall time to a decision: from
    the call until the winner's real launch has finished), then its record."""
    budget = Budget(configs=plan.budget_configs) if plan.budget_configs else None
    tunable = Tunable(f"bench_space.{tag}", key=lambda a, b, c, m, n, k: {"m": m, "n": n, "k": k},
                      space=plan.space, launch=gemm_launcher(source),
                      strategy=plan.clmodes_strategy, budget=budget)
    a, b, c = prob.device
    args = (a, b, c, prob.n, prob.n, prob.n)
    if tunable.winner(stream, *args) is not None:
        raise RuntimeError("clmodes side: the key is already tuned (not cold)")
    collector = clmodes.StatisticsCollector()
    stream.finish()
    calls = builds.calls
    with build_log() as handler:
        started = time.perf_counter()
        with ProcessModeOverride(ProcessMode.EXECUTE, collector):
            tunable(stream, *args)
        stream.finish()
        elapsed = time.perf_counter() - started
    build_calls = builds.calls - calls
    entry = clmodes.default_store().get_tune_json(*tunable.tune_key(stream, args)) or {}
    winner = str(entry.get("winner"))
    measured = entry.get("measurements", {})
    return {
        "wall_s": elapsed,
        "choice": plan.space.config(winner),
        "choice_name": winner,
        "own_best_s": measured.get(winner, {}).get("median_s"),
        "measured": entry.get("measured_here"),
        "dropped": len(entry.get("dropped", {})),
        "builds": build_calls,
        "build_s": sum(seconds for _, seconds in handler.builds),
        "build_units": [units for units, _ in handler.builds],
        "sampled_device_s": sum(sum(m.get("samples_s", [])) for m in measured.values()),
        "tune_seconds": entry.get("tune_seconds"),
        "statistics": clmodes.StatisticsReader(collector).statistics().as_dict(),
        "max_rel_error": relative_error(c.get(queue=stream.queue), prob.expected),
    }


# -- Kernel Tuner --------------------------------------------------------------------------


def kt_arguments(prob: Problem) -> list:
    a, b = prob.host
    n = np.int32(prob.n)
    zero = np.int32(0)
    return [np.zeros((prob.n, prob.n), np.float32), zero, a, zero, b, zero, n, n, n]


def kt_tune(kernel_tuner, where: tuple[int, int], prob: Problem, space: TuningSpace,
            source: str, strategy: str, options: dict | None, answer: bool = False):
    """`tune_kernel` with clmodes' geometry: problem (n, m) divided by (NWG, MWG) work-groups
    of (NDIMC, MDIMC) work-items, the config as defines, the restriction strings."""
    params = {name: list(space.values(name)) for name in space.params}
    extra = {}
    if answer:
        extra = {"answer": [prob.expected.astype(np.float32)] + [None] * 8, "atol": 1e-3}
    return kt_harness.tune(
        kernel_tuner, where, KERNEL_NAME, source, (prob.n, prob.n), kt_arguments(prob), params,
        grid_div_x=["NWG"], grid_div_y=["MWG"], block_size_names=["NDIMC", "MDIMC"],
        restrictions=list(GEMM_RESTRICTIONS), strategy=strategy, strategy_options=options,
        **extra)


def run_kernel_tuner(kernel_tuner, where: tuple[int, int], prob: Problem, plan: Plan,
                     source: str, builds: BuildCounter) -> dict[str, object]:
    calls = builds.calls
    results, env, elapsed = kt_tune(kernel_tuner, where, prob, plan.space, source,
                                    plan.kt_strategy, plan.kt_options)
    valid = kt_harness.valid(results)
    if not valid:
        raise RuntimeError(f"Kernel Tuner ({plan.kt_strategy}): no configuration ran")
    best = min(valid, key=lambda r: r["time"])
    choice = {name: best[name] for name in plan.space.params}
    return {
        "wall_s": elapsed,
        "choice": choice,
        "choice_name": plan.space.name(choice),
        "own_best_s": float(best["time"]) / 1e3,
        "measured": len({plan.space.name({k: r[k] for k in plan.space.params}) for r in valid}),
        "evaluations": len(results),  # greedy_ils may evaluate a config again (cached)
        "dropped": len(results) - len(valid),
        "builds": builds.calls - calls,
        "compile_s": kt_harness.cost_s(valid, "compile_time"),
        "benchmark_s": kt_harness.cost_s(valid, "benchmark_time"),
    }


def check_kernel_tuner(kernel_tuner, where: tuple[int, int], prob: Problem,
                       space: TuningSpace) -> int:
    """Kernel Tuner's answers checked against numpy with `answer=` (a few configs, untimed):
    it raises on a wrong result. Returns how many configs it verified."""
    results, _, _ = kt_tune(kernel_tuner, where, prob, space, salted_source(), "random_sample",
                            {"max_fevals": 3}, answer=True)
    verified = kt_harness.valid(results)
    if not verified:
        raise RuntimeError("Kernel Tuner verification: no configuration ran")
    return len(verified)


# -- re-measurement ------------------------------------------------------------------------


def remeasure(client: clmodes.Client, prob: Problem, configs: dict[str, dict],
              rounds: int) -> dict[str, dict[str, float]]:
    """Device seconds of one launch per config (`kt_harness.remeasure`) on one fresh
    salted source."""
    a, b, c = prob.device
    return kt_harness.remeasure(client.stream("bench-space-remeasure"),
                                gemm_launcher(salted_source()), configs,
                                (a, b, c, prob.n, prob.n, prob.n), rounds)
