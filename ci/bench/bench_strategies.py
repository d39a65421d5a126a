#!/usr/bin/env python
"""Search strategies on synthetic objectives over the GEMM space, at equal config budgets.

    python ci/bench/bench_strategies.py [--seeds 100] [--budgets 32,64,128] [--json OUT] [--smoke]

No OpenCL: each seed draws an objective over `kernels_cl.gemm.GEMM_SPACE` (its size is
printed) and every strategy searches it with `Budget(configs=B)`. Three objective kinds:

- smooth: a product over parameters of ``1 + w * (position - optimum)^2`` (positions
  along each value list, the optimum and weights drawn per seed) times pairwise terms
  coupling MWG/MDIMC and NWG/NDIMC (what a per-thread tile does);
- rugged: smooth times a fixed per-config factor in [1, 1.5) (a hash of the name: real
  spaces have cliffs a smooth model misses);
- noisy: rugged, and every measurement multiplied by lognormal noise (sigma 0.1), as
  on a loaded machine; the figure uses the true value of the config the strategy picked.

Printed per kind and budget: the mean, over seeds, of true(picked) / true(best of the
space), and the fraction of seeds within 1.05 of the best. Strategies see the same
objective per seed; seeds of strategies and objectives are independent.
"""

from __future__ import annotations

import hashlib
import math
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402

from clmodes import Budget, Genetic, LocalSearch, RandomSample  # noqa: E402
from clmodes.tune.search.strategies import run_search  # noqa: E402
from kernels_cl.gemm import GEMM_SPACE  # noqa: E402

SPACE = GEMM_SPACE
CONFIGS = list(SPACE)
NAMES = [SPACE.name(c) for c in CONFIGS]


def objective(seed: int, kind: str):
    rng = random.Random(1_000_003 * seed + 17)
    optimum = {p: rng.randrange(len(SPACE.values(p))) for p in SPACE.params}
    weight = {p: rng.uniform(0.05, 0.6) for p in SPACE.params}
    sizes = {p: max(1, len(SPACE.values(p)) - 1) for p in SPACE.params}
    salt = str(seed).encode()

    def true(config: dict) -> float:
        idx = dict(zip(SPACE.params, SPACE.indices(config)))
        value = 1.0
        for p in SPACE.params:
            value *= 1 + weight[p] * ((idx[p] - optimum[p]) / sizes[p]) ** 2 * 4
        value *= 1 + 0.3 * abs(math.log2(config["MWG"] / config["MDIMC"]) - 2) / 2
        value *= 1 + 0.3 * abs(math.log2(config["NWG"] / config["NDIMC"]) - 3) / 3
        if kind != "smooth":
            digest = hashlib.blake2b(SPACE.name(config).encode(), key=salt, digest_size=4).digest()
            value *= 1 + 0.5 * int.from_bytes(digest, "little") / 2**32
        return value

    return true


def run(kinds, budgets, seeds) -> dict:
    """Prints the table; returns, per kind, budget and strategy, the mean picked/best and
    the fraction of seeds within 1.05."""
    figures: dict = {}
    strategies = {
        "random": lambda b, s: RandomSample(b, seed=s),
        "local": lambda b, s: LocalSearch(seed=s),
        "genetic/32": lambda b, s: Genetic(seed=s, generation=32),
        "genetic/16": lambda b, s: Genetic(seed=s, generation=16),
    }
    for kind in kinds:
        print(f"\n== {kind}: mean true(picked)/true(best) over {seeds} seeds "
              f"(fraction within 1.05)", flush=True)
        print(f"{'budget':>7} " + " ".join(f"{n:>18}" for n in strategies))
        for budget in budgets:
            row = {n: [] for n in strategies}
            for seed in range(seeds):
                true = objective(seed, kind)
                values = {name: true(c) for name, c in zip(NAMES, CONFIGS)}
                best = min(values.values())
                noise = random.Random(seed + 99)

                def measure(config, true=true):
                    value = true(config)
                    return value * math.exp(noise.gauss(0, 0.1)) if kind == "noisy" else value

                for name, make in strategies.items():
                    measured = run_search(SPACE, make(budget, seed), measure, Budget(configs=budget))
                    assert len(measured) <= budget
                    picked = min((s, n) for n, s in measured.items() if s is not None)[1]
                    row[name].append(values[picked] / best)
            figures.setdefault(kind, {})[f"budget_{budget}"] = {
                name: {"mean_picked_over_best": statistics.mean(r),
                       "fraction_within_1_05": sum(x <= 1.05 for x in r) / len(r)}
                for name, r in row.items()}
            print(f"{budget:>7} " + " ".join(
                f"{statistics.mean(r):>10.3f} ({sum(x <= 1.05 for x in r) / len(r):>4.0%})"
                for r in row.values()), flush=True)
    return figures


def main() -> None:
    parser = benchlib.parser(__doc__,
                             smoke_help="seconds: 2 seeds, budget 16, smooth (ci/bench/run "
                                        "--smoke)")
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--budgets", default="32,64,128")
    parser.add_argument("--kinds", default="smooth,rugged,noisy")
    args = parser.parse_args()
    if args.smoke:
        args.seeds, args.budgets, args.kinds = 2, "16", "smooth"
    started = time.perf_counter()
    print(f"space: {len(SPACE)} valid configs of a {SPACE.product_size} product")
    figures = run(args.kinds.split(","), [int(b) for b in args.budgets.split(",")], args.seeds)
    print(f"\n{time.perf_counter() - started:.0f} s")
    benchlib.write_json(args.json, {"space_configs": len(SPACE), "seeds": args.seeds,
                                    "smoke": args.smoke, "kinds": figures})


if __name__ == "__main__":
    main()
