#!/usr/bin/env python
"""Core benchmarks of clmodes, measured side by side in one run on one OpenCL device.

    python ci/bench/bench_core.py [--json OUT] [--quick]

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
   side only (a marker waiting on a user event holds each queue during the loop).
3. Cost of a dropped launch: `stream.launch` of an obtained kernel under
   COMPILE_AND_AUTOTUNE (verdict COMPILE) and under COMPILE_ONLY (verdict QUEUE).

Keeps to ~3 minutes on a 2-core machine with PoCL.
"""

from __future__ import annotations

import os

# Before pyopencl is imported anywhere: cold builds on both sides (DESIGN §4).
os.environ.setdefault("POCL_KERNEL_CACHE", "0")
os.environ.setdefault("PYOPENCL_NO_CACHE", "1")
# A throw-away clmodes store: measurements stay cold, and their salted kernels never
# clutter the user's real store.
import atexit  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402

_STORE_DIR = tempfile.mkdtemp(prefix="clmodes-bench-")
os.environ["CLMODES_CACHE_DIR"] = _STORE_DIR
atexit.register(shutil.rmtree, _STORE_DIR, ignore_errors=True)

import argparse  # noqa: E402
import gc  # noqa: E402
import itertools  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import pyopencl as cl  # noqa: E402

import clmodes  # noqa: E402
from benchlib import timed, write_json  # noqa: E402
from clmodes import Kernel, ProcessMode, ProcessModeOverride  # noqa: E402
from clmodes.batch import plan  # noqa: E402
from clmodes.batch.limits import max_units  # noqa: E402
from corpus_compile import run_corpus  # noqa: E402

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

TINY_SOURCE = """\
#define CLM_SALT {salt}
__kernel void tiny(__global float *buf, int n)
{{
    int i = get_global_id(0);
    if (i < n)
        buf[i] += 1.0f + (float)(CLM_SALT % 2) * 1e-9f;
}}
"""

_salts = itertools.count(int(time.time() * 1000) % 1_000_000_000)


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
        kernels = [Kernel(source, "bench", defines=variant_defines(i, k)) for i in range(k)]
        started = time.perf_counter()
        plan(kernels, self.client.server.macros_for, max_units(self.client.device.platform_name))
        return time.perf_counter() - started

    def sequential(self, indices: list[int], k: int) -> float:
        """Seconds for one pyopencl Program.build (+ Kernel) per variant (fresh salt)."""
        salt = next(_salts)
        started = time.perf_counter()
        source = COMPILE_SOURCE.format(salt=salt)
        built = []
        for i in indices:
            program = cl.Program(self.ctx, source).build(
                options=define_options(variant_defines(i, k)), devices=[self.device]
            )
            built.append(cl.Kernel(program, "bench"))
        elapsed = time.perf_counter() - started
        if len(built) != len(indices):
            raise RuntimeError("sequential side: missing kernels")
        return elapsed


