"""A buffer too small for what every work-item of a launch indexes is refused in one line.

Four floats as the output of a 1024-item launch of `out[get_global_id(0)] = ...` made
PoCL write past the buffer and abort (heap corruption, SIGABRT) or crash (SIGSEGV), and
Intel's runtime crash too. Each case runs in a fresh process: a regression kills that
process, not pytest. A kernel that guards its index (`if (i < n)`) keeps every size it
had: the rule (docs/decisions/launch-checks.md) refuses only what the source makes
certain."""

import json

import pytest

from support.subprocesses import run_python

SHORT_BUFFERS = """
import json
import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import clmodes
client = clmodes.client(DEVICE)
stream = client.stream("short")
fill = clmodes.Kernel("__kernel void fill(__global float *out)"
                      "{ out[get_global_id(0)] = 1.0f; }", "fill")
add = clmodes.Kernel("__kernel void add(__global float4 *out, __global const float4 *a, int n)"
                     "{ const int i = get_global_id(0); out[i] = a[i] * (float)n; }", "add")
guarded = clmodes.Kernel("__kernel void guarded(__global float *out, int n)"
                         "{ int i = get_global_id(0); if (i < n) out[i] = 2.0f; }", "guarded")
mf = cl.mem_flags

def launch(kernel, items, *args):
    try:
        stream.launch(kernel, items, None, *args)
        stream.finish()
        return "ran"
    except clmodes.KernelLaunchError as error:
        return str(error)

def buffer(nbytes):
    return cl.Buffer(client.context, mf.READ_WRITE, nbytes)

small = cla.zeros(stream.queue, 4, np.float32)
big = cla.zeros(stream.queue, 1024, np.float32)
plain = buffer(16)
results = {
    "array fits": launch(fill, 4, small),
    "array short": launch(fill, 1024, small),
    "buffer short": launch(fill, 1024, plain),
    "buffer fits": launch(fill, 4, plain),
    "buffer short again": launch(fill, 1024, plain),
    "view at an offset short": launch(fill, 1024, big[512:]),
    "view at an offset fits": launch(fill, 512, big[512:]),
    "whole buffer under a view at 0": launch(fill, 1024, big[:4]),
    "second argument short": launch(add, 64, buffer(64 * 16), buffer(16 * 16), 2),
    "two-dimensional": launch(fill, (4, 8), small),
    "guarded": launch(guarded, 1024, small, 4),
    "big": launch(fill, 1024, big),
}
print(json.dumps(results))
"""


@pytest.mark.oclgrind
def test_short_buffers_are_refused_in_one_line_and_the_process_survives(client):
    label = client.device.label
    out = run_python(SHORT_BUFFERS.replace("DEVICE", repr(label)))
    assert out.returncode == 0, out.stderr[-2000:]  # -6/-11: the runtime wrote past a buffer
    results = json.loads(out.stdout.strip().splitlines()[-1])
    for case in ("array fits", "buffer fits", "view at an offset fits",
                 "whole buffer under a view at 0", "two-dimensional", "guarded", "big"):
        assert results.pop(case) == "ran", case
    head = f"kernel 'fill' on {label}: argument 0 (float* out): the "
    assert results.pop("array short") == (
        head + "Array passed holds 16 bytes; 1024 work-items along dimension 0 need 4096 bytes "
        "(1024 x 4-byte elements): the kernel indexes out[get_global_id(0)] on every "
        "work-item; pass a larger buffer or launch fewer items")
    assert results["buffer short"].startswith(head + "Buffer passed holds 16 bytes; ")
    assert results["buffer short again"] == results.pop("buffer short")
    assert "holds 2048 bytes; 1024 work-items along dimension 0 need 4096 bytes" in results.pop(
        "view at an offset short")
    assert results.pop("second argument short").startswith(
        f"kernel 'add' on {label}: argument 1 (float4* a): the Buffer passed holds 256 "
        "bytes; 64 work-items along dimension 0 need 1024 bytes (64 x 16-byte elements)")
    for case, message in results.items():
        assert "\n" not in message, (case, message)
