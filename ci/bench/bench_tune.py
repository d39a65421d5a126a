#!/usr/bin/env python
"""Autotuning benchmark: clmodes' `Tunable` against Kernel Tuner, side by side on one device.

    python ci/bench/bench_tune.py [--json OUT] [--reps N] [--kernel naive|tiled] [--quick|--smoke]

Needs the `bench` extra (`pip install -e .[bench]`: Kernel Tuner 1.x).

The space: a 256x256 float32 matmul whose work-group is (block_size_x, block_size_y), with
block_size_x in {4, 8, 16, 32} and block_size_y in {1, 2, 4, 8}: 16 configurations, one
kernel source for both tools. The kernel declares `reqd_work_group_size(block_size_x,
block_size_y, 1)`; by default it is the simple one-work-item-per-element matmul, with
`--kernel tiled` a local-memory tiled one. Kernel Tuner gets the configuration as
`#define block_size_x ...` lines (its own convention); clmodes gets the same names as
defines through `kernel_variants`, its launch function deriving the local size from them.
So each tool has the same 16 distinct kernels to compile and measure.

1. Kernel Tuner: `tune_kernel(..., lang="OpenCL", strategy="brute_force")` with its default
   iterations (7): wall time of the call (it compiles each configuration with its own
   `Program.build`, runs it 7 times and times it with profiling events), and its choice
   (lowest mean `time`).
2. clmodes: a fresh `Tunable` with those 16 candidates, called once under EXECUTE on
   never-built kernels with the default `RacePolicy`: wall time of the call, from the call
   to its return (gather, one batched `Program.build`, race, store write, the winner's
   real launch, finished). The client, the stream and the input buffers exist before the
   clock starts (they are reported separately); Kernel Tuner's context and buffer set-up
   are inside its call.
   Both are cold: POCL_KERNEL_CACHE=0 and PYOPENCL_NO_CACHE=1 are set before pyopencl is
   imported, CLMODES_CACHE_DIR points to a fresh temporary directory, and every repetition
   salts the source with a new `#define BENCH_SALT`, so neither tool can reuse anything.
   Before any timing, one throw-away build and launch wake the compiler up for both.
   Repetitions alternate which tool goes first.
   On PoCL both tools also pay, per configuration, the work-group function generation at
   its first launch (between the event's SUBMIT and START, so outside every sample), which
   no batching can remove; the breakdown lines show it.
   clmodes on Kernel Tuner's evidence ("race-only"): the same with `RACE_ONLY`, a
   `RacePolicy` with no final and one warm-up timing (a config sampled up to 7 times, one
   run each at this size, the lowest median wins): what clmodes' own decision rules (the
   final, the re-timed warm-ups) cost, measured beside them. Its own salt; the three
   sides rotate who goes first.
3. Quality: afterwards every configuration is re-measured exhaustively with one method —
   profiling events START..END of one launch, interleaved rounds over all 16 after two
   warm-up launches each, median of the rounds — and each tool's choice is reported
   relative to the exhaustive best (target: within 5%).
4. Tune-cache hit overhead: under ProcessModeOverride(COMPILE_AND_AUTOTUNE) (launches
   dropped), calling the tuned `Tunable` with its cached key against calling
   `stream.launch` of the winner kernel directly; interleaved rounds, median µs per call.
   The difference is what a hit adds (target < 20 µs); the winner's candidate function
   called directly splits it into lookup and candidate wrapper.

Its run time, with the load before and after, is in docs/benchmarks.md (`ci/bench/run`
writes it); the load average is printed too, since it moves every figure.
"""

from __future__ import annotations

import benchlib

# Before pyopencl is imported: both tools cold (docs/facts.md, Caches), nothing reused. Only
# when run as a script: importing this module changes nothing.
_CACHE_DIR = None
if __name__ == "__main__":
    benchlib.cold_caches()
    _CACHE_DIR = benchlib.temp_store("clmodes-bench-tune-", remove_at_exit=False)

import argparse  # noqa: E402
import dataclasses  # noqa: E402
import itertools  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import numpy as np  # noqa: E402
import pyopencl as cl  # noqa: E402
import pyopencl.array as cla  # noqa: E402

