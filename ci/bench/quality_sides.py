"""The pieces of `bench_quality.py`: the two problems (the GEMM space, CLBlast's Xgemm),
one timed tune per tool that records when each result became known, and the scoring of
a run's trajectory against the best known config.

Part of `bench_quality.py` (its docstring says what is measured); importing this module
changes no environment variable: the script turns the caches off before pyopencl loads.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from datetime import datetime

import numpy as np
import pyopencl.array as cla

import clblast_xgemm
import clmodes
import kt_harness
from benchlib import salt_counter
from clmodes import Budget, Kernel, ProcessMode, ProcessModeOverride, Tunable, TuningSpace

_salts = salt_counter(700_000)  # apart from space_sides' and tune_sides' counters


# -- the problems --------------------------------------------------------------------------


@dataclasses.dataclass
class Problem:
    """One space on one device at one size: what both tools tune and how they launch it."""

    label: str
    space: TuningSpace
    restrictions: tuple[str, ...]
    kernel_name: str
    base_source: str
    device_args: tuple[object, ...]  # clmodes: after the config, per launch
    geometry: Callable[[dict], tuple[tuple[int, int], tuple[int, int]]]
    kt_problem: tuple[int, int]
    kt_args: list
    kt_geometry: dict

    def salted(self) -> str:
        """The source, new to every cache (a fresh define per tune)."""
        return f"#define BENCH_SALT {next(_salts)}\n{self.base_source}"

    def launcher(self, source: str) -> Callable:
        def launch(stream, config, *args):
            global_size, local_size = self.geometry(config)
            return stream.launch(Kernel(source, self.kernel_name, dict(config)), global_size,
                                 local_size, *args)
        return launch


def gemm_problem(stream: clmodes.Stream, n: int) -> Problem:
    """`kernels_cl.gemm`'s GEMM_SPACE, C = A @ B, n x n x n float32 (bench_space's set-up)."""
    import space_sides
    from kernels_cl.gemm import GEMM, GEMM_RESTRICTIONS, GEMM_SPACE, KERNEL_NAME, geometry

    prob = space_sides.problem(stream, n)
    a, b, c = prob.device
    i = np.int32
    return Problem(
        "gemm", GEMM_SPACE, tuple(GEMM_RESTRICTIONS), KERNEL_NAME, "#define DT 32\n" + GEMM,
        (c.base_data, i(0), a.base_data, i(0), b.base_data, i(0), i(n), i(n), i(n)),
        lambda config: geometry(config, n, n), (n, n), space_sides.kt_arguments(prob),
        {"grid_div_x": ["NWG"], "grid_div_y": ["MWG"], "block_size_names": ["NDIMC", "MDIMC"]})


def xgemm_problem(stream: clmodes.Stream, n: int) -> Problem:
    """CLBlast's Xgemm over its tuner's V=2 space, m = n = k = `n` (a multiple of 128)."""
    if n % 128:
        raise ValueError(f"Xgemm needs n a multiple of 128, got {n}")
    device = stream.device.cl_device
    local_mem, max_group = int(device.local_mem_size), int(device.max_work_group_size)
    host = clblast_xgemm.host_inputs(n, n, n)
    arrays = {key: cla.to_device(stream.queue, value) for key, value in host.items()}
    stream.finish()
    i, f = np.int32, np.float32
    scalars = (i(n), i(n), i(n), f(1.0), f(0.0))
    return Problem(
        "xgemm", clblast_xgemm.space(local_mem, max_group),
        clblast_xgemm.restrictions(local_mem, max_group), clblast_xgemm.KERNEL_NAME,
        clblast_xgemm.source(),
        (*scalars, arrays["a"].data, arrays["b"].data, arrays["c"].data, i(0), i(0)),
        lambda config: clblast_xgemm.geometry(config, n, n), (n, n),
        [*scalars, host["a"], host["b"], np.zeros_like(host["c"]), i(0), i(0)],
        {"grid_div_x": ["MWG"], "grid_div_y": ["NWG"], "block_size_names": ["MDIMC", "NDIMC"]})


PROBLEMS = {"gemm": gemm_problem, "xgemm": xgemm_problem}


# -- a trajectory: when each result became known --------------------------------------------


@dataclasses.dataclass
class Trajectory:
    """One tune's results in the order they became known: (seconds since the tune
    started, config name, seconds the tool measured, None: failed)."""

    tool: str
    strategy: str
    seed: int
    wall_s: float
    events: list[tuple[float, str, float | None]]
    chosen: str | None = None  # the tool's answer when it is not its best own time (clmodes' decision)

    def answer(self) -> str | None:
        """What the tool hands its user: clmodes' stored decision (its final re-times the
        finalists side by side, so it can differ from the fastest own time), else the
        config with the fastest own time (Kernel Tuner's best)."""
        incumbents = self.incumbents()
        return self.chosen or (incumbents[-1][1] if incumbents else None)

    def incumbents(self) -> list[tuple[float, str]]:
        """(when, name) each time the best so far (by the tool's own times) changed."""
        best, found = math.inf, []
        for when, name, seconds in self.events:
            if seconds is not None and seconds < best:
                best = seconds
                found.append((when, name))
        return found


class Timed:
    """A strategy whose searches note when each result is told (the moment the tune
    knows it); its repr is the inner strategy's, so the tunable's checksum is too."""

    def __init__(self, inner, events: list, started: list[float]) -> None:
        self.inner, self.events, self.started = inner, events, started

    def __repr__(self) -> str:
        return repr(self.inner)

    def start(self, space: TuningSpace):
        return _TimedSearch(self.inner.start(space), self.events, self.started)


class _TimedSearch:
    def __init__(self, inner, events: list, started: list[float]) -> None:
        self.inner, self.events, self.started = inner, events, started

    def ask(self):
        return self.inner.ask()

    def tell(self, results) -> None:
        now = time.perf_counter() - self.started[0]
        self.events.extend((now, name, seconds) for name, seconds in sorted(results.items()))
        self.inner.tell(results)


def run_clmodes(stream: clmodes.Stream, prob: Problem, label: str, strategy, seed: int,
                budget_s: float, start=None) -> Trajectory:
    """One cold tune of a never-tuned Tunable under EXECUTE with `Budget(seconds=)` (and
    `start=` when given); its clock starts at the call."""
    events: list = []
    started = [0.0]
    tunable = Tunable(f"bench_quality.{prob.label}.{label}.{seed}.{time.time_ns()}",
                      key=lambda *args: {"n": prob.kt_problem[0]}, space=prob.space,
                      launch=prob.launcher(prob.salted()), strategy=Timed(strategy, events, started),
                      budget=Budget(seconds=budget_s), start=start)
    stream.finish()
    with ProcessModeOverride(ProcessMode.EXECUTE):
        started[0] = time.perf_counter()
        tunable(stream, *prob.device_args)
        stream.finish()
        wall = time.perf_counter() - started[0]
    return Trajectory("clmodes", label, seed, wall, events,
                      chosen=tunable.winner(stream, *prob.device_args))


def run_kernel_tuner(kernel_tuner, where: tuple[int, int], prob: Problem, strategy: str,
                     seed: int, budget_s: float) -> Trajectory:
    """One `tune_kernel` with `time_limit`; each result's time is its timestamp (set when
    Kernel Tuner finished that config) less the call's start. Kernel Tuner's strategies
    draw from the global `random` and `numpy.random` generators: both are seeded."""
    import random

    from kernel_tuner.util import StopCriterionReached

    params = {name: list(prob.space.values(name)) for name in prob.space.params}
    random.seed(seed)
    np.random.seed(seed)
    started = datetime.now().astimezone()
    clock = time.perf_counter()
    try:
        results, _, wall = kt_harness.tune(
            kernel_tuner, where, prob.kernel_name, prob.salted(), prob.kt_problem, prob.kt_args,
            params, restrictions=list(prob.restrictions), strategy=strategy,
            strategy_options={"time_limit": budget_s}, **prob.kt_geometry)
    except StopCriterionReached:
        # Some strategies (greedy_ils) let the time limit escape when it is reached on
        # their very first config (a PoCL first launch under load): nothing was known
        # within the budget, a run with no results, not a failed benchmark.
        results, wall = [], time.perf_counter() - clock
    events = []
    for result in results:
        stamp = result.get("timestamp")
        if not stamp:
            continue
        when = (datetime.fromisoformat(str(stamp)) - started).total_seconds()
        name = prob.space.name({p: result[p] for p in prob.space.params})
        seconds = float(result["time"]) / 1e3 if kt_harness.timed_ok(result) else None
        events.append((when, name, seconds))
    events.sort()
    return Trajectory("kernel_tuner", strategy, seed, wall, events)


# -- rating ---------------------------------------------------------------------------------


def remeasure(client: clmodes.Client, prob: Problem, names: list[str],
              rounds: int) -> tuple[dict[str, float | None], dict[str, str]]:
    """Device seconds (median of interleaved rounds) of each config on one fresh source,
    every config built before any timing, None where one fails to build or run; and each
    failure's first line (a tool's incumbent that fails here is a wrong answer it would
    have handed its user, worth reading, not only a gap in a curve)."""
    failures: dict[str, str] = {}
    times = kt_harness.remeasure(
        client.stream("bench-quality-remeasure"), prob.launcher(prob.salted()),
        {name: prob.space.config(name) for name in names}, prob.device_args, rounds,
        warm_ups=1, failures=failures)
    found: dict[str, float | None] = dict.fromkeys(failures)
    found.update({name: t["median_s"] for name, t in times.items()})
    return found, failures


def time_to_quality(run: Trajectory, rated: dict[str, float | None], best_s: float,
                    within: float) -> float | None:
    """The first moment the run's best so far is within `within` of `best_s` (by the
    re-measured times); None if it never was."""
    for when, name in run.incumbents():
        seconds = rated.get(name)
        if seconds is not None and seconds <= within * best_s:
            return when
    return None


def incumbent_vs_best(run: Trajectory, rated: dict[str, float | None], best_s: float,
                      moment: float) -> float | None:
    """The run's best so far at `moment` (by its own times), re-measured, over `best_s`;
    None when it had none yet, or its best so far was not re-measured (slower than the
    tool's fastest by more than the rating's slack) or failed then."""
    current = None
    for when, name in run.incumbents():
        if when > moment:
            break
        current = name
    seconds = None if current is None else rated.get(current)
    return None if seconds is None else seconds / best_s
