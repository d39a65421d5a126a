#!/usr/bin/env python
"""Build time of GEMM configs against how many share one build: the generation size.

    CLMODES_DEVICE=portable python ci/bench/bench_gemm_batch.py [--ks 1,2,4,8,16,32] [--separate 4]
        [--json OUT] [--smoke]

Through clmodes, as a tune does it: K configs of `kernels_cl.gemm.GEMM_SPACE` (a seeded
sample, different configs for every K) are launched under COMPILE_ONLY (queued), then
launched for real on a 64x64x64 problem and the queue finished: the time covers
preprocessing, the batched `Program.build`, kernel creation and each kernel's first
enqueue (PoCL generates a kernel's work-group function there; Intel compiles everything
at build). Then `--separate` configs are built one per build (launched without
queueing). Every measurement uses a fresh salt in the source (nothing is reused) and both
caches are off; the store is a temporary one. Printed: K, seconds, seconds per config,
the part until the first launch returned (preprocessing and the batched build) and the
rest (kernels' first enqueues and runs), this process's CPU seconds per config (both
compilers run in-process), and separate over batched CPU seconds per config. Generations trade build time against
measurement: a bigger batch is cheaper per config as long as the per-config figure keeps
falling.
"""

from __future__ import annotations

import benchlib

benchlib.cold_caches()
benchlib.temp_store("clmodes-bench-gemm-batch-")

import random  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import pyopencl.array as cla  # noqa: E402

import clmodes  # noqa: E402
from clmodes import ProcessMode, ProcessModeOverride, StatisticsCollector  # noqa: E402
from kernels_cl import gemm  # noqa: E402

SIZE = 64
_salt = benchlib.salt_counter()


def salted_launch(stream, config, out, a, b, salt):
    """gemm.launch with a salted source: a kernel no earlier build has seen."""
    kernel = clmodes.Kernel(f"/* salt {salt} */\n" + gemm.GEMM, gemm.KERNEL_NAME,
                            {"DT": 32, **config})
    global_size, local_size = gemm.geometry(config, SIZE, SIZE)
    return stream.launch(kernel, global_size, local_size, out.base_data, 0, a.base_data, 0,
                         b.base_data, 0, SIZE, SIZE, SIZE)


def batched(stream, configs, arrays) -> tuple[float, float, float]:
    """(total seconds, seconds until the first launch returned: the batched build, this
    process's CPU seconds: less sensitive to other work on a shared machine)."""
    salt = next(_salt)
    started, cpu = time.perf_counter(), time.process_time()
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY, StatisticsCollector()):
        for config in configs:
            salted_launch(stream, config, *arrays, salt)
    built = None
    for config in configs:
        salted_launch(stream, config, *arrays, salt)
        built = built or time.perf_counter() - started
    stream.finish()
    return time.perf_counter() - started, built, time.process_time() - cpu


def separate(stream, configs, arrays) -> tuple[float, float]:
    started, cpu = time.perf_counter(), time.process_time()
    for config in configs:
        salted_launch(stream, config, *arrays, next(_salt))
    stream.finish()
    return time.perf_counter() - started, time.process_time() - cpu


def main() -> None:
    parser = benchlib.parser(__doc__,
                             smoke_help="seconds: K = 2 and 1 separate (ci/bench/run --smoke)")
    parser.add_argument("--ks", default="1,2,4,8,16,32")
    parser.add_argument("--separate", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.smoke:
        args.ks, args.separate = "2", 1
    load_before = benchlib.loadavg_1min()
    stream = clmodes.client().stream()
    print(f"== {stream.device.label}; load {benchlib.loadavg()}", flush=True)
    arrays = [cla.zeros(stream.queue, (SIZE, SIZE), np.float32) for _ in range(3)]
    rng = random.Random(args.seed)
    separate(stream, gemm.GEMM_SPACE.sample(rng, 1), arrays)  # warm-up: loads the compiler
    ks = [int(k) for k in args.ks.split(",")]
    print(f"{'K':>4} {'batched s':>10} {'s/config':>9} {'build s':>8} {'first launches s':>17} "
          f"{'cpu s/config':>13}", flush=True)
    per_config = {}
    rows = []
    for k in ks:
        seconds, built, cpu = batched(stream, gemm.GEMM_SPACE.sample(rng, k), arrays)
        per_config[k] = cpu / k
        rows.append({"k": k, "seconds": seconds, "build_s": built, "cpu_s_per_config": cpu / k})
        print(f"{k:>4} {seconds:>10.2f} {seconds / k:>9.3f} {built:>8.2f} {seconds - built:>17.2f} "
              f"{cpu / k:>13.3f}", flush=True)
    figures: dict = {"device": stream.device.label, "smoke": args.smoke, "batched": rows}
    if args.separate:
        seconds, cpu = separate(stream, gemm.GEMM_SPACE.sample(rng, args.separate), arrays)
        each = cpu / args.separate
        figures["separate_cpu_s_per_config"] = each
        figures.update({f"cpu_separate_over_batched_k{k}": each / v for k, v in per_config.items()})
        print(f"separate: {args.separate} builds {seconds:.2f} s, {seconds / args.separate:.3f} "
              f"s/config, cpu {each:.3f} s/config; "
              + ", ".join(f"cpu separate/batched at K={k}: {each / v:.2f}" for k, v in per_config.items()))
    print(f"load after {benchlib.loadavg()}")
    figures["load_1min"] = [load_before, benchlib.loadavg_1min()]
    benchlib.write_json(args.json, figures)


if __name__ == "__main__":
    main()
