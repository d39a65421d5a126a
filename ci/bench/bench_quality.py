#!/usr/bin/env python
"""Time to quality: how soon clmodes' tune and Kernel Tuner hold a config within 1.05 of the best known.

    python ci/bench/bench_quality.py [--spaces gemm,xgemm] [--n 256] [--budget 40] [--seeds 3]
                                     [--ours model,local] [--kt random_sample,greedy_ils,...]
                                     [--best-known PATH] [--rounds 5] [--smoke] [--json OUT]

Needs the `bench` extra (Kernel Tuner) and, for clmodes' `ModelGuided`, the `search` extra
(scikit-learn). One device per process: $CLMODES_DEVICE.

Spaces (`quality_sides.PROBLEMS`): `kernels_cl.gemm.GEMM_SPACE` (C = A @ B, n x n x n) and
CLBlast's own Xgemm kernel over its tuner's V=2 space and constraints, with the device's
local-memory and work-group limits (`clblast_xgemm.py`; m = n = k). Both tools get the
same source (a fresh `#define BENCH_SALT` per tune: nothing built earlier is reused), the
config as defines, the same restriction strings and the same geometry.

Each run is one cold tune with a time budget (`--budget` seconds): clmodes, a never-tuned
`Tunable(space=..., strategy=S, budget=Budget(seconds=B))` called under EXECUTE; Kernel
Tuner, `tune_kernel(..., strategy=S, strategy_options={"time_limit": B})`. One timer: the
wall clock from the call, compiles and first launches included. Every result's moment is
when the tool knew it (clmodes: when the tuner told it to the strategy; Kernel Tuner: its
result's timestamp). Seeds: clmodes' strategies take the seed; Kernel Tuner's draw from
the global `random` and `numpy.random` generators, seeded before each call. The tool that
goes first alternates per seed. Libraries are imported before any clock starts (Kernel
Tuner, scikit-learn): a once-per-process cost, not a tune's.

Rating: the best known config is the fastest of a re-measurement, after all runs, of
every run's incumbents (each config that was the best so far by its tool's own times,
kept only when within 1.3x of that tool's fastest own time: slower ones cannot be within
1.05; and each run's answer, whatever its time: clmodes' stored decision, which its
final chose by re-timing the finalists side by side, Kernel Tuner's fastest own time)
together with the best configs a previous run recorded in the `--best-known` JSON
cache (per device fingerprint, space and n; default a file in the temp folder), all
built first, then timed in interleaved rounds of profiling events (`kt_harness`). A run's
time to quality is the first moment its best so far re-measures within 1.05 of that best;
never: null. Printed per space and strategy: the median over seeds (null when most
seeds never got there), and the ratio of the best clmodes strategy's median to the best
Kernel Tuner strategy's (target <= 0.4; a '+start' strategy, which starts from
kernels_cl.matmul's start configs, is prior knowledge, not a search, and has its own
ratio), with the median seconds to each strategy's
first result (the floor a time to quality cannot beat: one config's compile, and on
PoCL its first launch's code generation). The cache then keeps the 5 fastest.

Curves (`curves` in the JSON, drawn on the benchmarks page): per strategy, at moments
from 1 s to the budget, the median over seeds of the best so far (re-measured) over the
best known, and how many seeds were within 1.05 then: what a time to quality alone hides
(how close the others got, and how soon).
"""

from __future__ import annotations

import benchlib

if __name__ == "__main__":
    benchlib.cold_caches()
    benchlib.temp_store("clmodes-bench-quality-")

import json  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

WITHIN = 1.05
KEEP_BEST = 5
OWN_SLACK = 1.3
KT_STRATEGIES = "random_sample,greedy_ils,bayes_opt,genetic_algorithm"
CURVE_MOMENTS = (1, 2, 5, 10, 20, 30, 45, 60, 90, 120, 180, 240, 360, 480, 600)