def run_compile(bench: CompileBench, ks: list[int], batched_reps: int, seq_reps: dict[int, int],
                seq_limit_s: float, subset: int, log) -> dict[str, dict[str, object]]:
    # Warm both paths up (LLVM start-up, first-build costs) on throw-away salts.
    bench.batched([0, 1], 2)
    bench.sequential([0], 2)

    per_kernel_estimate: float | None = None
    results: dict[str, dict[str, object]] = {}
    for k in ks:
        batched_times: list[float] = []
        batched_times.append(bench.batched(list(range(k)), k))
        log(f"  K={k}: batched {batched_times[-1]:.3f} s")

        estimate = None if per_kernel_estimate is None else per_kernel_estimate * k
        extrapolated = estimate is not None and estimate > seq_limit_s
        if extrapolated:
            # Every (k // subset)-th variant, so the subset spans the define values.
            indices = list(range(0, k, max(1, k // subset)))[:subset]
        else:
            indices = list(range(k))
        seq_times: list[float] = []
        # Alternate sides: batched, sequential, batched, sequential, ..., batched.
        for rep in range(max(batched_reps - 1, seq_reps.get(k, 1))):
            if rep < seq_reps.get(k, 1):
                seq_times.append(bench.sequential(indices, k))
                log(f"  K={k}: sequential {seq_times[-1]:.2f} s for {len(indices)} kernels"
                    + (" (to extrapolate)" if extrapolated else ""))
            if len(batched_times) < batched_reps:
                batched_times.append(bench.batched(list(range(k)), k))
                log(f"  K={k}: batched {batched_times[-1]:.3f} s")
        measured = statistics.median(seq_times)
        sequential = measured * k / len(indices)
        # The next K's sequential side is estimated from the slowest run so far (a loaded
        # machine must not push the benchmark far past its time budget).
        slowest = max(seq_times) / len(indices)
        per_kernel_estimate = max(per_kernel_estimate or 0.0, slowest)

        batched = statistics.median(batched_times)
        preprocess = bench.preprocessing(k)
        results[str(k)] = {
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
    return results


# -- 2. and 3. launch paths ------------------------------------------------------------




def run_launch(client: clmodes.Client, launches: int, rounds: int, dropped_calls: int,
               log) -> tuple[dict[str, object], dict[str, object]]:
    ctx = client.context
    device = client.device.cl_device
    stream = client.stream("bench-launch")
    gsize = (64,)
    n = np.int32(64)
    mf = cl.mem_flags
    buf_clm = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(64, np.float32))
    buf_pcl = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(64, np.float32))

    source = TINY_SOURCE.format(salt=next(_salts))
    kernel = Kernel(source, "tiny")
    queue = cl.CommandQueue(ctx, device, properties=cl.command_queue_properties.PROFILING_ENABLE)
    knl = cl.Kernel(cl.Program(ctx, source).build(devices=[device]), "tiny")
    knl.set_scalar_arg_dtypes([None, np.int32])

    launch = stream.launch

    def clm(count: int) -> None:
        for _ in range(count):
            launch(kernel, gsize, None, buf_clm, n)

    def direct(count: int) -> None:
        for _ in range(count):
            knl(queue, gsize, None, buf_pcl, n)

    # Warm-up: obtain/build, PoCL's work-group function generation at first enqueue.
    if process_mode_name() != "EXECUTE":
        raise RuntimeError("launch benchmark must run under EXECUTE")
    if launch(kernel, gsize, None, buf_clm, n) is None:
        raise RuntimeError("EXECUTE launch was dropped")
    direct(1)
    stream.finish()
    queue.finish()
    clm(200)
    direct(200)
    stream.finish()
    queue.finish()

    per_round = max(1, launches // rounds)

    def measure(gated: bool) -> tuple[list[float], list[float]]:
        """Per-launch seconds of each round, sides alternating first.

        Free-running: the device executes while the loop enqueues (on PoCL its worker
        threads share the host's cores with the loop). Gated: a marker waiting on a user
        event holds the queue, so the loop times the host-side enqueue path alone.
        """
        clm_times: list[float] = []
        pcl_times: list[float] = []
        for r in range(rounds):
            order = ((clm, stream.queue, clm_times), (direct, queue, pcl_times))
            if r % 2:
                order = order[::-1]
            for fn, q, out in order:
                gate = None
                if gated:
                    gate = cl.UserEvent(ctx)
                    cl.enqueue_marker(q, wait_for=[gate])
                out.append(timed(fn, per_round))
                if gate is not None:
                    gate.set_status(cl.command_execution_status.COMPLETE)
                q.finish()
            gc.collect()
        return clm_times, pcl_times

    clm_times, pcl_times = measure(gated=False)
    gated_clm_times, gated_pcl_times = measure(gated=True)
    # Both sides incremented their buffer once per launch: every launch really ran.
    expected = 1 + 200 + 2 * per_round * rounds
    got_clm = np.empty(64, np.float32)
    got_pcl = np.empty(64, np.float32)
    cl.enqueue_copy(stream.queue, got_clm, buf_clm)
    cl.enqueue_copy(queue, got_pcl, buf_pcl)
    stream.finish()
    queue.finish()
    if not (np.allclose(got_clm, expected) and np.allclose(got_pcl, expected)):
        raise RuntimeError(f"launch check failed: {got_clm[0]}, {got_pcl[0]} != {expected}")

    clm_us = statistics.median(clm_times) * 1e6
    pcl_us = statistics.median(pcl_times) * 1e6
    gated_clm_us = statistics.median(gated_clm_times) * 1e6
    gated_pcl_us = statistics.median(gated_pcl_times) * 1e6
    log(f"  launch: clmodes {clm_us:.2f} us, pyopencl {pcl_us:.2f} us "
        f"(host side only: {gated_clm_us:.2f} us, {gated_pcl_us:.2f} us)")
    launch_result = {
        "global_size": gsize[0],
        "launches_per_side": per_round * rounds,
        "rounds": rounds,
        "clmodes_us": clm_us,
        "pyopencl_us": pcl_us,
        "ratio_clmodes_over_pyopencl": clm_us / pcl_us,
        "ratio_paired_median": statistics.median(a / b for a, b in zip(clm_times, pcl_times)),
        "clmodes_rounds_us": [t * 1e6 for t in clm_times],
        "pyopencl_rounds_us": [t * 1e6 for t in pcl_times],
        "host_side": {
            "method": "queue held by a marker waiting on a user event while the loop enqueues",
            "clmodes_us": gated_clm_us,
            "pyopencl_us": gated_pcl_us,
            "ratio_clmodes_over_pyopencl": gated_clm_us / gated_pcl_us,
            "ratio_paired_median": statistics.median(
                a / b for a, b in zip(gated_clm_times, gated_pcl_times)
            ),
            "clmodes_added_us": gated_clm_us - gated_pcl_us,
            "clmodes_rounds_us": [t * 1e6 for t in gated_clm_times],
            "pyopencl_rounds_us": [t * 1e6 for t in gated_pcl_times],
        },
    }

    # 3. Dropped launches of the (already obtained) tiny kernel.
    def dropped(count: int) -> None:
        for _ in range(count):
            launch(kernel, gsize, None, buf_clm, n)

    def check_dropped(mode: ProcessMode) -> None:
        with ProcessModeOverride(mode):
            if launch(kernel, gsize, None, buf_clm, n) is not None:
                raise RuntimeError(f"launch under {mode.name} was not dropped")

    check_dropped(ProcessMode.COMPILE_AND_AUTOTUNE)
    check_dropped(ProcessMode.COMPILE_ONLY)
    dropped_rounds = 10
    per_dropped_round = max(1, dropped_calls // dropped_rounds)
    compile_times: list[float] = []
    queue_times: list[float] = []
    for r in range(dropped_rounds):
        order = ((ProcessMode.COMPILE_AND_AUTOTUNE, compile_times),
                 (ProcessMode.COMPILE_ONLY, queue_times))
        if r % 2:
            order = order[::-1]
        for mode, out in order:
            with ProcessModeOverride(mode):
                out.append(timed(dropped, per_dropped_round))
    if client.server.queued():
        raise RuntimeError("a QUEUE verdict for an obtained kernel queued it again")
    compile_us = statistics.median(compile_times) * 1e6
    queue_us = statistics.median(queue_times) * 1e6
    log(f"  dropped: COMPILE {compile_us:.3f} us, QUEUE {queue_us:.3f} us")
    dropped_result = {
        "calls_per_mode": per_dropped_round * dropped_rounds,
        "compile_verdict_us": compile_us,
        "queue_verdict_us": queue_us,
        "compile_verdict_rounds_us": [t * 1e6 for t in compile_times],
        "queue_verdict_rounds_us": [t * 1e6 for t in queue_times],
        "relative_to_execute_launch_clmodes": {
            "compile_verdict": compile_us / clm_us,
            "queue_verdict": queue_us / clm_us,
        },
    }
    return launch_result, dropped_result


def _loadavg() -> float | None:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def process_mode_name() -> str:
    return clmodes.process_mode().name


# -- report ----------------------------------------------------------------------------


def table(results: dict[str, object]) -> str:
    lines = []
    meta = results["meta"]
    lines.append(f"clmodes core benchmark on {meta['device']}")
    lines.append(
        f"POCL_KERNEL_CACHE={meta['env']['POCL_KERNEL_CACHE']} "
        f"PYOPENCL_NO_CACHE={meta['env']['PYOPENCL_NO_CACHE']}  "
        f"pyopencl {meta['pyopencl']}  clmodes {meta['clmodes']}  "
        f"python {meta['python']}  cpus {meta['cpus']}"
    )
    lines.append("")
    lines.append("1. Cold compile, time to obtain K kernels (one source, K define variants)")
    header = f"  {'K':>5}  {'sequential s':>14}  {'batched s':>10}  {'seq/batched':>11}  note"
    lines.append(header)
    lines.append("  " + "-" * (len(header) - 2))
    for k, row in results["compile"].items():
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
    for k, row in results["compile"].items():
        lines.append(f"  K={k}: preprocessing {row['preprocess_s'] * 1000:.1f} ms = "
                     f"{row['fraction_preprocess_of_batched']:.1%} of the batched time")
    lines.append("")
    lines.append("1b. Cold compile of the batching corpus (tests/corpus), per group")
    header = (f"  {'group':<14} {'kernels':>7} {'separate s':>10} {'batched s':>9} {'builds':>6} "
              f"{'sep/batched':>11} {'preprocess':>10}")
    lines.append(header)
    for name, row in results["corpus"].items():
        lines.append(
            f"  {name:<14} {row['kernels']:>7} {row['separate_s']:>10.2f} {row['batched_s']:>9.2f} "
            f"{row['builds']:>6} {row['ratio_separate_over_batched']:>10.2f}x "
            f"{row['fraction_preprocess_of_batched']:>10.1%}")
    launch = results["launch"]
    lines.append("")
    lines.append(
        f"2. Per-launch overhead, EXECUTE, {launch['global_size']} work items, "
        f"{launch['launches_per_side']} launches per side in {launch['rounds']} interleaved rounds,"
        " median"
    )
    lines.append("  free-running (device executes meanwhile, sharing the host's cores):")
    lines.append(f"  {'  stream.launch (clmodes)':<36} {launch['clmodes_us']:>9.2f} us")
    lines.append(f"  {'  pyopencl kernel call':<36} {launch['pyopencl_us']:>9.2f} us")
    lines.append(
        f"  {'  ratio clmodes / pyopencl':<36} {launch['ratio_clmodes_over_pyopencl']:>9.2f} x"
        f"   (target <= 1.3x; median of per-round ratios {launch['ratio_paired_median']:.2f} x)"
    )
    host = launch["host_side"]
    lines.append("  host side only (queue held by a user event during the loop, device idle):")
    lines.append(f"  {'  stream.launch (clmodes)':<36} {host['clmodes_us']:>9.2f} us")
    lines.append(f"  {'  pyopencl kernel call':<36} {host['pyopencl_us']:>9.2f} us")
    lines.append(
        f"  {'  ratio clmodes / pyopencl':<36} {host['ratio_clmodes_over_pyopencl']:>9.2f} x"
        f"   (median of per-round ratios {host['ratio_paired_median']:.2f} x;"
        f" clmodes adds {host['clmodes_added_us']:.2f} us)"
    )
    dropped = results["dropped"]
    lines.append("")
    lines.append(f"3. Dropped launch of an obtained kernel ({dropped['calls_per_mode']} calls per mode)")
    lines.append(f"  {'COMPILE_AND_AUTOTUNE (verdict COMPILE)':<40} {dropped['compile_verdict_us']:>7.3f} us")
    lines.append(f"  {'COMPILE_ONLY (verdict QUEUE)':<40} {dropped['queue_verdict_us']:>7.3f} us")
    lines.append("")
    load = [meta["loadavg_1min_before"], meta["loadavg_1min_after"]]
    load_text = "" if None in load else f" (1-min load average {load[0]:.2f} before, {load[1]:.2f} after)"
    lines.append(f"total benchmark time {meta['total_s']:.1f} s{load_text}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", metavar="OUT", help="write every figure as a JSON dict to OUT")
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    parser.add_argument("--seq-limit", type=float, default=60.0, metavar="S",
                        help="extrapolate a sequential side estimated over S seconds (default 60)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    args = parser.parse_args(argv)

    def log(message: str) -> None:
        if not args.quiet:
            print(message, file=sys.stderr, flush=True)

    if args.quick:
        ks, batched_reps, seq_reps, subset = [4, 8], 2, {4: 2, 8: 1}, 4
        launches, rounds, dropped_calls = 2000, 4, 20000
    else:
        ks, batched_reps, seq_reps, subset = [32, 128], 3, {32: 2, 128: 1}, 32
        launches, rounds, dropped_calls = 20000, 40, 200000

    started = time.perf_counter()
    load_before = _loadavg()
    if load_before is not None and load_before > 0.5:
        log(f"warning: load average {load_before:.2f} before starting: other work on this "
            "machine will add noise (launch figures most)")
    client = clmodes.client()
    log(f"device: {client.device.label}")
    log("1. cold compile")
    compile_results = run_compile(
        CompileBench(client), ks, batched_reps, seq_reps, args.seq_limit, subset, log
    )
    log("1b. cold compile of the batching corpus")
    corpus_results = run_corpus(client, 1 if args.quick else 2, log)
    log("2./3. launch paths")
    launch_result, dropped_result = run_launch(client, launches, rounds, dropped_calls, log)

    results = {
        "meta": {
            "device": client.device.label,
            "fingerprint": client.device.fingerprint.exact,
            "env": {name: os.environ.get(name) for name in ("POCL_KERNEL_CACHE", "PYOPENCL_NO_CACHE")},
            "pyopencl": cl.VERSION_TEXT,
            "clmodes": clmodes.__version__,
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "quick": args.quick,
            "total_s": time.perf_counter() - started,
            "loadavg_1min_before": load_before,
            "loadavg_1min_after": _loadavg(),
        },
        "compile": compile_results,
        "corpus": corpus_results,
        "launch": launch_result,
        "dropped": dropped_result,
    }
    print(table(results))
    write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
