#!/usr/bin/env python
"""Which surrogate for a model-guided strategy: scikit-learn's extra trees (`ModelGuided`)
against optuna's TPE sampler (ask/tell), in measurements to a config within 1.05 of the best.

    python ci/bench/surrogate_choice.py [--seeds 10] [--budget 160] [--fixture PATH ...]

No OpenCL: replayed on recorded spaces (tests/fixtures/spaces/*.json, each a GEMM_SPACE
subspace measured whole by `record_space.py`) and on `bench_strategies.py`'s rugged
synthetic objective over the whole GEMM_SPACE. TPE is driven through the same ask/tell
loop (`run_search`): each config it asks is one optuna trial over categorical
parameters; an invalid or already measured one is told as failed and asked again (up to
50 times, then a random valid config), as a restricted space forces. Optuna is needed
here only (`pip install optuna`); the library does not use it. Prints, per objective and
strategy, the median over seeds of the measurements needed (budget+1 when never), and
the fraction of seeds that got there. The choice it informed is docs/decisions/model-guided-search.md.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

from clmodes import Budget, LocalSearch, ModelGuided, RandomSample  # noqa: E402
from clmodes.tune.search.strategies import run_search  # noqa: E402
from clmodes.tune.search.strategies.base import SearchBase  # noqa: E402
from kernels_cl.gemm import GEMM_SPACE  # noqa: E402


class TPE:
    """optuna's TPE sampler as an ask/tell strategy (this comparison only)."""

    def __init__(self, seed: int = 0, generation: int = 8) -> None:
        self.seed, self.generation = seed, generation

    def start(self, space):
        return _TPESearch(space, self.seed, self.generation)


class _TPESearch(SearchBase):
    def __init__(self, space, seed: int, generation: int) -> None:
        import optuna

        super().__init__(space, generation, seed)
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.optuna = optuna
        self.study = optuna.create_study(sampler=optuna.samplers.TPESampler(
            seed=seed, multivariate=True, constant_liar=True, n_startup_trials=8))
        self.distributions = {p: optuna.distributions.CategoricalDistribution(list(space.values(p)))
                              for p in space.params}
        self.pending: dict[str, object] = {}

    def ask(self):
        chosen, fallback = [], []
        for _ in range(self.generation):
            for _attempt in range(50):
                trial = self.study.ask(self.distributions)
                config = dict(trial.params)
                name = self.space.name(config)
                if self.space.is_valid(config) and not self.seen(name) and name not in self.pending:
                    self.pending[name] = trial
                    chosen.append(config)
                    break
                self.study.tell(trial, state=self.optuna.trial.TrialState.FAIL)
            else:
                fallback += self.random_unseen(1)  # marked asked already
        return self.propose(chosen) + fallback

    def tell(self, results):
        super().tell(results)
        for name, seconds in results.items():
            trial = self.pending.pop(name, None)
            if trial is None:
                continue
            if seconds is None:
                self.study.tell(trial, state=self.optuna.trial.TrialState.FAIL)
            else:
                self.study.tell(trial, math.log(seconds))


def to_quality(space, value, strategy, budget: int, within: float = 1.05) -> int:
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
    for path in fixtures:
        data = json.loads(path.read_text())
        space = GEMM_SPACE.subspace(**data["fixed"])
        times = data["times_s"]
        yield path.stem, space, (lambda c, space=space, times=times: times[space.name(c)])
    yield "rugged synthetic (GEMM_SPACE)", GEMM_SPACE, None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--budget", type=int, default=160)
    parser.add_argument("--fixture", action="append", type=Path)
    parser.add_argument("--no-fixtures", action="store_true", help="the synthetic objective only")
    args = parser.parse_args()
    fixtures = [] if args.no_fixtures else (args.fixture or sorted(
        (HERE.parents[1] / "tests" / "fixtures" / "spaces").glob("*.json")))
    import bench_strategies

    makers = {"extra trees (ModelGuided)": lambda s: ModelGuided(seed=s),
              "TPE (optuna)": lambda s: TPE(seed=s), "local search": lambda s: LocalSearch(seed=s),
              "random": lambda s: RandomSample(args.budget, seed=s)}
    for label, space, value in objectives(fixtures):
        print(f"\n{label}: {len(space)} configs; measurements to within 1.05 "
              f"(median over {args.seeds} seeds, budget {args.budget})", flush=True)
        for name, make in makers.items():
            counts = []
            for seed in range(args.seeds):
                fn = value if value is not None else bench_strategies.objective(seed, "rugged")
                counts.append(to_quality(space, fn, make(seed), args.budget))
            reached = sum(c <= args.budget for c in counts) / len(counts)
            print(f"  {name:<28} {statistics.median(counts):>6.0f}  ({reached:.0%} reached) "
                  f"{counts}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