def parse_args(argv):
    parser = benchlib.parser(__doc__,
                             smoke_help="seconds: GEMM at n=64, 1 seed, 5 s budgets, model "
                                        "against random_sample",
                             quiet=True)
    parser.add_argument("--spaces", default="gemm,xgemm")
    parser.add_argument("--n", type=int, default=256, help="m = n = k (Xgemm: a multiple of 128)")
    parser.add_argument("--budget", type=float, default=40.0, help="seconds per tune")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--ours", default="model,local",
                        help="clmodes strategies: model, local, random; a '+start' suffix (GEMM "
                             "only) starts from kernels_cl.matmul's start configs")
    parser.add_argument("--kt", default=KT_STRATEGIES, help="Kernel Tuner strategies")
    parser.add_argument("--rounds", type=int, default=5, help="re-measurement rounds")
    parser.add_argument("--best-known", default=str(Path(tempfile.gettempdir())
                                                    / "clmodes-bench-quality-best.json"))
    args = parser.parse_args(argv)
    if args.smoke:
        args.spaces, args.n, args.budget, args.seeds, args.rounds = "gemm", 64, 5.0, 1, 2
        args.ours, args.kt = "model", "random_sample"
    return args


START = "+start"


def our_strategy(label: str, seed: int):
    from clmodes import LocalSearch, ModelGuided, RandomSample

    return {"model": lambda: ModelGuided(seed=seed), "local": lambda: LocalSearch(seed=seed),
            "random": lambda: RandomSample(100_000, seed=seed)}[label.removesuffix(START)]()


def our_start(label: str, space: str):
    """`start=` for a '+start' label: `kernels_cl.matmul.start_configs`, the configs that
    library's own GEMM tunables start from. It is prior knowledge Kernel Tuner is not
    given (it has no start configs for its strategies), so these runs are reported apart
    from the search-only ratio: they measure what a user of kernels_cl gets, not a search."""
    if not label.endswith(START):
        return None
    if space != "gemm":
        raise SystemExit(f"bench_quality: {label!r}: start configs exist for the gemm space only")
    from kernels_cl.matmul import start_configs

    return start_configs


def cache_key(fingerprint: str, space: str, n: int) -> str:
    return f"{fingerprint} | {space} | n={n}"


def read_cache(path: str) -> dict:
    try:
        found = json.loads(Path(path).read_text())
        return found if isinstance(found, dict) else {}
    except (OSError, ValueError):
        return {}


def median_or_none(values: list[float | None]) -> float | None:
    """The median, a run that never reached quality counting as infinitely late; None
    when that median is one of them."""
    middle = statistics.median([math.inf if v is None else v for v in values])
    return None if math.isinf(middle) else middle


def run_space(setup: dict, label: str, args, log) -> dict:
    import quality_sides as sides

    stream, kt, where = setup["stream"], setup["kt"], setup["where"]
    prob = sides.PROBLEMS[label](stream, args.n)
    log(f"{label}: {len(prob.space)} valid configs, n={args.n}, {args.budget:.0f} s per tune")
    runs = []
    for seed in range(args.seeds):
        ours = [("clmodes", s) for s in args.ours.split(",") if s]
        theirs = [("kernel_tuner", s) for s in args.kt.split(",") if s]
        order = ours + theirs if seed % 2 == 0 else theirs + ours
        for tool, strategy in order:
            if tool == "clmodes":
                run = sides.run_clmodes(stream, prob, strategy, our_strategy(strategy, seed), seed,
                                        args.budget, start=our_start(strategy, label))
            else:
                run = sides.run_kernel_tuner(kt, where, prob, strategy, seed, args.budget)
            runs.append(run)
            ok = [e for e in run.events if e[2] is not None]
            log(f"  {label} seed {seed} {tool:<12} {strategy:<18} {run.wall_s:5.1f} s, "
                f"{len(run.events)} results ({len(ok)} ran), best own "
                f"{min((e[2] for e in ok), default=math.nan) * 1e3:.3f} ms")
    return rate(setup, prob, runs, args, log)


