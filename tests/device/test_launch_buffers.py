"""Buffers that would crash the process: released ones, ones of another context.

PoCL and Oclgrind follow such a handle and die with SIGSEGV; a launch must refuse it
with one line naming the kernel and the argument instead. Each case runs in a fresh
process: a regression would kill it, not pytest."""

import json

import numpy as np
import pyopencl as cl
import pytest

import clmodes
from clmodes import released
from support import fresh
from support.subprocesses import run_python

BAD_BUFFERS = """
import json, sys
import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import clmodes
client = clmodes.client(sys.argv[1] if len(sys.argv) > 1 else None)
stream = client.stream("buffers")
kernel = clmodes.Kernel("__kernel void fill(__global float* out, int n)"
                        "{ int i = get_global_id(0); if (i < n) out[i] = 1.0f; }", "fill")
mf = cl.mem_flags

def launch(buffer):
    try:
        stream.launch(kernel, 64, None, buffer, 64)
        stream.finish()
        return "ran"
    except clmodes.KernelLaunchError as error:
        return str(error)

live = cl.Buffer(client.context, mf.READ_WRITE, 256)
results = {"live": launch(live)}
fresh = cl.Buffer(client.context, mf.READ_WRITE, 256)
fresh.release()
results["released"] = launch(fresh)
live.release()  # after the kernel saw it live
results["released after use"] = launch(live)
array = cla.zeros(stream.queue, 64, np.float32)
view = array[16:]  # a sub-buffer of a released buffer would crash before any launch
array.base_data.release()
results["array of a released buffer"] = launch(array)
results["view of a released buffer"] = launch(view)
other_context = cl.Context([client.device.cl_device])
results["same device, another context"] = launch(cl.Buffer(other_context, mf.READ_WRITE, 256))
seen = cl.Buffer(client.context, mf.READ_WRITE, 256)
launch(seen)
seen.release()  # the next buffer may be made at its address: it is checked again
results["another context after a release"] = launch(cl.Buffer(other_context, mf.READ_WRITE, 256))
others = [d for d in clmodes.devices() if d.platform_name != client.device.platform_name]
keep = []
for other in others[:2]:
    keep.append(cl.Context([other.cl_device]))
    results["platform " + other.platform_name] = launch(cl.Buffer(keep[-1], mf.READ_WRITE, 256))
results["live again"] = launch(cl.Buffer(client.context, mf.READ_WRITE, 256))
print(json.dumps(results))
"""


def _script(client):
    return BAD_BUFFERS.replace("sys.argv[1] if len(sys.argv) > 1 else None",
                               repr(client.device.label))


@pytest.mark.oclgrind
def test_bad_buffers_are_refused_with_one_line_and_the_process_survives(client):
    out = run_python(_script(client))
    assert out.returncode == 0, out.stderr[-2000:]  # -11 would be the SIGSEGV
    results = json.loads(out.stdout.strip().splitlines()[-1])
    assert results.pop("live") == "ran" and results.pop("live again") == "ran"
    assert len(results) >= 4
    for case, message in results.items():
        assert message != "ran", case
        assert "\n" not in message, (case, message)
        assert message.startswith(f"kernel 'fill' on {client.device.label}: argument 0 "
                                  "(float* out): the "), (case, message)
    for case in ("released", "released after use", "array of a released buffer",
                 "view of a released buffer"):
        assert "was released" in results[case], results[case]
    assert "another context" in results["same device, another context"]
    assert "another context" in results["another context after a release"]
    for case in (c for c in results if c.startswith("platform ")):
        assert "another context" in results[case], results[case]


def test_released_buffers_are_forgotten_once_nobody_holds_them(stream):
    """A program that releases buffers in a loop keeps none of them alive in clmodes,
    and one it still holds stays refused."""
    kernel = clmodes.Kernel(fresh("__kernel void one(__global int* a) { a[0] = 1; }"), "one")
    held = cl.Buffer(stream.context, cl.mem_flags.READ_WRITE, 64)
    held.release()
    before = released.remembered()
    for _ in range(500):
        cl.Buffer(stream.context, cl.mem_flags.READ_WRITE, 64).release()
    assert released.remembered() < before + 128
    assert released.is_released(held)
    with pytest.raises(clmodes.KernelLaunchError, match=r"'one'.*argument 0 \(int\* a\).*released"):
        stream.launch(kernel, 1, None, held)
    live = cl.Buffer(stream.context, cl.mem_flags.READ_WRITE, 64)
    stream.launch(kernel, 1, None, live)
    got = np.zeros(1, np.int32)
    cl.enqueue_copy(stream.queue, got, live)
    assert got[0] == 1
