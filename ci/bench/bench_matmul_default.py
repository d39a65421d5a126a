#!/usr/bin/env python
"""The README's main job on each matmul tunable: the GEMM space against the 15 candidates.

    python ci/bench/bench_matmul_default.py [--devices portable,intel] [--reps 2]
        [--workload kernels_cl.workloads:mlp] [--json OUT] [--quick|--smoke]

Issue 15 asks that `kernels_cl.matmul` tune a real space by default while keeping
`clmodes warm kernels_cl.workloads:mlp` within today's time and choosing at least as fast
a matmul as today's 15 hand-written candidates, measured both ways in one run. Per device
and repetition, each side (`KERNELS_CL_MATMUL=candidates`, `=space`; order rotated per
repetition) runs the main job as a fresh process: `python -m clmodes warm WORKLOAD` on a
fresh store with PoCL's kernel cache and pyopencl's cache off, timed around the whole
process. Then one process re-measures, per matmul key the workload tuned, the winner of
each side's last store on the same inputs: interleaved rounds (each round runs every
winner 5 times, the round's median per winner), 9 rounds, median over rounds, profiling
events. Printed: warm seconds per side (median over reps), and per key the two winners'
times and space / candidates (target <= 1.0: at least as fast). Every other config the
space's tune measured for that key is re-measured in the same rounds, so the line also
gives the decision's regret: the chosen config over the best of those (1.00: the tune
chose the best of what it measured; above, noise in the tune's own timings decided).
"""

from __future__ import annotations

import benchlib

benchlib.cold_caches()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402

SIDES = ("candidates", "space")
ROUNDS, RUNS = 9, 5


def warm_once(device: str, side: str, workload: str, store: str) -> float:
    env = {**os.environ, "KERNELS_CL_MATMUL": side, "CLMODES_DEVICE": device,
           "CLMODES_CACHE_DIR": store}
    return benchlib.timed_child(benchlib.clmodes_cli("warm", workload, "-q"),
                                f"warm ({side}, {device})", env=env)[0]


def compare(stores: dict[str, str]) -> list[dict]:
    """Run in a child process: each matmul key's winners re-measured side by side."""
    import importlib

    import numpy as np
    import pyopencl.array as cla

    import clmodes
    import kt_harness
    from clmodes.tune.reporting.report import tuned_keys
    from kernels_cl import _common, gemm

    matmul = importlib.import_module("kernels_cl.matmul")
    stream = clmodes.client().stream()
    model = stream.device.fingerprint.model
    winners: dict[str, dict[str, str]] = {}
    searched: dict[str, list[str]] = {}  # key -> every config the space's tune measured
    for side, directory in stores.items():
        for entry in tuned_keys(clmodes.Store(directory), model):
            if entry.tunable.startswith("kernels_cl.matmul.") and entry.tunable.endswith("float32"):
                winners.setdefault(entry.key, {})[side] = entry.winner
                if side == "space":
                    searched[entry.key] = [m.name for m in entry.measured]
    candidates = matmul.candidates(_common.FLOAT32)
    rng = np.random.default_rng(0)
    rows = []
    for key, chosen in sorted(winners.items()):
        if set(chosen) != set(SIDES):
            continue
        shape = json.loads(key)
        m, n, k = shape["M"], shape["N"], shape["K"]
        a = cla.to_device(stream.queue, rng.uniform(-1, 1, (m, k)).astype(np.float32))
        b = cla.to_device(stream.queue, rng.uniform(-1, 1, (k, n)).astype(np.float32))
        out = cla.zeros(stream.queue, (m, n), np.float32)
        runs = {"candidates": lambda name=chosen["candidates"]: candidates[name](stream, out, a, b),
                "space": lambda name=chosen["space"]: gemm.launch_out(
                    stream, gemm.GEMM_SPACE.config(name), out, a, b)}
        # The space tune's other measured configs, re-measured alongside: how far its
        # choice is from the best of what it measured (the decision, not the search).
        others = [name for name in searched.get(key, []) if name != chosen["space"]]
        runs.update({f"measured:{name}": lambda name=name: gemm.launch_out(
            stream, gemm.GEMM_SPACE.config(name), out, a, b) for name in others})
        for run in runs.values():
            run().wait()  # first launch: code generation, outside the timing

        def timed(side: str, _: int) -> float:  # one round's median of RUNS launches
            return statistics.median(kt_harness.event_seconds(runs[side]()) for _ in range(RUNS))

        seconds = benchlib.medians(benchlib.rounds(list(runs), ROUNDS, timed))
        best_measured = min(v for side, v in seconds.items() if side != "candidates")
        rows.append({"key": key, **{f"{side}_winner": chosen[side] for side in SIDES},
                     **{f"{side}_s": seconds[side] for side in SIDES},
                     "ratio": seconds["space"] / seconds["candidates"],
                     "regret": seconds["space"] / best_measured,
                     "measured": len(others) + 1})
    return rows