def rate(setup: dict, prob, runs: list, args, log) -> dict:
    import quality_sides as sides

    key = cache_key(setup["fingerprint"], prob.label, args.n)
    cache = read_cache(args.best_known)
    cached = [n for n in cache.get(key, []) if isinstance(n, str) and n in prob.space]
    candidates: dict[str, None] = dict.fromkeys(cached)
    for tool in ("clmodes", "kernel_tuner"):
        own = [e[2] for r in runs if r.tool == tool for e in r.events if e[2] is not None]
        if not own:
            continue
        for run in (r for r in runs if r.tool == tool):
            times = {name: seconds for _, name, seconds in run.events}
            for _, name in run.incumbents():
                if times[name] is not None and times[name] <= OWN_SLACK * min(own):
                    candidates[name] = None
            answer = run.answer()
            if answer:  # every run's answer, however slow: how close each got
                candidates[answer] = None
    log(f"  {prob.label}: re-measuring {len(candidates)} configs ({len(cached)} from the "
        f"cache), {args.rounds} rounds")
    rated, failures = sides.remeasure(setup["client"], prob, list(candidates), args.rounds)
    for name, why in failures.items():
        log(f"  {prob.label}: {name} failed when re-measured: {why}")
    timed = sorted((s, n) for n, s in rated.items() if s is not None)
    if not timed:
        raise RuntimeError(f"{prob.label}: no incumbent ran when re-measured")
    best_s, best_name = timed[0]
    cache[key] = [n for _, n in timed[:KEEP_BEST]]
    benchlib.write_json(args.best_known, cache)
    per_run = [{"tool": r.tool, "strategy": r.strategy, "seed": r.seed, "wall_s": r.wall_s,
                "results": len(r.events), "ran": sum(e[2] is not None for e in r.events),
                "time_to_quality_s": sides.time_to_quality(r, rated, best_s, WITHIN),
                "final_over_best": _final(r, rated, best_s), "answer": r.answer(),
                "first_result_s": r.events[0][0] if r.events else None,
                "events": [list(e) for e in r.events]} for r in runs]
    strategies: dict[str, dict] = {}
    for entry in per_run:
        slot = strategies.setdefault(f"{entry['tool']}:{entry['strategy']}",
                                     {"ttq": [], "n": [], "first": []})
        slot["ttq"].append(entry["time_to_quality_s"])
        slot["n"].append(entry["results"])
        slot["first"].append(entry["first_result_s"])
    summary = {name: {"median_time_to_quality_s": median_or_none(s["ttq"]),
                      "reached": sum(v is not None for v in s["ttq"]), "seeds": len(s["ttq"]),
                      "median_results": statistics.median(s["n"]),
                      "median_first_result_s": median_or_none(s["first"])}
               for name, s in strategies.items()}
    best_ours, best_started, best_theirs = medians(summary)
    return {"space": prob.label, "space_size": len(prob.space), "n": args.n,
            "best_known": best_name, "best_known_s": best_s, "rated": rated,
            "failed_when_rated": failures,
            "runs": per_run, "strategies": summary,
            "curve": {"title": f"{prob.label} ({len(prob.space)} configs, n={args.n}), "
                               f"{args.budget:.0f} s budgets, {args.seeds} seeds",
                      **curve(runs, rated, best_s, args.budget)},
            "best_clmodes_ttq_s": best_ours, "best_kernel_tuner_ttq_s": best_theirs,
            "best_clmodes_with_start_ttq_s": best_started,
            "ratio_ttq_clmodes_over_kernel_tuner": _ratio(best_ours, best_theirs),
            "ratio_ttq_with_start_over_kernel_tuner": _ratio(best_started, best_theirs)}


def medians(summary: dict) -> tuple[float | None, float | None, float | None]:
    """The best median time to quality of clmodes' searches, of its '+start' runs, and of
    Kernel Tuner's strategies (None where no strategy of that kind has one)."""
    return (_best_median(summary, lambda k: k.startswith("clmodes:") and not k.endswith(START)),
            _best_median(summary, lambda k: k.startswith("clmodes:") and k.endswith(START)),
            _best_median(summary, lambda k: k.startswith("kernel_tuner:")))


def _best_median(summary: dict, chosen: Callable[[str], bool]) -> float | None:
    return min((v["median_time_to_quality_s"] for k, v in summary.items()
                if chosen(k) and v["median_time_to_quality_s"] is not None), default=None)


def _ratio(ours: float | None, theirs: float | None) -> float | None:
    return ours / theirs if ours is not None and theirs else None


