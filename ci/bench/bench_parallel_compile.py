#!/usr/bin/env python
"""Compiling in parallel: a generation's programs built (and first-launched) in threads
against one after another, on every core the process may use and on one core.

    python ci/bench/bench_parallel_compile.py [--configs 8] [--threads 2] [--n 64]
                                              [--reps 2] [--smoke] [--json OUT]

Raw pyopencl (no clmodes server), on the device $CLMODES_DEVICE names: each pass is
`--configs` random `GEMM_SPACE` configs, each its own program from a freshly salted source
(no cache can serve it), built and launched once (PoCL generates a kernel's work-group
code at its first enqueue, so a build alone leaves that part out), either serially or
from a pool of `--threads` threads (pyopencl releases the GIL in clBuildProgram and in
enqueues, so threads can overlap what the runtime does). Each setting runs in a process
of its own with its CPU affinity set (`os.sched_setaffinity`): all CPUs, then one CPU,
which is what a 1-core machine gives a build (a runtime's own compiler threads
included). Per CPU count, after one untimed build (the compiler's start-up), the passes
alternate serial and threaded, `--reps` of each.

Figures: `ratio_threads_over_serial` per CPU count (median seconds over median seconds:
below 1 means threads help; on one CPU, above 1 means threads would make a 1-core
machine slower). Why it is a benchmark, not a feature: clmodes builds a generation as
one batch program, not one program per config, and whether a runtime's compiler already
uses every core decides the answer; the figures are the evidence for that choice.
"""

from __future__ import annotations

import benchlib

benchlib.cold_caches()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402

SETTINGS = ("serial", "threads")


def parse_args(argv):
    parser = benchlib.parser(__doc__, quiet=True, reps=2, smoke_help="seconds: 2 configs, 1 rep")
    parser.add_argument("--configs", type=int, default=8, help="programs per pass")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--n", type=int, default=64)
    parser.add_argument("--child", metavar="CPUS", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.smoke:
        args.configs, args.reps = 2, 1
    return args


class Passes:
    """Builds and first launches of salted GEMM programs, serially or in threads."""

    def __init__(self, args) -> None:
        import numpy as np
        import pyopencl as cl

        import clmodes
        from kernels_cl.gemm import GEMM, GEMM_SPACE, KERNEL_NAME, geometry

        self.cl, self.np, self.args = cl, np, args
        self.source, self.kernel_name, self.geometry = GEMM, KERNEL_NAME, geometry
        self.device = clmodes.client().device.cl_device
        self.ctx = cl.Context([self.device])
        self.queues = [cl.CommandQueue(self.ctx) for _ in range(args.threads)]
        n = args.n
        self.bufs = [cl.Buffer(self.ctx, cl.mem_flags.READ_WRITE, 4 * n * n) for _ in range(3)]
        self.configs = iter(GEMM_SPACE.sample(random.Random(1), 4 * args.reps * args.configs + 1))
        self.salt = benchlib.salt_counter(900_000)
        self.one(self.queues[0], next(self.configs))  # untimed: the compiler's own start-up

    def one(self, queue, config) -> None:
        defines = "".join(f"#define {k} {v}\n" for k, v in config.items())
        text = f"#define BENCH_SALT {next(self.salt)}\n#define DT 32\n{defines}{self.source}"
        kernel = getattr(self.cl.Program(self.ctx, text).build(), self.kernel_name)
        n, i = self.args.n, self.np.int32
        global_size, local_size = self.geometry(config, n, n)
        kernel(queue, global_size, local_size, self.bufs[2], i(0), self.bufs[0], i(0),
               self.bufs[1], i(0), i(n), i(n), i(n)).wait()

    def run(self, setting: str) -> float:
        batch = [next(self.configs) for _ in range(self.args.configs)]
        started = time.perf_counter()
        if setting == "serial":
            for config in batch:
                self.one(self.queues[0], config)
        else:
            threads = self.args.threads
            with ThreadPoolExecutor(threads) as pool:
                list(pool.map(lambda ic: self.one(self.queues[ic[0] % threads], ic[1]),
                              enumerate(batch)))
        return time.perf_counter() - started


def child(args) -> int:
    """One CPU count: `--reps` passes of each setting, alternating; seconds as JSON."""
    os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:args.child])
    passes = Passes(args)
    seconds = benchlib.rounds(SETTINGS, args.reps, lambda setting, _: passes.run(setting))
    print(json.dumps({"device": passes.device.platform.name.strip(), "seconds": seconds}))
    return 0


def measure(args, cpus: int) -> dict:
    command = [sys.executable, __file__, "--child", str(cpus), "--configs", str(args.configs),
               "--threads", str(args.threads), "--n", str(args.n), "--reps", str(args.reps)]
    found = benchlib.child_json(command, f"bench_parallel_compile: the {cpus}-CPU child")
    medians = benchlib.medians(found["seconds"])
    return {"device": found["device"], "seconds": found["seconds"], "median_s": medians,
            "ratio_threads_over_serial": medians["threads"] / medians["serial"]}


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.child:
        return child(args)
    log = benchlib.progress_logger(args.quiet)
    available = len(os.sched_getaffinity(0))
    results = {"meta": {"configs": args.configs, "threads": args.threads, "n": args.n,
                        "reps": args.reps, "smoke": args.smoke, "cpus": available,
                        "loadavg_before": benchlib.loadavg()}}
    for cpus in sorted({available, 1}, reverse=True):
        figures = measure(args, cpus)
        results[f"cpus_{cpus}"] = figures
        log(f"  {cpus} CPU(s): serial {figures['median_s']['serial']:.2f} s, "
            f"{args.threads} threads {figures['median_s']['threads']:.2f} s")
        results["meta"]["device"] = figures["device"]
    results["meta"]["loadavg_after"] = benchlib.loadavg()
    for cpus in sorted({available, 1}, reverse=True):
        figures = results[f"cpus_{cpus}"]
        print(f"{figures['device']}: {args.configs} programs built and first-launched on "
              f"{cpus} CPU(s): serial {figures['median_s']['serial']:.2f} s, {args.threads} "
              f"threads {figures['median_s']['threads']:.2f} s, ratio threads/serial "
              f"{figures['ratio_threads_over_serial']:.2f}")
    print(f"load {results['meta']['loadavg_before']} -> {results['meta']['loadavg_after']}")
    benchlib.write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
