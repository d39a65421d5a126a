#!/usr/bin/env python
"""Core benchmarks of clmodes, measured side by side in one run on one OpenCL device.

    python ci/bench/bench_core.py [--json OUT] [--quick|--smoke]

1. Cold compile: time to obtain K kernels (one source with helper functions, a file-scope
   macro and a typedef; K variants differing only by defines)
     - batched by clmodes: a COMPILE_ONLY pass launching all K with `stream.launch`, then
       one obtain (a launch under COMPILE_AND_AUTOTUNE) that builds the whole queue in one
       `Program.build`; every kernel is then launched once more under COMPILE_AND_AUTOTUNE
       so that all K are known to be obtained;
     - sequential, pyopencl's usual path: `pyopencl.Program(ctx, src).build(options)` plus
       `pyopencl.Kernel(prg, name)` per kernel, with pyopencl's cache off.
   PoCL's kernel cache is off for both sides (POCL_KERNEL_CACHE=0), and every measurement
   uses sources salted with a fresh `#define CLM_SALT <n>`, so nothing is ever reused;
   clmodes' store ($CLMODES_CACHE_DIR) is a temporary directory, removed at exit.
2. Per-launch overhead of `stream.launch` (EXECUTE) against calling the pyopencl kernel
   directly (`set_scalar_arg_dtypes`, same context, same device, profiling queue):
   interleaved rounds, median per-launch time of the enqueue loops. Measured twice:
   free-running (the device runs the kernels meanwhile; on PoCL its worker threads share
   the host's cores with the enqueue loop, which inflates the slower side most), and host
   side only (a marker waiting on a user event holds each queue during the loop). A
   third side, the floor: `enqueue_nd_range_kernel` of a kernel whose arguments were set
   once before the loop (`ratio_clmodes_over_bare_enqueue`, target <= 1.2x); a fourth,
   the floor of a launch that sets its arguments: `set_args` then the enqueue.
3. Cost of a dropped launch: `stream.launch` of an obtained kernel under
   COMPILE_AND_AUTOTUNE (verdict COMPILE) and under COMPILE_ONLY (verdict QUEUE).

Its run time is in docs/benchmarks.md (`ci/bench/run`); `--smoke` takes seconds.
"""

from __future__ import annotations

import benchlib

# Before pyopencl is imported anywhere: cold builds on both sides (docs/facts.md, Caches), and a
# throw-away clmodes store: measurements stay cold, and their salted kernels never
# clutter the user's real store.
benchlib.cold_caches(force=False)
benchlib.temp_store("clmodes-bench-")

import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import pyopencl as cl  # noqa: E402

import clmodes  # noqa: E402
from benchlib import loadavg_1min, progress_logger, salt_counter, write_json  # noqa: E402
from clmodes import Kernel, ProcessMode, ProcessModeOverride  # noqa: E402
from clmodes.batch.limits import max_units  # noqa: E402
from corpus_compile import plan_seconds, run_corpus  # noqa: E402
from launch_paths import run_launch  # noqa: E402

# -- sources ---------------------------------------------------------------------------

# K variants of this source differ only by VARIANT / ORDER / REPS / SCALE. CLM_SALT makes
# each measurement's sources new (clmodes keys, and PoCL's preprocessed-source cache).
COMPILE_SOURCE = """\
#define CLM_SALT {salt}
#define CLAMP01(x) clamp((x), (real_t)0, (real_t)1)
typedef float real_t;

real_t blend(real_t a, real_t b)
{{
    return a * (real_t)0.75 + b * (real_t)0.25 + (real_t)(CLM_SALT % 2) * (real_t)1e-9;
}}

real_t horner(real_t x)
{{
    real_t acc = (real_t)0;
    for (int k = 0; k < ORDER; ++k)
        acc = acc * x + (real_t)(k + VARIANT);
    return acc;
}}

__kernel void bench(__global real_t *out, __global const real_t *in, int n)
{{
    int i = get_global_id(0);
    if (i >= n)
        return;
    real_t x = in[i];
    for (int r = 0; r < REPS; ++r)
        x = blend(x, horner(x));
    out[i] = CLAMP01(x) * SCALE;
}}
"""


_salts = salt_counter()


def variant_defines(i: int, k: int) -> dict[str, object]:
    return {"VARIANT": i, "ORDER": 2 + i % 5, "REPS": 1 + i % 3, "SCALE": f"{1 + i / k:.6f}f"}


def define_options(defines: dict[str, object]) -> list[str]:
    return [f"-D{name}={value}" for name, value in defines.items()]


# -- 1. cold compile -------------------------------------------------------------------


