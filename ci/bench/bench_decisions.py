#!/usr/bin/env python
"""Decisions under noise: N exhaustive tunes of one GEMM subspace, each choice against the
best of an independent interleaved re-measurement.

    python ci/bench/bench_decisions.py [--runs N] [--subspace 48|24|12] [--n SIZE]
                                       [--rounds R] [--load K] [--final-runs-as A,B]
                                       [--smoke] [--json OUT]

What it answers: does a tune that measured every config choose (within 1.05 of) the
best, run after run, on a machine as loaded as it is? One process, one device
($CLMODES_DEVICE), a throw-away store. Each run is a fresh `Tunable` (its own name, so
its own key: nothing is reused from an earlier run) over the same subspace of
`kernels_cl.gemm.GEMM_SPACE`, `Exhaustive()`, no budget, the default `RacePolicy`,
called once under EXECUTE on the same n x n x n float32 product. The kernels are built
once, by a throw-away first tune that is not counted, so every counted run measures the
same built code. Every config is also re-measured, interleaved: one warm-up run each
(its time sets the runs per sample, `RacePolicy().repeats`, as a tune's race does: one run
of a sub-millisecond kernel is mostly wake-up noise), then one round over all configs
after each tune and `--rounds` more after the last, the order reversed every other
round, each sample the median of its runs (`racing.sample`). The best is the config of
the lowest paired score (`Remeasure.scores`: its sample over its round's median sample,
median over the rounds), and a run's figure is its choice's sample over the best's in
the same round, median over the rounds. Why rounds between the tunes: on a machine whose load changes,
a re-measurement taken only after the tunes sees another load than they did, and which
config is fastest can change with the load (a config staging B in local memory overtook
the one that does not, between a run's tunes and its re-measurement). Each run's choice
is reported that way, beside its pooled-median figure (`pooled_*`, what earlier
reports had; per run `pooled_vs_best`) and its figure in the one round right after it
(`then_vs_best`).
`--load K` runs K busy-looping processes beside it all, a load that can be repeated.
`--final-runs-as median,fastest` alternates the counted tunes between final policies
(`RacePolicy.final_runs_as`: a final's sample of several runs is their median, or their
fastest), run after run in one process, so both are judged under the same load by the
same re-measurement: `by_final_runs_as` in the JSON, a line each in the output, and
`summary` is the first policy's.

Figures: `within_1.05_fraction` (runs choosing at most 1.05x the best), the median and
the worst chosen/best ratio, the median tune seconds (the record's `tune_seconds`), and
the 1-minute load before and after, and `resolved_worse_fraction`: the runs whose choice
is beyond 1.05x of the best by more than the re-measurement's own noise (a paired
bootstrap over its rounds: under load, one config's samples can spread wider than 1.05,
and then the best is not resolved to 1.05 either); in the JSON, the chosen configs' and the best's
re-measured samples (min, quartiles, max), which show a config whose speed splits into
a fast and a slow mode under load. Run it with one clmodes on PYTHONPATH and then
another (the main branch's, say) to compare policies: the script uses only public names.
"""

from __future__ import annotations

import benchlib

if __name__ == "__main__":
    benchlib.temp_store("clmodes-bench-decisions-")

import json  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import pyopencl.array as cla  # noqa: E402

import clmodes  # noqa: E402
from clmodes import (Exhaustive, ProcessMode, ProcessModeOverride, RacePolicy,  # noqa: E402
                     RunsAs, Tunable)
from clmodes.tune.measuring import finals  # noqa: E402
from clmodes.tune.measuring.racing import sample  # noqa: E402
from kernels_cl.gemm import GEMM_SPACE, launch_out  # noqa: E402
from bench_space import SUBSPACES  # noqa: E402 - fixed parameters leaving N valid configs

TARGET = 1.05


def parse_args(argv):
    parser = benchlib.parser(__doc__,
                             smoke_help="seconds: 2 runs, the 12-config subspace, n = 64, 3 "
                                        "rounds",
                             quiet=True)
    parser.add_argument("--runs", type=int, default=20, help="counted tunes")
    parser.add_argument("--subspace", type=int, default=48, choices=sorted(SUBSPACES))
    parser.add_argument("--n", type=int, default=256, help="n of the n x n x n product")
    parser.add_argument("--rounds", type=int, default=5,
                        help="re-measurement rounds after the last run (one follows each run)")
    parser.add_argument("--load", type=int, default=0, metavar="K",
                        help="K busy-looping processes beside the tunes and the re-measurement "
                             "(a load the figure can be measured under again)")
    parser.add_argument("--final-runs-as", default=RacePolicy().final_runs_as.value,
                        type=_runs_as, metavar="A,B",
                        help="final policies the runs alternate between (median, fastest)")
    args = parser.parse_args(argv)
    if args.smoke:
        args.runs, args.subspace, args.n, args.rounds = 2, 12, 64, 3
    return args


def _runs_as(text: str) -> list[RunsAs]:
    return [RunsAs(part.strip()) for part in text.split(",")]