def curve(runs: list, rated: dict, best_s: float, budget: float) -> dict:
    """Time-to-quality curves: per strategy, at each moment up to the budget, the median
    over seeds of the best so far (re-measured) over the best known, and how many seeds
    were within 1.05 then. A seed with no rated best yet counts as infinitely slow, so
    the median is None (shown as "-") while most seeds have none."""
    import quality_sides as sides

    moments = [m for m in CURVE_MOMENTS if m < budget] + [budget]
    lines: dict[str, dict] = {}
    for run in runs:
        line = lines.setdefault(f"{run.tool}:{run.strategy}", {"values": [], "seeds": 0})
        line["seeds"] += 1
        line["values"].append([sides.incumbent_vs_best(run, rated, best_s, m) for m in moments])
    return {"moments_s": moments, "within": WITHIN, "lines": {
        name: {"seeds": line["seeds"],
               "median_incumbent_vs_best": [median_or_none(list(column))
                                            for column in zip(*line["values"])],
               "seeds_within": [sum(v is not None and v <= WITHIN for v in column)
                                for column in zip(*line["values"])]}
        for name, line in lines.items()}}


def _final(run, rated: dict, best_s: float) -> float | None:
    """The run's answer (clmodes' decision; Kernel Tuner's fastest own time), re-measured,
    over the best."""
    seconds = rated.get(run.answer() or "")
    return None if seconds is None else seconds / best_s


def table(result: dict) -> str:
    lines = [f"\n{result['space']} ({result['space_size']} configs, n={result['n']}): best "
             f"known {result['best_known_s'] * 1e3:.3f} ms ({result['best_known']})",
             f"{'strategy':<32} {'median TTQ (s)':>15} {'reached':>8} {'results':>8} "
             f"{'first result (s)':>17}"]
    for name, s in result["strategies"].items():
        ttq, first = s["median_time_to_quality_s"], s["median_first_result_s"]
        lines.append(f"{name:<32} {'never' if ttq is None else f'{ttq:.1f}':>15} "
                     f"{s['reached']:>4}/{s['seeds']:<3} {s['median_results']:>8} "
                     f"{'none' if first is None else f'{first:.1f}':>17}")
    ratio = result["ratio_ttq_clmodes_over_kernel_tuner"]
    lines.append(f"best clmodes / best Kernel Tuner median time to quality: "
                 f"{'n/a' if ratio is None else f'{ratio:.2f}'} (target <= 0.4)")
    if any(name.endswith(START) for name in result["strategies"]):
        started = result["ratio_ttq_with_start_over_kernel_tuner"]
        lines.append(f"with kernels_cl's start configs (prior knowledge, not a search): "
                     f"{'n/a' if started is None else f'{started:.2f}'}")
    return "\n".join(lines)


def main(argv=None) -> int:
    args = parse_args(argv)
    log = benchlib.progress_logger(args.quiet)
    started, load_before = time.perf_counter(), benchlib.loadavg()
    import kt_harness

    kernel_tuner = kt_harness.import_kernel_tuner("bench_quality")
    if kernel_tuner is None:
        return 2
    import clmodes

    if "model" in args.ours.split(","):
        import sklearn.ensemble  # noqa: F401 - a once-per-process import, not a tune's cost
    client = clmodes.client()
    setup = {"client": client, "stream": client.stream("bench-quality"), "kt": kernel_tuner,
             "where": kt_harness.device_indices(client.device.cl_device),
             "fingerprint": client.device.fingerprint.exact}
    log(f"device: {client.device.label}, load {load_before}")
    spaces = [run_space(setup, label, args, log) for label in args.spaces.split(",") if label]
    for result in spaces:
        print(table(result), flush=True)
    results = {"meta": {**benchlib.run_meta(client.device), "kernel_tuner": kernel_tuner.__version__,
                        "budget_s": args.budget, "seeds": args.seeds, "rounds": args.rounds,
                        "within": WITHIN, "smoke": args.smoke, "loadavg_before": load_before,
                        "loadavg_after": benchlib.loadavg(), "best_known_cache": args.best_known,
                        "total_s": time.perf_counter() - started},
               "spaces": spaces,
               "curves": [r["curve"] for r in spaces]}
    print(f"load average {load_before} before, {benchlib.loadavg()} after; "
          f"{time.perf_counter() - started:.0f} s", flush=True)
    benchlib.write_json(args.json, results)
    clmodes.default_store().close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
