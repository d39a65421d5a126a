#!/usr/bin/env python
"""The search alone: configs measured until the best so far is within 1.05 of the best,
clmodes' strategies against Kernel Tuner's, both replayed on the same recorded times.

    python ci/bench/bench_search_replay.py [--seeds 10] [--budget 200] [--fixture PATH ...]
                                     [--no-fixtures] [--no-synthetic] [--smoke]
                                     [--json OUT]

Why: time to quality (`bench_quality.py`) is the number of configs a strategy needs
times what each config costs (its build, PoCL's first-launch code generation, its
samples). On a CPU runtime both tools pay the same code generation per config, so the
cost per config has a floor that neither can go under, and the ratio of the two tools'
times to quality is bounded below by (clmodes' configs / Kernel Tuner's configs) x
(clmodes' cost per config / Kernel Tuner's). This script measures the first factor with
no device and no noise: every strategy sees the same recorded time for a config, and the
count is of distinct configs measured, compiles included.

No OpenCL. Kernel Tuner runs in its own simulation mode (`simulation_mode=True` over a
cache file written here from the recorded times: its strategies, its restriction
handling, its random generators, seeded: its `bayes_opt` also draws from one that the
seeds do not reach, so its counts vary from run to run, a median of 30-51 configs over
four runs on the recorded space); clmodes' strategies run through `run_search`.
Objectives: each recorded GEMM_SPACE subspace
(tests/fixtures/spaces/*.json, measured whole by `record_space.py`) and
`bench_strategies.py`'s rugged synthetic objective over the whole GEMM_SPACE (23,376
configs; a different objective per seed). Prints, per objective and strategy, the
median over seeds of the configs needed (budget+1 when never) and the share of seeds
that got there, then clmodes' best median over Kernel Tuner's best.

Its `--surrogates` mode (ModelGuided's extra trees against optuna's TPE sampler, the
comparison behind docs/decisions/model-guided-search.md) was retired after that decision;
it can still be read at commit 2fb9fda (`git show 2fb9fda:ci/bench/bench_search_replay.py`).
"""

from __future__ import annotations

import json
import math
import random
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

import benchlib  # noqa: E402
import kt_harness  # noqa: E402
from clmodes import Budget, LocalSearch, ModelGuided, TuningSpace  # noqa: E402
from clmodes.tune.search.strategies import run_search  # noqa: E402
from kernels_cl.gemm import GEMM_RESTRICTIONS, GEMM_SPACE  # noqa: E402

TARGET = 1.05
KT_STRATEGIES = ("random_sample", "greedy_ils", "bayes_opt", "genetic_algorithm")
KERNEL = "replayed"  # the cache's kernel name; nothing is compiled in simulation mode


def to_quality(space, value, strategy, budget: int, within: float = 1.05) -> int:
    """Configs `strategy` measured (through `run_search`, `value` as the measurer) until
    its best so far was within `within` of the best: budget+1 when never."""
    best = min(v for v in (value(c) for c in space) if v is not None)
    seen: list[float | None] = []

    def measure(config):
        seen.append(value(config))
        return seen[-1]

    run_search(space, strategy, measure, Budget(configs=budget))
    incumbent = math.inf
    for count, seconds in enumerate(seen, 1):
        incumbent = min(incumbent, math.inf if seconds is None else seconds)
        if incumbent <= within * best:
            return count
    return budget + 1


def objectives(fixtures: list[Path]):
    """(label, space, value) per recorded space, and the synthetic one (value None: a
    different `bench_strategies.objective` per seed)."""
    for path in fixtures:
        data = json.loads(path.read_text())
        space = GEMM_SPACE.subspace(**data["fixed"])
        times = data["times_s"]
        yield path.stem, space, (lambda c, space=space, times=times: times[space.name(c)])
    yield "rugged synthetic (GEMM_SPACE)", GEMM_SPACE, None


def write_kt_cache(path: Path, space: TuningSpace, value: Callable[[dict], float]) -> None:
    """A Kernel Tuner cache file holding every valid config of `space` with `value(config)`
    (seconds) as its time in milliseconds: what simulation mode replays."""
    params = {name: list(space.values(name)) for name in space.params}
    cache = {}
    for config in space:
        key = ",".join(str(config[name]) for name in params)
        ms = 1e3 * value(config)
        cache[key] = {**config, "time": ms, "times": [ms], "compile_time": 0.0,
                      "verification_time": 0.0, "benchmark_time": ms}
    path.write_text(json.dumps({
        "device_name": "Simulation", "kernel_name": KERNEL, "problem_size": [1, 1],
        "tune_params_keys": list(params), "tune_params": params, "objective": "time",
        "cache": cache}))