def gemm_operands(stream, n: int) -> tuple:
    """(out, a, b) of an n x n x n product on the device, the inputs seeded by n."""
    rng = np.random.default_rng(n)
    a, b = (cla.to_device(stream.queue, rng.random((n, n), dtype=np.float32)) for _ in range(2))
    return cla.zeros(stream.queue, (n, n), np.float32), a, b


def tune_once(stream, space, args, tag: str, runs_as: RunsAs | None = None) -> dict:
    """One fresh Tunable called once under EXECUTE; its record's winner and cost."""
    policy = RacePolicy(final_runs_as=runs_as) if runs_as else RacePolicy()
    tunable = Tunable(f"bench_decisions.{tag}", key=lambda out, a, b: {"n": a.shape[0]},
                      space=space, launch=launch_out, strategy=Exhaustive(), policy=policy)
    with ProcessModeOverride(ProcessMode.EXECUTE):
        tunable(stream, *args)
    stream.finish()
    entry = clmodes.default_store().get_tune_json(*tunable.tune_key(stream, args)) or {}
    dropped = entry.get("dropped") or {}
    return {"winner": str(entry.get("winner")), "tune_seconds": entry.get("tune_seconds"),
            "final_runs_as": policy.final_runs_as.value,
            "measured_here": entry.get("measured_here"), "dropped": len(dropped),
            "dropped_reasons": dropped}


class Remeasure:
    """Interleaved samples of every config (all already built), taken a round at a time."""

    def __init__(self, stream, space, args) -> None:
        self.stream, self.args = stream, args
        self.runs = {space.name(c): (lambda s, *a, c=c: launch_out(s, c, *a)) for c in space}
        self.samples: dict[str, list[float]] = {name: [] for name in self.runs}
        self.rounds = 0
        with ProcessModeOverride(ProcessMode.EXECUTE):
            self.repeats = {name: RacePolicy().repeats(sample(run, stream, args))
                            for name, run in self.runs.items()}

    def round(self) -> None:
        order = list(self.runs)
        with ProcessModeOverride(ProcessMode.EXECUTE):
            for name in (order if self.rounds % 2 == 0 else order[::-1]):
                self.samples[name].append(sample(self.runs[name], self.stream, self.args,
                                                 self.repeats[name]))
        self.rounds += 1

    def medians(self) -> dict[str, float]:
        return benchlib.medians(self.samples)

    def scores(self) -> dict[str, float]:
        """Each config's median, over the rounds, of its sample over that round's median
        sample: its speed relative to the others in the same round, so that what the
        load of one round does to all of them cancels (the tune's final scores the same
        way, `clmodes.tune.measuring.finals.scores`). Why not the pooled medians: the load drifts
        between rounds, and a pooled median is taken in whichever round is a config's
        middle one; under 3 busy processes on Intel the pooled best was a config that
        was 1.075x slower than the tune's choice, paired, in 19 of 20 runs."""
        return finals.scores(self.rows(), list(self.samples))

    def rows(self) -> list[dict[str, float]]:
        """The rounds as the final's rows: config -> its sample in that round."""
        return [{name: found[index] for name, found in self.samples.items()}
                for index in range(self.rounds)]

    def paired(self, chosen: str, best: str, rounds: slice = slice(None)) -> float:
        """The median, over `rounds`, of `chosen`'s sample over `best`'s in the same
        round."""
        return benchlib.paired(self.samples[chosen][rounds], self.samples[best][rounds])

    def spread(self, names) -> dict[str, list[float]]:
        """Min, quartiles and max of each named config's samples: a config whose samples
        split into a fast and a slow mode shows it here, which its median hides."""
        return {name: [min(self.samples[name]), *statistics.quantiles(self.samples[name], n=4),
                       max(self.samples[name])]
                for name in names if len(self.samples[name]) >= 2}


def resolved_worse(reference: Remeasure, chosen: str, best: str, draws: int = 2000) -> bool:
    """Is `chosen` more than TARGET times slower than `best` beyond the re-measurement's
    own noise? A bootstrap over the reference's rounds of the median paired ratio (both
    configs are sampled in each round): True when its 2.5th percentile is above TARGET.
    Under load a config's samples can spread wider than TARGET, and then the best is not
    resolved to within TARGET either."""
    if chosen == best:
        return False
    ratios = np.array([a / b for a, b in zip(reference.samples[chosen],
                                             reference.samples[best])])
    rng = np.random.default_rng(0)
    medians = np.median(ratios[rng.integers(0, len(ratios), (draws, len(ratios)))], axis=1)
    return float(np.percentile(medians, 2.5)) > TARGET


def best_fate(run: dict, best: str) -> str:
    """What the tune did with the re-measurement's best, when it chose another: the
    racer's reason where it dropped it, else "measured, lost" (it reached the end of its
    race or the final and was ranked below the winner). What a miss reads first."""
    reasons = run.pop("dropped_reasons", {})
    if run["winner"] == best:
        return "chosen"
    reason = reasons.get(best)
    if isinstance(reason, dict):
        reason = reason.get("dropped") or reason.get("failed") or json.dumps(reason)
    return f"dropped: {reason}" if reason else "measured, lost"