def compare_in_child(device: str, stores: dict[str, str], smoke: bool = False) -> list[dict]:
    return benchlib.child_json([sys.executable, __file__, "--compare", json.dumps(stores),
                                *(["--smoke"] if smoke else [])], f"compare on {device}",
                               {**os.environ, "CLMODES_DEVICE": device})


def set_up_only(workload: str) -> dict[str, str]:
    """What each side's matmul tunes, and that the workload imports (no OpenCL work)."""
    import importlib

    module, _, function = workload.partition(":")
    if not callable(getattr(importlib.import_module(module), function, None)):
        raise SystemExit(f"{workload}: not a callable")
    matmul = importlib.import_module("kernels_cl.matmul")
    sides = {}
    for side in SIDES:
        os.environ["KERNELS_CL_MATMUL"] = side
        tunable = matmul.tunable("float32")
        sides[side] = (f"{len(tunable.space)} configs" if getattr(tunable, "space", None)
                       else f"{len(tunable.candidates)} candidates")
    del os.environ["KERNELS_CL_MATMUL"]
    print(f"bench_matmul_default --smoke: {workload}; " + ", ".join(
        f"{side}: {what}" for side, what in sides.items()))
    return sides


def main() -> None:
    parser = benchlib.parser(__doc__, reps=2, smoke_help="arguments and set-up only: both sides' "
                             "tunables and the workload resolve, nothing warmed (ci/bench/run "
                             "--smoke)")
    parser.add_argument("--devices", default="portable,intel")
    parser.add_argument("--workload", default="kernels_cl.workloads:mlp")
    parser.add_argument("--compare", help=argparse.SUPPRESS)  # the child's side
    parser.add_argument("--quick", action="store_true",
                        help="a tiny MLP (16 rows, width 32, one layer), one rep, one device, "
                             "2 rounds of 2 runs: under a minute")
    args = parser.parse_args()
    if args.quick or args.smoke:
        global ROUNDS, RUNS
        ROUNDS, RUNS, args.reps = 2, 2, 1
        args.devices = os.environ.get("CLMODES_DEVICE") or args.devices.split(",")[0]
        os.environ.update(KERNELS_CL_BATCH="16", KERNELS_CL_HIDDEN="32", KERNELS_CL_LAYERS="1")
    if args.compare:
        print(json.dumps(compare(json.loads(args.compare))))
        return
    if args.smoke:
        benchlib.write_json(args.json, {"smoke": "setup", "sides": set_up_only(args.workload)})
        return
    results = []
    for device in args.devices.split(","):
        last: dict[str, str] = {}

        def warm(side: str, _: int) -> float:
            last[side] = tempfile.mkdtemp(prefix=f"clmodes-bench-default-{side}-")
            return warm_once(device, side, args.workload, last[side])

        before = benchlib.loadavg_1min()
        walls = benchlib.rounds(SIDES, args.reps, warm)
        keys = compare_in_child(device, last, args.smoke)
        after = benchlib.loadavg_1min()
        print(f"== {device}: {args.workload}, {args.reps} reps{benchlib.load_text(before, after)}")
        for side in SIDES:
            print(f"  warm, {side:<10} {statistics.median(walls[side]):6.1f} s  "
                  f"(runs {', '.join(f'{w:.1f}' for w in walls[side])})")
        for row in keys:
            print(f"  {row['key']}: space {row['space_s'] * 1e3:.3f} ms ({row['space_winner']}) "
                  f"/ candidates {row['candidates_s'] * 1e3:.3f} ms ({row['candidates_winner']})"
                  f" = {row['ratio']:.2f}; chosen / best of the {row['measured']} it measured "
                  f"{row['regret']:.2f}")
        results.append({"device": device, "walls": walls, "keys": keys,
                        "load": [before, after]})
    benchlib.write_json(args.json, results)


if __name__ == "__main__":
    main()
