"""Can a device's compiler really build double precision? Asked in a child process.

A runtime can announce `cl_khr_fp64` and still abort the process on double code: PyPI's
PoCL 3.0 (LLVM 14) on a CPU it does not name (its device is "pthread-AMD EPYC", so it
targets a generic CPU) dies in LLVM's instruction selection on a `double8` fma ("LLVM
ERROR: Cannot select: i64 = fma", then abort), which took the whole test session with it
at 57%. The float64 tests run where a child builds such a kernel, and are skipped, with
the compiler's line, where it cannot. Once per device and session."""

from __future__ import annotations

import functools
import subprocess
import sys

import clmodes

CHILD = r"""
import sys, clmodes, pyopencl as cl
device = clmodes.devices()[int(sys.argv[1])]
context = cl.Context([device.cl_device])
source = '''#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void f(__global double8* a, __global const double8* b) {
    size_t i = get_global_id(0); a[i] = fma(a[i], b[i], b[i]) + sqrt(b[i]); }'''
cl.Program(context, source).build()
print("built")
"""


@functools.lru_cache(maxsize=None)
def _broken(index: int, label: str) -> str | None:
    out = subprocess.run([sys.executable, "-c", CHILD, str(index)], capture_output=True,
                         text=True, timeout=300)
    if out.returncode == 0 and "built" in out.stdout:
        return None
    lines = [line for line in out.stderr.splitlines() if "ERROR" in line or "rror" in line]
    return (f"{label} announces cl_khr_fp64 but its compiler cannot build double code "
            f"(rc {out.returncode}: {(lines or ['no message'])[0][:160]})")


def fp64_broken(device: clmodes.Device) -> str | None:
    """Why `device` cannot build double code although it announces it (None: it can, or
    it does not announce it: the tests' own checks handle that)."""
    if "cl_khr_fp64" not in device.cl_device.extensions.split():
        return None
    return _broken(device.index, device.label)
