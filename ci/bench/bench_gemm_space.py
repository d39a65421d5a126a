#!/usr/bin/env python
"""The GEMM space searched by strategies against today's 15 matmul candidates, one run.

    CLMODES_DEVICE=intel python ci/bench/bench_gemm_space.py [--size 256] [--budget 48]
        [--strategies local,random] [--seed 0]

On one device, float32 M = N = K = --size: (1) every candidate of `kernels_cl.matmul`
(built in one batch, each timed); (2) for each strategy, a search of
`kernels_cl.gemm.GEMM_SPACE` with `Budget(configs=--budget)`: each generation's kernels
queued and built in one batch (`stream.gathering`, `build_queued`), then each config
timed. A time is the median of 5 runs after one warm-up, from profiling events. Printed:
the best time of each side, best GEMM config over best candidate, wall time of each side
and builds issued. Caches are off and the store is temporary, so every side compiles
cold. The machine's load is printed: other work shifts every figure.
"""

from __future__ import annotations

import benchlib

benchlib.cold_caches()
benchlib.temp_store("clmodes-bench-gemm-space-")

import argparse  # noqa: E402
import importlib  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import pyopencl as cl  # noqa: E402
import pyopencl.array as cla  # noqa: E402

import clmodes  # noqa: E402
from clmodes.tune import Budget, LocalSearch, RandomSample  # noqa: E402
from kernels_cl import _common, gemm  # noqa: E402

MATMUL = importlib.import_module("kernels_cl.matmul")  # the module (the package exports the function)
REPS = 5


class Builds:
    """Counts real `Program.build` calls (the real one still runs)."""

    def __init__(self) -> None:
        self.calls = 0
        real = cl.Program.build

        def counting(program, *args, **kwargs):
            self.calls += 1
            return real(program, *args, **kwargs)
        cl.Program.build = counting


def seconds(event) -> float:
    event.wait()
    return (event.profile.end - event.profile.start) * 1e-9


def timed(stream, run) -> float | None:
    try:
        run()
        return statistics.median(seconds(run()) for _ in range(REPS))
    except clmodes.ClmodesError:
        return None


def candidates_side(stream, out, a, b):
    found = MATMUL.candidates(_common.FLOAT32)
    with stream.gathering():
        for candidate in found.values():
            candidate(stream, out, a, b)
    stream.build_queued()
    return {name: timed(stream, lambda c=c: c(stream, out, a, b)) for name, c in found.items()}


def space_side(stream, strategy, budget, out, a, b):
    search = strategy.start(gemm.GEMM_SPACE)
    results: dict[str, float | None] = {}
    while True:
        generation = budget.trim(search.ask(), len(results))
        if not generation:
            return results
        with stream.gathering():
            for config in generation:
                gemm.launch_out(stream, config, out, a, b)
        stream.build_queued()
        told = {gemm.GEMM_SPACE.name(c): timed(stream, lambda c=c: gemm.launch_out(stream, c, out, a, b))
                for c in generation}
        results.update(told)
        search.tell(told)


def best(results):
    return min((t, n) for n, t in results.items() if t is not None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--budget", type=int, default=48)
    parser.add_argument("--strategies", default="local,random")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    builds = Builds()
    stream = clmodes.client().stream()
    n = args.size
    rng = np.random.default_rng(0)
    a = cla.to_device(stream.queue, rng.uniform(-1, 1, (n, n)).astype(np.float32))
    b = cla.to_device(stream.queue, rng.uniform(-1, 1, (n, n)).astype(np.float32))
    out = cla.zeros(stream.queue, (n, n), np.float32)
    print(f"== {stream.device.label}, {n}^3 float32; load {benchlib.loadavg()}", flush=True)
    flops = 2 * n ** 3
    print(f"{'side':<22} {'configs':>7} {'best ms':>8} {'GFLOP/s':>8} {'best/cand.':>10} "
          f"{'wall s':>7} {'builds':>6}  best", flush=True)
    reference = None
    make = {"local": lambda: LocalSearch(seed=args.seed),
            "random": lambda: RandomSample(args.budget, seed=args.seed)}
    sides = [("matmul candidates", lambda: candidates_side(stream, out, a, b))] + [
        (f"GEMM space, {name}",
         lambda name=name: space_side(stream, make[name](), Budget(configs=args.budget), out, a, b))
        for name in args.strategies.split(",")]
    for side, run in sides:
        started, before = time.perf_counter(), builds.calls
        results = run()
        wall, calls = time.perf_counter() - started, builds.calls - before
        t, config = best(results)
        reference = reference or t
        print(f"{side:<22} {len(results):>7} {t * 1e3:>8.3f} {flops / t * 1e-9:>8.1f} "
              f"{t / reference:>10.2f} {wall:>7.1f} {calls:>6}  {config}", flush=True)
    print(f"load after {benchlib.loadavg()}")


if __name__ == "__main__":
    main()