class CompileBench:
    def __init__(self, client: clmodes.Client) -> None:
        self.client = client
        self.stream = client.stream("bench-compile")
        self.ctx = client.context
        self.device = client.device.cl_device
        # pyopencl's side builds on a context of its own: on a context clmodes manages,
        # Program.build goes through clmodes (`clmodes.pyopencl_hooks`).
        self.plain = cl.Context([self.device])
        n = 64
        self.n = np.int32(n)
        mf = cl.mem_flags
        self.out = cl.Buffer(self.ctx, mf.READ_WRITE, 4 * n)
        self.inp = cl.Buffer(self.ctx, mf.READ_ONLY, 4 * n)

    def batched(self, indices: list[int], k: int) -> float:
        """Seconds for clmodes to obtain the variants `indices` (fresh salt) in one batch."""
        salt = next(_salts)
        collector = clmodes.StatisticsCollector()
        started = time.perf_counter()
        source = COMPILE_SOURCE.format(salt=salt)
        kernels = [Kernel(source, "bench", defines=variant_defines(i, k)) for i in indices]
        with ProcessModeOverride(ProcessMode.COMPILE_ONLY, collector):
            for kernel in kernels:
                self.stream.launch(kernel, 64, None, self.out, self.inp, self.n)
        with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, collector):
            for kernel in kernels:  # the first builds the whole queue; the rest find theirs
                self.stream.launch(kernel, 64, None, self.out, self.inp, self.n)
        elapsed = time.perf_counter() - started
        stats = clmodes.StatisticsReader(collector).statistics().compilation
        server = self.client.server
        if not all(server.is_obtained(kernel) for kernel in kernels):
            raise RuntimeError("batched side: not every kernel was obtained")
        expected = -(-len(indices) // max_units(self.client.device.platform_name))
        if stats.builds != expected or stats.compiled != len(indices):
            raise RuntimeError(
                f"batched side: expected {expected} builds of {len(indices)} kernels, got {stats}"
            )
        return elapsed

    def preprocessing(self, k: int) -> float:
        """Seconds `batch.plan` takes to prepare K variants of a new source (cold caches)."""
        source = COMPILE_SOURCE.format(salt=next(_salts))
        return plan_seconds(self.client, [Kernel(source, "bench", defines=variant_defines(i, k))
                                          for i in range(k)])

    def sequential(self, indices: list[int], k: int) -> float:
        """Seconds for one pyopencl Program.build (+ Kernel) per variant (fresh salt)."""
        salt = next(_salts)
        started = time.perf_counter()
        source = COMPILE_SOURCE.format(salt=salt)
        built = []
        for i in indices:
            program = cl.Program(self.plain, source).build(
                options=define_options(variant_defines(i, k)), devices=[self.device]
            )
            built.append(cl.Kernel(program, "bench"))
        elapsed = time.perf_counter() - started
        if len(built) != len(indices):
            raise RuntimeError("sequential side: missing kernels")
        return elapsed


def sequential_indices(k: int, subset: int, per_kernel_estimate: float | None,
                       seq_limit_s: float) -> tuple[list[int], bool]:
    """The variants the sequential side builds, and whether its time is extrapolated
    (when its estimate is over seq_limit_s: every (k // subset)-th variant, so the subset
    spans the define values)."""
    estimate = None if per_kernel_estimate is None else per_kernel_estimate * k
    if estimate is not None and estimate > seq_limit_s:
        return list(range(0, k, max(1, k // subset)))[:subset], True
    return list(range(k)), False


def compile_runs(bench: CompileBench, k: int, indices: list[int], extrapolated: bool,
                 batched_reps: int, seq_reps: int, log) -> tuple[list[float], list[float]]:
    """(batched runs, sequential runs) for K; sides alternate: batched, sequential,
    batched, sequential, ..., batched."""
    batched_times = [bench.batched(list(range(k)), k)]
    log(f"  K={k}: batched {batched_times[-1]:.3f} s")
    seq_times: list[float] = []
    for rep in range(max(batched_reps - 1, seq_reps)):
        if rep < seq_reps:
            seq_times.append(bench.sequential(indices, k))
            log(f"  K={k}: sequential {seq_times[-1]:.2f} s for {len(indices)} kernels"
                + (" (to extrapolate)" if extrapolated else ""))
        if len(batched_times) < batched_reps:
            batched_times.append(bench.batched(list(range(k)), k))
            log(f"  K={k}: batched {batched_times[-1]:.3f} s")
    return batched_times, seq_times


def compile_row(k: int, indices: list[int], extrapolated: bool, batched_times: list[float],
                seq_times: list[float], preprocess: float) -> dict[str, object]:
    measured = statistics.median(seq_times)
    sequential = measured * k / len(indices)
    batched = statistics.median(batched_times)
    return {
        "preprocess_s": preprocess,
        "fraction_preprocess_of_batched": preprocess / batched,
        "kernels": k,
        "sequential_s": sequential,
        "sequential_extrapolated": extrapolated,
        "sequential_measured_kernels": len(indices),
        "sequential_measured_s": measured,
        "sequential_runs_s": seq_times,
        "sequential_per_kernel_s": measured / len(indices),
        "batched_s": batched,
        "batched_runs_s": batched_times,
        "batched_per_kernel_s": batched / k,
        "ratio_sequential_over_batched": sequential / batched,
    }


def run_compile(bench: CompileBench, ks: list[int], batched_reps: int, seq_reps: dict[int, int],
                seq_limit_s: float, subset: int, log) -> dict[str, dict[str, object]]:
    # Warm both paths up (LLVM start-up, first-build costs) on throw-away salts.
    bench.batched([0, 1], 2)
    bench.sequential([0], 2)
    per_kernel_estimate: float | None = None
    results: dict[str, dict[str, object]] = {}
    for k in ks:
        indices, extrapolated = sequential_indices(k, subset, per_kernel_estimate, seq_limit_s)
        batched_times, seq_times = compile_runs(bench, k, indices, extrapolated,
                                                batched_reps, seq_reps.get(k, 1), log)
        # The next K's sequential side is estimated from the slowest run so far (a loaded
        # machine must not push the benchmark far past its time budget).
        slowest = max(seq_times) / len(indices)
        per_kernel_estimate = max(per_kernel_estimate or 0.0, slowest)
        results[str(k)] = compile_row(k, indices, extrapolated, batched_times, seq_times,
                                      bench.preprocessing(k))
    return results


# -- report ----------------------------------------------------------------------------


def table_header(meta: dict) -> list[str]:
    return [
        f"clmodes core benchmark on {meta['device']}",
        f"POCL_KERNEL_CACHE={meta['env']['POCL_KERNEL_CACHE']} "
        f"PYOPENCL_NO_CACHE={meta['env']['PYOPENCL_NO_CACHE']}  "
        f"pyopencl {meta['pyopencl']}  clmodes {meta['clmodes']}  "
        f"python {meta['python']}  cpus {meta['cpus']}",
        "",
    ]


def table_compile(compile_results: dict) -> list[str]:
    lines = ["1. Cold compile, time to obtain K kernels (one source, K define variants)"]
    header = f"  {'K':>5}  {'sequential s':>14}  {'batched s':>10}  {'seq/batched':>11}  note"
    lines += [header, "  " + "-" * (len(header) - 2)]
    for k, row in compile_results.items():
        note = "target >= 10x" if k == "32" else ""
        if row["sequential_extrapolated"]:
            note = (note + "; " if note else "") + (
                f"sequential EXTRAPOLATED from {row['sequential_measured_kernels']} kernels "
                f"({row['sequential_measured_s']:.2f} s)"
            )
        lines.append(
            f"  {k:>5}  {row['sequential_s']:>14.2f}  {row['batched_s']:>10.3f}  "
            f"{row['ratio_sequential_over_batched']:>10.1f}x  {note}"
        )
    lines.append("  sequential: pyopencl.Program(ctx, src).build(-D...) + Kernel, one per kernel")
    lines.append("  batched: COMPILE_ONLY pass of stream.launch, then one obtain (builds of at most"
                 " the runtime's batch size, back to back); batched = median of runs")
    lines.append("  (neither side includes PoCL's per-kernel code generation at the first enqueue)")
    for k, row in compile_results.items():
        lines.append(f"  K={k}: preprocessing {row['preprocess_s'] * 1000:.1f} ms = "
                     f"{row['fraction_preprocess_of_batched']:.1%} of the batched time")
    lines.append("")
    return lines


def table_corpus(corpus: dict) -> list[str]:
    lines = ["1b. Cold compile of the batching corpus (tests/corpus), per group"]
    lines.append(f"  {'group':<14} {'kernels':>7} {'separate s':>10} {'batched s':>9} "
                 f"{'builds':>6} {'sep/batched':>11} {'preprocess':>10}")
    for name, row in corpus.items():
        lines.append(
            f"  {name:<14} {row['kernels']:>7} {row['separate_s']:>10.2f} {row['batched_s']:>9.2f} "
            f"{row['builds']:>6} {row['ratio_separate_over_batched']:>10.2f}x "
            f"{row['fraction_preprocess_of_batched']:>10.1%}")
    return lines


def table_sides(side: dict, target: str, note: str) -> list[str]:
    return [
        f"  {'  stream.launch (clmodes)':<36} {side['clmodes_us']:>9.2f} us",
        f"  {'  pyopencl kernel call':<36} {side['pyopencl_us']:>9.2f} us",
        f"  {'  ratio clmodes / pyopencl':<36} {side['ratio_clmodes_over_pyopencl']:>9.2f} x"
        f"   ({target}median of per-round ratios {side['ratio_paired_median']:.2f} x{note})",
        f"  {'  bare enqueue, arguments preset':<36} {side['bare_enqueue_us']:>9.2f} us",
        f"  {'  ratio clmodes / bare enqueue':<36} {side['ratio_clmodes_over_bare_enqueue']:>9.2f} x"
        "   (target <= 1.2x)",
        f"  {'  set_args + enqueue':<36} {side['set_args_enqueue_us']:>9.2f} us",
        f"  {'  ratio clmodes / set_args + enqueue':<36} {side['ratio_clmodes_over_set_args_enqueue']:>9.2f} x",
    ]


def table_launch(launch: dict, dropped: dict) -> list[str]:
    lines = ["", f"2. Per-launch overhead, EXECUTE, {launch['global_size']} work items, "
             f"{launch['launches_per_side']} launches per side in {launch['rounds']} "
             "interleaved rounds, median"]
    lines.append("  free-running (device executes meanwhile, sharing the host's cores):")
    lines += table_sides(launch, "target <= 1.3x; ", "")
    host = launch["host_side"]
    lines.append("  host side only (queue held by a user event during the loop, device idle):")
    lines += table_sides(host, "", f"; clmodes adds {host['clmodes_added_us']:.2f} us")
    lines.append("")
    lines.append(f"3. Dropped launch of an obtained kernel ({dropped['calls_per_mode']} calls per mode)")
    lines.append(f"  {'COMPILE_AND_AUTOTUNE (verdict COMPILE)':<40} {dropped['compile_verdict_us']:>7.3f} us")
    lines.append(f"  {'COMPILE_ONLY (verdict QUEUE)':<40} {dropped['queue_verdict_us']:>7.3f} us")
    lines.append("")
    return lines


def table(results: dict[str, object]) -> str:
    meta = results["meta"]
    lines = table_header(meta) + table_compile(results["compile"])
    lines += table_corpus(results["corpus"])
    lines += table_launch(results["launch"], results["dropped"])
    load = benchlib.load_text(meta["loadavg_1min_before"], meta["loadavg_1min_after"])
    lines.append(f"total benchmark time {meta['total_s']:.1f} s{load}")
    return "\n".join(lines)


def parse_args(argv: list[str] | None):
    parser = benchlib.parser(__doc__, quick_help="small sizes", quiet=True,
                             smoke_help="seconds: K = 2, one corpus group, few launches "
                                        "(ci/bench/run --smoke)")
    parser.add_argument("--seq-limit", type=float, default=60.0, metavar="S",
                        help="extrapolate a sequential side estimated over S seconds (default 60)")
    return parser.parse_args(argv)


def measure(client: clmodes.Client, quick: bool, seq_limit: float, log,
            smoke: bool = False) -> dict[str, object]:
    """Parts 1, 1b, 2 and 3 at the --smoke, --quick or full sizes."""
    groups = None
    if smoke:
        ks, batched_reps, seq_reps, subset = [2], 1, {2: 1}, 2
        launches, rounds, dropped_calls, groups = 500, 2, 2000, 1
    elif quick:
        ks, batched_reps, seq_reps, subset = [4, 8], 2, {4: 2, 8: 1}, 4
        launches, rounds, dropped_calls = 2000, 4, 20000
    else:
        ks, batched_reps, seq_reps, subset = [32, 128], 3, {32: 2, 128: 1}, 32
        launches, rounds, dropped_calls = 20000, 40, 200000
    log("1. cold compile")
    compile_results = run_compile(
        CompileBench(client), ks, batched_reps, seq_reps, seq_limit, subset, log
    )
    log("1b. cold compile of the batching corpus")
    corpus_results = run_corpus(client, 1 if quick or smoke else 2, log, groups)
    log("2./3. launch paths")
    launch_result, dropped_result = run_launch(client, launches, rounds, dropped_calls, log)
    return {"compile": compile_results, "corpus": corpus_results,
            "launch": launch_result, "dropped": dropped_result}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    log = progress_logger(args.quiet)
    started = time.perf_counter()
    load_before = benchlib.warn_if_loaded(log)
    client = clmodes.client()
    log(f"device: {client.device.label}")
    figures = measure(client, args.quick, args.seq_limit, log, args.smoke)
    results = {
        "meta": {
            **benchlib.run_meta(client.device),
            "quick": args.quick,
            "smoke": args.smoke,
            "total_s": time.perf_counter() - started,
            "loadavg_1min_before": load_before,
            "loadavg_1min_after": loadavg_1min(),
        },
        **figures,
    }
    print(table(results))
    write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