def summarize(runs: list[dict], reference: Remeasure, space_size: int) -> dict:
    """Each run's choice against the best by paired score (`Remeasure.scores`), as the
    median paired ratio over every round; the pooled-median figures beside it, for
    comparison with the earlier reports, which had only those."""
    scores, medians = reference.scores(), reference.medians()
    best = min(scores, key=lambda name: (scores[name], name))
    pooled_best = min(medians.values())
    for run in runs:
        index = run["round"]
        known = run["winner"] in scores
        run["chosen_vs_best"] = reference.paired(run["winner"], best) if known else float("inf")
        # the one round right after this run: the choice against the best at its moment
        run["then_vs_best"] = (reference.paired(run["winner"], best, slice(index, index + 1))
                               if known else float("inf"))
        run["pooled_vs_best"] = medians[run["winner"]] / pooled_best if known else float("inf")
        run["best_fate"] = best_fate(run, best)
    ratios = [run["chosen_vs_best"] for run in runs]
    pooled = [run["pooled_vs_best"] for run in runs]
    seconds = [run["tune_seconds"] for run in runs if run["tune_seconds"] is not None]
    return {
        "within_1.05_fraction": sum(r <= TARGET for r in ratios) / len(ratios),
        "median_chosen_over_best": statistics.median(ratios),
        "worst_chosen_over_best": max(ratios),
        "pooled_within_1.05_fraction": sum(r <= TARGET for r in pooled) / len(pooled),
        "median_tune_s": statistics.median(seconds) if seconds else None,
        "measured_every_config": all(run["measured_here"] == space_size for run in runs),
        "best": best,
        "best_s": medians[best],
        "pooled_best": min(medians, key=medians.__getitem__),
        "resolved_worse_fraction": sum(resolved_worse(reference, run["winner"], best)
                                       for run in runs if run["winner"] in reference.samples)
                                   / len(runs),
    }


def measure(stream, space, operands, args, log) -> tuple[list[dict], Remeasure]:
    """The counted tunes, a re-measurement round after each and `--rounds` more."""
    tune_once(stream, space, operands, "build")  # builds every kernel; not counted
    reference = Remeasure(stream, space, operands)
    runs = []
    for index in range(args.runs):
        for runs_as in args.final_runs_as:
            tag = f"run{index}" + (f".{runs_as.value}" if len(args.final_runs_as) > 1 else "")
            runs.append({**tune_once(stream, space, operands, tag, runs_as),
                         "round": reference.rounds})
            reference.round()
            log(f"  run {tag}: {runs[-1]['winner']} in {runs[-1]['tune_seconds']:.2f} s")
    for _ in range(args.rounds):
        reference.round()
    return runs, reference


def main(argv=None) -> int:
    args = parse_args(argv)
    log = benchlib.progress_logger(args.quiet)
    space = GEMM_SPACE.subspace(**SUBSPACES[args.subspace])
    client = clmodes.client()
    stream = client.stream("bench-decisions")
    operands = gemm_operands(stream, args.n)
    started = time.perf_counter()
    log(f"bench_decisions: {client.device.label}, {len(space)} configs, n={args.n}, "
        f"{args.runs} runs, {args.load} busy processes beside")
    with benchlib.busy_load(args.load):
        load_before = benchlib.loadavg()
        runs, reference = measure(stream, space, operands, args, log)
        load_after = benchlib.loadavg()
    by_policy = {runs_as.value: summarize([r for r in runs if r["final_runs_as"] == runs_as.value],
                                          reference, len(space))
                 for runs_as in args.final_runs_as}
    summary = by_policy[args.final_runs_as[0].value]
    results = {
        "meta": {**benchlib.run_meta(client.device), "runs": args.runs, "n": args.n,
                 "subspace": args.subspace, "configs": len(space),
                 "remeasure_rounds": reference.rounds,
                 "smoke": args.smoke, "loadavg_before": load_before,
                 "busy_processes": args.load,
                 "loadavg_after": load_after, "total_s": time.perf_counter() - started},
        "summary": summary,
        "by_final_runs_as": by_policy,
        "runs": runs,
        "remeasured_s": reference.medians(),
        "remeasured_scores": reference.scores(),
        # the chosen configs' and the best's samples: how a choice far from the best
        # looked in the re-measurement
        "remeasured_spread_s": reference.spread({summary["best"], *(r["winner"] for r in runs)}),
    }
    for name, figures in by_policy.items():
        print(f"{client.device.label}: {len(space)} configs, {args.runs} exhaustive tunes "
              f"(final samples: {name}): "
              f"{figures['within_1.05_fraction']:.2f} within {TARGET}x of the best, median "
              f"{figures['median_chosen_over_best']:.3f}x, worst "
              f"{figures['worst_chosen_over_best']:.3f}x; median tune "
              f"{figures['median_tune_s']:.2f} s; {figures['resolved_worse_fraction']:.2f} "
              f"beyond {TARGET}x by the re-measurement's own noise; load {load_before} -> "
              f"{load_after}")
    benchlib.write_json(args.json, results)
    clmodes.default_store().close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