import clmodes  # noqa: E402
import kt_harness  # noqa: E402
from benchlib import dist_version, progress_logger, write_json  # noqa: E402
from tune_report import table  # noqa: E402
from tune_sides import (  # noqa: E402
    BLOCK_X, BLOCK_Y, N, SOURCES, WARMUP_SOURCE, _salts, check_result, config_name, exhaustive,
    RACE_ONLY, hit_overhead, run_clmodes, run_kernel_tuner,
)


@dataclasses.dataclass
class Setup:
    """What both tools share, made before any clock starts: clmodes' client, stream and
    device buffers, the host matrices, and Kernel Tuner's indices of the same device."""

    client: clmodes.Client
    stream: clmodes.Stream
    host: tuple[np.ndarray, np.ndarray, np.ndarray]  # C, A, B
    bufs: tuple[cla.Array, cla.Array, cla.Array]  # C, A, B on the device
    setup_s: float  # clmodes client + input buffers
    platform_index: int
    device_index: int


@dataclasses.dataclass(frozen=True)
class Sizes:
    """How much each part measures (--quick shrinks every one)."""

    reps: int
    ex_rounds: int
    hit_calls: int
    hit_rounds: int
    n: int = N


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = benchlib.parser(__doc__, smoke_help="seconds: one repetition at n = 64, few samples "
                                        "(ci/bench/run --smoke)")
    parser.add_argument("--reps", type=int, default=3,
                        help="cold tuning runs per tool, order alternating (default 3)")
    parser.add_argument("--kernel", choices=sorted(SOURCES), default="naive",
                        help="naive: one work-item per element (default); tiled: local memory "
                             "tiles (PoCL's code generation at first launch is slower)")
    parser.add_argument("--quick", action="store_true",
                        help="one repetition and fewer samples")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    return parser.parse_args(argv)


def sizes(args: argparse.Namespace) -> Sizes:
    if args.smoke:
        return Sizes(reps=1, ex_rounds=2, hit_calls=2_000, hit_rounds=2, n=64)
    if args.quick:
        return Sizes(reps=1, ex_rounds=5, hit_calls=20_000, hit_rounds=6)
    return Sizes(reps=max(1, args.reps), ex_rounds=15, hit_calls=120_000, hit_rounds=12)


def set_up(log: Callable[[str], None], n: int) -> Setup:
    """The client, its stream and the inputs (timed: reported beside the tools' times)."""
    setup_started = time.perf_counter()
    client = clmodes.client()
    stream = client.stream("bench-tune")
    rng = np.random.default_rng(0)
    A_host = rng.random((n, n), dtype=np.float32)
    B_host = rng.random((n, n), dtype=np.float32)
    C_host = np.zeros((n, n), np.float32)
    bufs = (
        cla.to_device(stream.queue, C_host),
        cla.to_device(stream.queue, A_host),
        cla.to_device(stream.queue, B_host),
    )
    stream.finish()
    setup_s = time.perf_counter() - setup_started
    log(f"device: {client.device.label}; store {_CACHE_DIR}")
    platform_index, device_index = kt_harness.device_indices(client.device.cl_device)
    return Setup(client, stream, (C_host, A_host, B_host), bufs, setup_s,
                 platform_index, device_index)


def wake_compiler(setup: Setup) -> None:
    """Wake the compiler up (LLVM start-up, PoCL's first work-group code generation) for
    both tools: one throw-away build and launch."""
    context = setup.client.context
    wake = cl.Kernel(cl.Program(context, WARMUP_SOURCE.format(salt=next(_salts))).build(),
                     "wake")
    wake_buf = cl.Buffer(context, cl.mem_flags.READ_WRITE, 4 * 64)
    wake(setup.stream.queue, (64,), (16,), wake_buf).wait()


TOOLS = ("kernel_tuner", "clmodes", "race_only")  # race_only: clmodes on Kernel Tuner's evidence


