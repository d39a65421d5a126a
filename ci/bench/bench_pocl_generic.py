#!/usr/bin/env python
"""What PoCL's generic work-group functions cost tiled kernels: every config of a GEMM
subspace timed with `POCL_WORK_GROUP_SPECIALIZATION=0` against PoCL's default, in
alternating processes.

    python ci/bench/bench_pocl_generic.py [--subspace 48|24|12] [--n 256] [--reps 3]
                                          [--rounds 5] [--smoke] [--json OUT]

Why: with the variable set, a binary read after the first launches finds its code already
generated, so persisting a batch build costs nothing on PoCL (`bench_persist.py
--generic-work-groups`); without it, the read generates each kernel's generic function
once more, and persistence keeps about half of the batching gain. Whether clmodes could
set it depends on what it costs the kernels themselves, which is what this measures: the
subspace (`bench_decisions.SUBSPACES`: tiled configs, with and without local-memory
staging and its barriers) built in one batch, then every config timed in interleaved
rounds (`bench_decisions.Remeasure`: each sample the median of its runs, device times
from profiling events), once per process, the two settings alternating and the first
alternating per repetition. PoCL reads the variable when it loads, so each setting is a
process of its own (this script, re-run with `--child`).

Figures: per config, the ratio of its generic median to its specialized median (the
median over repetitions of each side's median); over the configs, their median and
worst; and the best config's seconds under each setting (`best_generic_over_best_
specialized`: what a tune's winner would run at). On $CLMODES_DEVICE when that names a
PoCL device, else on the first usable PoCL device.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys

import benchlib

VARIABLE = "POCL_WORK_GROUP_SPECIALIZATION"
SETTINGS = {"specialized": None, "generic": "0"}


def parse_args(argv):
    parser = benchlib.parser(__doc__, quiet=True, reps=3, smoke_help="seconds: 2 configs (of the "
                             "12), n = 64, 1 rep, 2 rounds")
    parser.add_argument("--subspace", type=int, default=48, choices=(12, 24, 48))
    parser.add_argument("--n", type=int, default=256, help="n of the n x n x n product")
    parser.add_argument("--rounds", type=int, default=5, help="timing rounds per process")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.smoke:
        args.subspace, args.n, args.reps, args.rounds = 12, 64, 1, 2
    return args


def child(args) -> int:
    """One process, one setting: every config's median seconds, as JSON on stdout."""
    benchlib.cold_caches()
    benchlib.temp_store("clmodes-bench-generic-")
    import clmodes
    from bench_decisions import SUBSPACES, Remeasure, gemm_operands, tune_once
    from kernels_cl.gemm import GEMM_SPACE

    fixed = {**SUBSPACES[args.subspace], **({"VWN": 1, "SA": 1} if args.smoke else {})}
    space = GEMM_SPACE.subspace(**fixed)
    client = clmodes.client(_pocl_device(clmodes))
    stream = client.stream("bench-generic")
    operands = gemm_operands(stream, args.n)
    tune_once(stream, space, operands, "build")  # one batch build of every config
    reference = Remeasure(stream, space, operands)
    for _ in range(args.rounds):
        reference.round()
    print(json.dumps({"device": client.device.label, "medians": reference.medians()}))
    clmodes.default_store().close()
    return 0


def _pocl_device(clmodes):
    """$CLMODES_DEVICE's device if it is PoCL, else the first usable PoCL device."""
    chosen = clmodes.client().device
    if chosen.fingerprint.vendor == "PoCL":
        return chosen
    found = benchlib.usable_devices("PoCL")
    if not found:
        raise SystemExit("bench_pocl_generic: no usable PoCL device here")
    return found[0]


def run_child(args, setting: str) -> dict:
    extra = {} if SETTINGS[setting] is None else {VARIABLE: SETTINGS[setting]}
    command = [sys.executable, __file__, "--child", "--subspace", str(args.subspace),
               "--n", str(args.n), "--rounds", str(args.rounds), *(["--smoke"] if args.smoke else [])]
    return benchlib.child_json(command, f"bench_pocl_generic: the {setting} child",
                               benchlib.child_env(path=(), drop=[VARIABLE], **extra))


def summarize(medians: dict[str, list[dict[str, float]]]) -> dict:
    """Per config the median over processes, then generic over specialized."""
    def pooled(setting: str) -> dict[str, float]:
        names = medians[setting][0]
        return {n: statistics.median(m[n] for m in medians[setting]) for n in names}
    special, generic = pooled("specialized"), pooled("generic")
    ratios = {n: generic[n] / special[n] for n in special}
    best_special = min(special, key=special.__getitem__)
    best_generic = min(generic, key=generic.__getitem__)
    return {
        "median_generic_over_specialized": statistics.median(ratios.values()),
        "worst_generic_over_specialized": max(ratios.values()),
        "best_generic_over_specialized": min(ratios.values()),
        "best_specialized": best_special, "best_specialized_s": special[best_special],
        "best_generic": best_generic, "best_generic_s": generic[best_generic],
        "best_generic_over_best_specialized": generic[best_generic] / special[best_special],
        "ratios": ratios,
    }


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.child:
        return child(args)
    log = benchlib.progress_logger(args.quiet)
    load_before = benchlib.loadavg()
    device = None

    def run(setting: str, rep: int) -> dict[str, float]:
        nonlocal device
        found = run_child(args, setting)
        device = found["device"]
        log(f"  rep {rep} {setting}: best {min(found['medians'].values()) * 1e3:.3f} ms")
        return found["medians"]

    medians = benchlib.rounds(list(SETTINGS), args.reps, run)
    summary = summarize(medians)
    results = {"meta": {"device": device, "subspace": args.subspace, "n": args.n,
                        "reps": args.reps, "rounds": args.rounds, "smoke": args.smoke,
                        "loadavg_before": load_before, "loadavg_after": benchlib.loadavg()},
               "summary": summary}
    print(f"{device}: {len(summary['ratios'])} configs, generic over specialized: median "
          f"{summary['median_generic_over_specialized']:.3f}, worst "
          f"{summary['worst_generic_over_specialized']:.3f}, best "
          f"{summary['best_generic_over_specialized']:.3f}; best config "
          f"{summary['best_specialized_s'] * 1e3:.3f} ms specialized, "
          f"{summary['best_generic_s'] * 1e3:.3f} ms generic "
          f"({summary['best_generic_over_best_specialized']:.3f}); load {load_before} -> "
          f"{results['meta']['loadavg_after']}")
    benchlib.write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
