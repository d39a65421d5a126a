"""`clmodes run` of a program that ends with its launches still queued lives where the
plain run lives (issue 58, item 5).

loopy's `hello-loopy.py` under `clmodes run` died on Debian's PoCL 3.1 with
`pocl_release_dlhandle_cache: Assertion 'found->ref_count > 0' failed` (exit 134): the
run's capture read the program's `BINARIES` while the program's last launches of a
`reqd_work_group_size` kernel still ran (`clmodes/pyopencl_hooks/inflight.py` says how
PoCL miscounts). `QUEUED` is what loopy does, reduced to plain pyopencl: such a kernel,
run once (PoCL has made its code for that launch), then launched many times (300
launches of about 6 ms each on 2 cores on each of two queues: still running when the
capture starts), and the program returns at once. Two queues, so that two launches end
while PoCL generates the code `BINARIES` asks for: each then releases into PoCL's new
entry, and the second aborts every time, where one launch alone aborts only when its
thread takes PoCL's lock before the reading thread does. The queues
are finished at exit (`atexit`): a plain run ending with commands still running can die
in the runtimes' teardown, which is not what this tests. On every PoCL here, with PoCL's
kernel cache on and off (off, a capture reads `BINARIES` whatever else it keeps), the
run exits as the plain run does, prints what it prints, and persists the program.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import clmodes
from clmodes.discovery import pyopencl_ctx
from support.subprocesses import RUNTIMES, environment

QUEUED = """
import atexit, sys, numpy as np, pyopencl as cl
SOURCE = '''__kernel void __attribute__ ((reqd_work_group_size(128, 1, 1)))
spin(__global float *out, int rounds)
{ int i = get_global_id(0); float x = out[i];
  for (int k = 0; k < rounds; ++k) x = x * 0.999f + 1.0f;
  out[i] = x; }'''
ctx = cl.create_some_context(interactive=False)
queues = [cl.CommandQueue(ctx) for _ in range(2)]
outs = [cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 * 128 * 64) for _ in queues]
for queue in queues:
    atexit.register(queue.finish)
kernel = cl.Program(ctx, SOURCE).build().spin
for rounds, launches in ((1, 1), (330, int(sys.argv[1]))):
    for _ in range(launches):
        for queue, out in zip(queues, outs):
            kernel(queue, (128 * 64,), (128,), out, np.int32(rounds))
    if rounds == 1:
        for queue in queues:
            queue.finish()
print("enqueued", sys.argv[1])
"""

# The same with clmodes' own kernel on the program's context (`clmodes.client(context=)`):
# its launches skip pyopencl's hook, so the capture waits for its client's streams.
QUEUED_CLMODES = """
import atexit, sys, numpy as np, pyopencl as cl, clmodes
SPIN_SOURCE
client = clmodes.client(context=cl.create_some_context(interactive=False))
streams = [client.stream(f"s{i}") for i in range(2)]
outs = [cl.Buffer(client.context, cl.mem_flags.READ_WRITE, 4 * 128 * 64) for _ in streams]
for stream in streams:
    atexit.register(stream.queue.finish)
kernel = clmodes.Kernel(SOURCE, "spin")
for rounds, launches in ((1, 1), (330, int(sys.argv[1]))):
    for _ in range(launches):
        for stream, out in zip(streams, outs):
            stream.launch(kernel, (128 * 64,), (128,), out, rounds)
    if rounds == 1:
        for stream in streams:
            stream.queue.finish()