def run_rep(setup: Setup, kernel_tuner, kernel: str, rep: int,
            log: Callable[[str], None]) -> dict[str, object]:
    """One cold tuning run of each tool on a freshly salted source (the race-only side on
    its own salt: in one process, clmodes' second side would find the first's programs
    built), rotating who goes first."""
    source = SOURCES[kernel].format(salt=next(_salts))
    order = benchlib.rotated(TOOLS, rep)
    runs: dict[str, dict[str, object]] = {}
    for tool in order:
        if tool == "kernel_tuner":
            runs[tool] = run_kernel_tuner(
                kernel_tuner, setup.platform_index, setup.device_index, setup.host, source
            )
        else:
            own = source if tool == "clmodes" else SOURCES[kernel].format(salt=next(_salts))
            runs[tool] = run_clmodes(setup.client, setup.stream, setup.bufs, own, rep,
                                     RACE_ONLY if tool == "race_only" else None)
            runs[tool]["max_rel_error"] = check_result(setup.stream, setup.bufs, setup.host)
        log(f"  rep {rep}: {tool} {runs[tool]['wall_s']:.2f} s -> {runs[tool]['choice']}")
    first = {"kernel_tuner": "KernelTuner", "clmodes": "clmodes", "race_only": "race-only"}
    return {"rep": rep, "first": first[order[0]], **runs}


def rate_choices(rep_results: list[dict], ex: dict[str, dict[str, float]]) -> dict[str, str]:
    """Each tool's choice relative to the exhaustive best (added to the reps); the best,
    worst and best-by-fastest-run configurations."""
    ranked = {
        "best": min(ex, key=lambda n: ex[n]["median_s"]),
        "worst": max(ex, key=lambda n: ex[n]["median_s"]),
        "best_min": min(ex, key=lambda n: ex[n]["min_s"]),
    }
    best, best_min = ranked["best"], ranked["best_min"]
    for rep in rep_results:
        for tool in TOOLS:
            choice = rep[tool]["choice"]
            rep[tool]["quality"] = {
                "time_s": ex[choice]["median_s"],
                "relative_to_best": ex[choice]["median_s"] / ex[best]["median_s"],
                # The same with each config's fastest run: contention only ever adds time.
                "relative_to_best_by_min": ex[choice]["min_s"] / ex[best_min]["min_s"],
            }
    return ranked


def breakdown(rep_results: list[dict]) -> dict[str, float]:
    """Where each tool's time went, median over the repetitions."""
    def med(tool: str, field: str, fn=None) -> float:
        return statistics.median(
            float(fn(r[tool]) if fn else r[tool][field]) for r in rep_results
        )

    return {
        "kt_compile_s": med("kernel_tuner", "compile_s"),
        "kt_benchmark_s": med("kernel_tuner", "benchmark_s"),
        "kt_sampled_device_s": med("kernel_tuner", "sampled_device_s"),
        "kt_runs_per_config": rep_results[0]["kernel_tuner"]["iterations"],
        "kt_other_s": med("kernel_tuner", "", lambda r: r["wall_s"] - r["compile_s"] - r["benchmark_s"]),
        "clm_build_s": med("clmodes", "build_s"),
        "clm_sampled_device_s": med("clmodes", "sampled_device_s"),
        "clm_samples": med("clmodes", "samples_total"),
        "clm_dropped": med("clmodes", "", lambda r: len(r["dropped"])),
        "clm_other_s": med("clmodes", "other_s"),
    }


def summarize(rep_results: list[dict], ranked: dict[str, str], hit: dict[str, object]) -> dict:
    """The headline figures and whether each meets its target."""
    kt_walls = [r["kernel_tuner"]["wall_s"] for r in rep_results]
    clm_walls = [r["clmodes"]["wall_s"] for r in rep_results]
    kt_quality = [r["kernel_tuner"]["quality"]["relative_to_best"] for r in rep_results]
    clm_quality = [r["clmodes"]["quality"]["relative_to_best"] for r in rep_results]
    summary = {
        "breakdown": breakdown(rep_results),
        "kernel_tuner_wall_s": statistics.median(kt_walls),
        "clmodes_wall_s": statistics.median(clm_walls),
        "ratio_clmodes_over_kernel_tuner": statistics.median(clm_walls) / statistics.median(kt_walls),
        "target_clmodes_over_kernel_tuner": 0.5,
        "exhaustive_best": ranked["best"],
        "exhaustive_worst": ranked["worst"],
        "exhaustive_best_by_min": ranked["best_min"],
        # the worst choice over the repetitions, relative to the exhaustive best (median)
        "quality_ratio_kernel_tuner_choice_over_best": max(kt_quality),
        "quality_ratio_clmodes_choice_over_best": max(clm_quality),
        # clmodes deciding on Kernel Tuner's evidence (no final, one warm-up timing)
        "race_only_wall_s": statistics.median(r["race_only"]["wall_s"] for r in rep_results),
        "ratio_race_only_over_kernel_tuner": statistics.median(
            r["race_only"]["wall_s"] for r in rep_results) / statistics.median(kt_walls),
        "quality_ratio_race_only_choice_over_best": max(
            r["race_only"]["quality"]["relative_to_best"] for r in rep_results),
        "quality_target": 1.05,
        "hit_overhead_us": hit["hit_overhead_us"],
        "hit_overhead_target_us": 20.0,
    }
    summary["meets"] = {
        "wall_time": summary["ratio_clmodes_over_kernel_tuner"] <= 0.5,
        "clmodes_quality": summary["quality_ratio_clmodes_choice_over_best"] <= 1.05,
        "kernel_tuner_quality": summary["quality_ratio_kernel_tuner_choice_over_best"] <= 1.05,
        "hit_overhead": summary["hit_overhead_us"] < 20.0,
    }
    return summary


