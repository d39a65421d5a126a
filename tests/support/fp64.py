"""Can a device's compiler really build double precision? Asked in a child process.

A runtime can announce `cl_khr_fp64` and still abort the process on double code: PyPI's
PoCL 3.0 (LLVM 14) on a CPU it does not name (its device is "pthread-AMD EPYC", so it
targets a generic CPU) dies in LLVM's instruction selection on a `double8` fma ("LLVM
ERROR: Cannot select: i64 = fma", then abort), which took the whole test session with it
at 57%. Not always at the build: a build from source works and fills PoCL's kernel cache
(~/.cache/pocl), and every later build of that source, in any process, aborts; a kernel
built can also abort at its first launch, where PoCL generates the code for the
work-group size. So a check that only builds once passes and poisons the cache for the
test after it. The child here builds, launches and reads back, in two processes one after
the other; the float64 tests run where both compute the right values, and are skipped,
with the compiler's line, where one cannot. Once per device and session."""

from __future__ import annotations

import functools
import subprocess
import sys

import clmodes

CHILD = r"""
import sys, numpy as np, clmodes, pyopencl as cl
device = clmodes.devices()[int(sys.argv[1])]
context = cl.Context([device.cl_device])
queue = cl.CommandQueue(context)
source = '''#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void f(__global double8* a, __global const double8* b) {
    size_t i = get_global_id(0); a[i] = fma(a[i], b[i], b[i]) + sqrt(b[i]); }'''
program = cl.Program(context, source).build()
a = np.ones(64, np.float64)
a_buf = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)
b_buf = cl.Buffer(context, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)
program.f(queue, (8,), None, a_buf, b_buf)
cl.enqueue_copy(queue, a, a_buf)
queue.finish()
print("computed" if np.all(a == 3.0) else f"wrong: {a[:4]}")
"""


@functools.lru_cache(maxsize=None)
def _broken(index: int, label: str) -> str | None:
    for attempt in ("build and run double code",
                    "build and run double code again (from its kernel cache)"):
        out = subprocess.run([sys.executable, "-c", CHILD, str(index)], capture_output=True,
                             text=True, timeout=300)
        if out.returncode != 0 or "computed" not in out.stdout:
            return _why(label, attempt, out)
    return None


def _why(label: str, attempt: str, out: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in out.stderr.splitlines() if "ERROR" in line or "rror" in line]
    return (f"{label} announces cl_khr_fp64 but its compiler cannot {attempt} "
            f"(rc {out.returncode}: {(lines or ['no message'])[0][:160]})")


def fp64_broken(device: clmodes.Device) -> str | None:
    """Why `device` cannot build double code although it announces it (None: it can, or
    it does not announce it: the tests' own checks handle that)."""
    if "cl_khr_fp64" not in device.cl_device.extensions.split():
        return None
    return _broken(device.index, device.label)
