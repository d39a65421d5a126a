"""The compiler's own "N warnings generated." lines go to the log, not to standard error.

clang inside PoCL and Oclgrind writes them from C straight to descriptor 2, beside
clmodes' one-line messages; clmodes' builds (its batches and the pyopencl programs its
hooks build) point the descriptor into a relay that logs them at DEBUG and passes
everything else on (`clmodes/compiler_output.py`). Intel's compiler writes none."""

import re
import subprocess
import sys

import pytest

from support.subprocesses import environment

WORKLOAD = '''
import sys
import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import clmodes

WARNS = "__kernel void KNAME(__global float *out) { int unused; int x = 1.5; out[get_global_id(0)] = x; }"

def workload():
    stream = clmodes.client().stream()
    out = cla.zeros(stream.queue, 4, np.float32)
    stream.launch(clmodes.Kernel(WARNS.replace("KNAME", "warned"), "warned"), 4, None, out)
    program = cl.Program(stream.context, WARNS.replace("KNAME", "hooked")).build()
    program.hooked(stream.queue, (4,), None, out.data)
    sys.stderr.write("the workload's own line\\n")
    stream.finish()
'''
CHATTER = re.compile(r"^\s*\d+ warnings? generated\.\s*$", re.M)


def _warm(tmp_path, label, *flags):
    tmp_path.mkdir()
    (tmp_path / "warned_workload.py").write_text(WORKLOAD)
    return subprocess.run(
        [sys.executable, "-m", "clmodes", "warm", *flags, "warned_workload:workload"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env=environment(tmp_path / "store", CLMODES_DEVICE=label, POCL_KERNEL_CACHE="0"))


@pytest.mark.oclgrind
def test_compiler_lines_go_to_the_log_not_to_stderr(client, tmp_path):
    label = client.device.label
    quiet = _warm(tmp_path / "quiet", label)
    assert quiet.returncode == 0, quiet.stderr[-2000:]
    assert not CHATTER.search(quiet.stderr), quiet.stderr
    assert "generated." not in quiet.stderr and "generated." not in quiet.stdout
    assert "the workload's own line" in quiet.stderr  # another write to fd 2 is kept
    verbose = _warm(tmp_path / "verbose", label, "-vv")
    assert verbose.returncode == 0, verbose.stderr[-2000:]
    assert not CHATTER.search(verbose.stderr), verbose.stderr
    logged = [line for line in verbose.stderr.splitlines()
              if "compiler output of" in line and "generated." in line]
    if client.device.platform_name.startswith(("Portable", "Oclgrind")):
        assert len(logged) >= 2, verbose.stderr[-3000:]  # the batch and the pyopencl program


THREADED = '''
import os, threading
import clmodes
from clmodes import compiler_output
stream = clmodes.client(DEVICE).stream()
done = threading.Event()

def write():
    for i in range(400):
        os.write(2, b"user line %d\\n" % i)
    done.set()

writer = threading.Thread(target=write)
writer.start()
while not done.is_set():
    with compiler_output.stderr_logged("a test"):
        os.write(2, b"3 warnings generated.\\n")
writer.join()
os.write(2, b"after\\n")
'''


def test_other_threads_lines_on_fd_2_are_kept_whole(client):
    out = subprocess.run([sys.executable, "-c", THREADED.replace("DEVICE", repr(client.device.label))],
                         capture_output=True, text=True, timeout=600, env=environment())
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stderr.splitlines()
    # Every line whole, once, and none after "after"; two lines may swap across a build's
    # end (a line the relay still holds, one written straight after: compiler_output).
    assert sorted(lines[:-1]) == sorted(f"user line {i}" for i in range(400)), out.stderr[-2000:]
    assert lines[-1] == "after", out.stderr[-2000:]