def meta(setup: Setup, kernel_tuner, args: argparse.Namespace, size: Sizes, started: float,
         load_before: tuple[float, float, float]) -> dict[str, object]:
    """How and where the benchmark ran (total_s and the load average are taken now)."""
    return {
        **benchlib.run_meta(setup.client.device,
                            (*benchlib.CACHE_VARIABLES, "CLMODES_CACHE_DIR")),
        "kernel_tuner": getattr(kernel_tuner, "__version__", None) or dist_version("kernel_tuner"),
        "n": size.n,
        "kernel": args.kernel,
        "configs": [config_name(bx, by) for bx, by in itertools.product(BLOCK_X, BLOCK_Y)],
        "race_policy": repr(clmodes.RacePolicy()),  # a string: ci/bench/run collects *ratio*
        "reps": size.reps,
        "exhaustive_rounds": size.ex_rounds,
        "clmodes_setup_s": setup.setup_s,
        "quick": args.quick,
        "smoke": args.smoke,
        "total_s": time.perf_counter() - started,
        "loadavg_before": load_before,
        "loadavg_after": benchlib.loadavg(),
    }


def run_all(setup: Setup, kernel_tuner, args: argparse.Namespace, size: Sizes,
            log: Callable[[str], None]) -> tuple[list[dict], dict, dict[str, str], dict]:
    """The repetitions, the exhaustive re-measurement and the hit overhead, in that order;
    (reps, exhaustive table, ranked configurations, hit overhead)."""
    rep_results = [run_rep(setup, kernel_tuner, args.kernel, rep, log) for rep in range(size.reps)]
    last_clm = rep_results[-1]["clmodes"]
    if last_clm["max_rel_error"] > 1e-4:
        raise RuntimeError(f"clmodes' winner computed a wrong product ({last_clm['max_rel_error']})")
    log("exhaustive re-measurement")
    ex = exhaustive(setup.client, setup.bufs, last_clm["_source"], size.ex_rounds, log)
    ranked = rate_choices(rep_results, ex)
    log("tune-cache hit overhead")
    hit = hit_overhead(setup.client, setup.stream, setup.bufs, last_clm["_tunable"],
                       last_clm["_names"], last_clm["_source"], size.hit_calls,
                       size.hit_rounds, log)
    for rep in rep_results:
        for key in ("_tunable", "_names", "_source"):
            rep["clmodes"].pop(key, None)
            rep["race_only"].pop(key, None)
    return rep_results, ex, ranked, hit


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    log = progress_logger(args.quiet)
    kernel_tuner = kt_harness.import_kernel_tuner("bench_tune")
    if kernel_tuner is None:
        return 2
    if os.environ.get("POCL_KERNEL_CACHE") != "0" or _CACHE_DIR is None:
        log("warning: not run as a script; PoCL's kernel cache or the clmodes store may be warm")
    size = sizes(args)
    started = time.perf_counter()
    load_before = benchlib.loadavg()
    setup = set_up(log, size.n)
    wake_compiler(setup)
    rep_results, ex, ranked, hit = run_all(setup, kernel_tuner, args, size, log)
    summary = summarize(rep_results, ranked, hit)
    results = {
        "meta": meta(setup, kernel_tuner, args, size, started, load_before),
        "summary": summary,
        "reps": rep_results,
        "exhaustive": ex,
        "hit_overhead": hit,
    }
    print(table(results))
    write_json(args.json, results)
    clmodes.default_store().close()
    if _CACHE_DIR is not None:
        shutil.rmtree(_CACHE_DIR, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