print("enqueued", sys.argv[1])
""".replace("SPIN_SOURCE", QUEUED[QUEUED.index("SOURCE = "):QUEUED.index("}'''") + 4])  # the same kernel

# loopy's own hello example as loopy 2025.2 documents it (`lp.make_kernel`, a split
# iname, the uncached call and the executor), then its result and its device code.
HELLO_LOOPY = """
import numpy as np, pyopencl as cl, pyopencl.array
import loopy as lp
from loopy.version import LOOPY_USE_LANGUAGE_VERSION_2018_2  # noqa: F401
ctx = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(ctx)
a = cl.array.arange(queue, 15 * 10**6, dtype=np.float32)
knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]")
knl = lp.split_iname(knl, "i", 128, outer_tag="g.0", inner_tag="l.0")
evt, (out,) = knl(queue, a=a)
evt, (out,) = knl.executor(ctx)(queue, a=a)
knl = lp.add_and_infer_dtypes(knl, {"a": np.dtype(np.float32)})
print(lp.generate_code_v2(knl).device_code())
"""


def pocl_contexts() -> list[str]:
    """`PYOPENCL_CTX` of every usable PoCL device here (PyPI's 3.0, Debian's 3.1)."""
    found = [pyopencl_ctx(d) for d in clmodes.devices()
             if RUNTIMES["pocl"] in d.label and clmodes.usability(d).usable]
    if not found:
        pytest.skip("no usable PoCL device here")
    return found


def execute(args: list[str], folder: Path, ctx: str, kernel_cache: str,
            store: Path | None = None) -> subprocess.CompletedProcess:
    """`python ARGS...` in `folder`, on a PoCL cache of its own there (cold), pointed at
    `ctx`; Python's warnings (loopy's) off, so both runs print only the program's output."""
    env = environment(store, PYOPENCL_CTX=ctx, POCL_KERNEL_CACHE=kernel_cache,
                      POCL_CACHE_DIR=str(folder / "pocl"), PYTHONWARNINGS="ignore")
    return subprocess.run([sys.executable, *args], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=600)


def lives_as_plain(script: Path, tmp_path: Path, ctx: str, kernel_cache: str,
                   *args: str) -> None:
    """The plain run and `clmodes run` (a cold store) exit 0 with the same output, and
    the run persisted the program."""
    alone_in, run_in = (tmp_path / f"{how}-{ctx.replace(':', '-')}" for how in ("plain", "run"))
    alone_in.mkdir()
    run_in.mkdir()
    for _ in range(3):  # the plain run itself dies now and then in PoCL's teardown at exit
        alone = execute([str(script), *args], alone_in, ctx, kernel_cache)
        if alone.returncode >= 0:
            break
    assert alone.returncode == 0, alone.stderr
    report = run_in / "report.json"
    ran = execute(["-m", "clmodes", "run", "--report", str(report), str(script), *args],
                  run_in, ctx, kernel_cache, run_in / "store")
    assert ran.returncode == 0, (ctx, ran.returncode, ran.stderr[-2000:])
    assert ran.stdout == alone.stdout
    assert json.loads(report.read_text())["persisted"] >= 1


@pytest.mark.parametrize("kernel_cache", ["0", "1"])
def test_a_program_ending_with_launches_queued_lives_under_clmodes_run(tmp_path: Path,
                                                                       kernel_cache: str):
    script = tmp_path / "queued.py"
    script.write_text(QUEUED)
    for ctx in pocl_contexts():
        lives_as_plain(script, tmp_path, ctx, kernel_cache, "300")


def test_hello_loopy_lives_under_clmodes_run(tmp_path: Path):
    pytest.importorskip("loopy")
    script = tmp_path / "hello_loopy.py"
    script.write_text(HELLO_LOOPY)
    for ctx in pocl_contexts():
        lives_as_plain(script, tmp_path, ctx, "0")


def test_clmodes_kernels_still_running_at_the_end_live_under_clmodes_run(tmp_path: Path):
    """PoCL's cache off: the capture reads the batch's BINARIES, after the client's
    streams are finished (`Client.finish`)."""
    script = tmp_path / "queued_clmodes.py"
    script.write_text(QUEUED_CLMODES)
    for ctx in pocl_contexts():
        lives_as_plain(script, tmp_path, ctx, "0", "300")
