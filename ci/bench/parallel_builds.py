#!/usr/bin/env python
"""Does building a generation's programs in threads beat building them one after another?

    CLMODES_DEVICE=intel python ci/bench/parallel_builds.py [--configs 8] [--threads 2]

Raw pyopencl (no clmodes server): `--configs` random GEMM_SPACE configs, each its own
program from a freshly salted source (no cache can serve it), built and first-launched
(PoCL generates each kernel's work-group code at its first enqueue) serially, then in a
thread pool of `--threads`, then serially again; wall seconds of each pass and the ratio
threads / serial (the serial figure the mean of the two serial passes). pyopencl
releases the GIL during clBuildProgram and enqueue, so threads can overlap what the
runtime does. An answer for item 4 of "Compiling and tuning at the limit", not a
registered benchmark.
"""

from __future__ import annotations

import benchlib

benchlib.cold_caches()

import argparse  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402

import numpy as np  # noqa: E402
import pyopencl as cl  # noqa: E402

import clmodes  # noqa: E402
from kernels_cl.gemm import GEMM, GEMM_SPACE, KERNEL_NAME, geometry  # noqa: E402

_salt = benchlib.salt_counter(900_000)


def one(ctx, queue, config, bufs, n) -> None:
    defines = "".join(f"#define {k} {v}\n" for k, v in config.items())
    program = cl.Program(ctx, f"#define BENCH_SALT {next(_salt)}\n#define DT 32\n{defines}{GEMM}").build()
    kernel = getattr(program, KERNEL_NAME)
    global_size, local_size = geometry(config, n, n)
    i = np.int32
    kernel(queue, global_size, local_size, bufs[2], i(0), bufs[0], i(0), bufs[1], i(0),
           i(n), i(n), i(n)).wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--configs", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--n", type=int, default=64)
    args = parser.parse_args()
    device = clmodes.client().device.cl_device
    ctx = cl.Context([device])
    queues = [cl.CommandQueue(ctx) for _ in range(args.threads)]
    n = args.n
    bufs = [cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 * n * n) for _ in range(3)]
    configs = GEMM_SPACE.sample(random.Random(1), 3 * args.configs)
    passes = [configs[:args.configs], configs[args.configs:2 * args.configs],
              configs[2 * args.configs:]]
    load = os.getloadavg()[0]
    started = time.perf_counter()
    for config in passes[0]:
        one(ctx, queues[0], config, bufs, n)
    serial_a = time.perf_counter() - started
    started = time.perf_counter()
    with ThreadPoolExecutor(args.threads) as pool:
        list(pool.map(lambda ic: one(ctx, queues[ic[0] % args.threads], ic[1], bufs, n),
                      enumerate(passes[1])))
    threaded = time.perf_counter() - started
    started = time.perf_counter()
    for config in passes[2]:
        one(ctx, queues[0], config, bufs, n)
    serial_b = time.perf_counter() - started
    serial = (serial_a + serial_b) / 2
    print(f"{device.platform.name.strip()}: {args.configs} configs built and first-launched: "
          f"serial {serial_a:.1f} / {serial_b:.1f} s, {args.threads} threads {threaded:.1f} s, "
          f"ratio threads/serial {threaded / serial:.2f} (load {load:.2f} -> "
          f"{os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