def kt_to_quality(kernel_tuner, cache: Path, space: TuningSpace, best_s: float,
                  strategy: str, seed: int, budget: int) -> int:
    """Distinct configs Kernel Tuner's `strategy` measured, in its order, until one was
    within TARGET of `best_s` (budget+1 when never, within `max_fevals` = budget)."""
    random.seed(seed)
    np.random.seed(seed)
    params = {name: list(space.values(name)) for name in space.params}
    results, _, _ = kt_harness.tune(
        kernel_tuner, (0, 0), KERNEL, "__kernel void replayed() {}", (1, 1), [], params,
        restrictions=list(GEMM_RESTRICTIONS), strategy=strategy,
        strategy_options={"max_fevals": budget}, simulation_mode=True, cache=str(cache))
    seen: set[str] = set()
    for result in results:
        if not kt_harness.timed_ok(result):
            continue
        seen.add(space.name({name: result[name] for name in space.params}))
        if float(result["time"]) / 1e3 <= TARGET * best_s:
            return len(seen)
        if len(seen) >= budget:
            break
    return budget + 1


def summary(counts: list[int], budget: int) -> dict[str, object]:
    return {"median": statistics.median(counts),
            "reached": sum(c <= budget for c in counts) / len(counts), "counts": counts}


def replay(label: str, space: TuningSpace, values: Callable[[int], Callable[[dict], float]],
           kernel_tuner, seeds: int, budget: int) -> dict[str, dict[str, object]]:
    """Every strategy of both tools on one objective (`values(seed)`), `seeds` times."""
    ours = {"clmodes LocalSearch": lambda s: LocalSearch(seed=s),
            "clmodes ModelGuided": lambda s: ModelGuided(seed=s)}
    counts: dict[str, list[int]] = {name: [] for name in [*ours, *KT_STRATEGIES]}
    with tempfile.TemporaryDirectory(prefix="clmodes-replay-") as scratch:
        for seed in range(seeds):
            value = values(seed)
            best_s = min(value(config) for config in space)
            for name, make in ours.items():
                counts[name].append(to_quality(space, value, make(seed), budget, TARGET))
            cache = Path(scratch) / f"seed{seed}.json"
            write_kt_cache(cache, space, value)
            for strategy in KT_STRATEGIES:
                counts[strategy].append(kt_to_quality(kernel_tuner, cache, space, best_s,
                                                      strategy, seed, budget))
    figures = {name: summary(found, budget) for name, found in counts.items()}
    print(f"\n{label}: {len(space)} configs; configs measured to within {TARGET} "
          f"(median over {seeds} seeds, budget {budget})", flush=True)
    for name, found in figures.items():
        print(f"  {name:<22} {found['median']:>6.0f}  ({found['reached']:.0%} reached) "
              f"{found['counts']}", flush=True)
    ours_best = min(figures[name]["median"] for name in ours)  # type: ignore[type-var]
    theirs_best = min(figures[name]["median"] for name in KT_STRATEGIES)  # type: ignore[type-var]
    ratio = ours_best / theirs_best
    print(f"  clmodes' best median over Kernel Tuner's best: {ratio:.2f}", flush=True)
    return {"strategies": figures, "configs": len(space),
            "ratio_configs_ours_over_kernel_tuner": ratio}


def main(argv=None) -> int:
    parser = benchlib.parser(__doc__, json_type=Path,
                             smoke_help="seconds: 2 seeds, budget 40, the recorded spaces only")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--budget", type=int, default=200)
    parser.add_argument("--fixture", action="append", type=Path)
    parser.add_argument("--no-fixtures", action="store_true", help="the synthetic objective only")
    parser.add_argument("--no-synthetic", action="store_true", help="the recorded spaces only")
    args = parser.parse_args(argv)
    if args.smoke:
        args.seeds, args.budget, args.no_synthetic = 2, 40, True
    fixtures = [] if args.no_fixtures else (args.fixture or sorted(
        (HERE.parents[1] / "tests" / "fixtures" / "spaces").glob("*.json")))
    kernel_tuner = kt_harness.import_kernel_tuner("bench_search_replay.py")
    if kernel_tuner is None:
        return 2
    import bench_strategies

    results = {}
    for label, space, value in objectives(fixtures):
        if value is None and args.no_synthetic:
            continue
        values = ((lambda seed, value=value: value) if value is not None else
                  (lambda seed: bench_strategies.objective(seed, "rugged")))
        results[label] = replay(label, space, values, kernel_tuner, args.seeds, args.budget)
    benchlib.write_json(args.json, results, newline=False, default=str)
    return 0 if all(math.isfinite(r["ratio_configs_ours_over_kernel_tuner"])
                    for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
