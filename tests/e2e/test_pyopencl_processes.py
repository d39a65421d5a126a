"""Existing pyopencl code (pyopencl's own examples and tests, and a mixed workload of its
kernel kinds) warms like clmodes kernels: a fresh process after the warm compiles nothing
from source and computes byte for byte what a cold process computes."""

from __future__ import annotations

import subprocess
import sys

import pytest

from support.subprocesses import RUNTIMES, environment, last_json, require_runtime, run_python

RUN = "from support import pyopencl_corpus as c; print(c.run({!r}, {!r}))"
# PoCL's code generation makes the whole corpus 2-3 minutes there on a fresh machine
# (`pyopencl_corpus.PARTS`): every kind of pyopencl kernel on PoCL, all of the upstream
# tests on Intel's runtime.
PART = {"pocl": "kinds", "intel": "all"}
LEAST = {"all": 40, "kinds": 30}

OUTSIDE = '''
import numpy as np, pyopencl as cl, pyopencl.array as cla
import clmodes
def outside():
    context = cl.Context([clmodes.client().device.cl_device])
    (cla.arange(cl.CommandQueue(context), 16, dtype=np.float32) * 2).get()
'''


@pytest.mark.parametrize("runtime", sorted(RUNTIMES))
def test_warmed_pyopencl_code_starts_warm_and_computes_the_same_bytes(tmp_path, runtime):
    selector, part = require_runtime(RUNTIMES[runtime]), PART[runtime]
    cold = last_json(run_python(RUN.format("execute", part), tmp_path / "cold",
                                CLMODES_DEVICE=selector))
    least = LEAST[part]
    assert cold["compilation"]["compiled"] >= least and cold["source_compiles"] >= least

    warmed = last_json(run_python(RUN.format("warm", part), tmp_path / "warm",
                                  CLMODES_DEVICE=selector))
    assert warmed["compilation"]["compiled"] == cold["compilation"]["compiled"]
    assert warmed["outside"]["kernels"] == 0

    fresh = last_json(run_python(RUN.format("execute", part), tmp_path / "warm",
                                 CLMODES_DEVICE=selector))
    assert fresh["source_compiles"] == 0  # nothing compiled from source, by anyone
    assert fresh["compilation"]["compiled"] == fresh["compilation"]["builds"] == 0
    assert fresh["compilation"]["loaded"] == cold["compilation"]["compiled"]
    assert fresh["results"] == cold["results"]  # byte for byte (sha256 of each result)
    assert len(cold["results"]) >= 15


def test_cli_warm_of_code_outside_clmodes_fails_in_one_line(tmp_path):
    (tmp_path / "outside_workload.py").write_text(OUTSIDE)
    # Run where the workload's module is: `clmodes warm` imports from the current directory.
    out = subprocess.run([sys.executable, "-m", "clmodes", "warm", "outside_workload:outside"],
                         env=environment(tmp_path), cwd=tmp_path, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 2
    lines = [line for line in out.stderr.splitlines() if line.startswith("clmodes: ")]
    assert len(lines) == 1, out.stderr
    assert "nothing gathered" in lines[0] and "arange" in lines[0] and "axpb" in lines[0]
    assert "ran outside clmodes" in lines[0]


SMALL = "from support import pyopencl_small as s; print(s.{}())"
EXPECTED = float(sum((3 * v - 1) ** 2 for v in range(256)))


def test_pyopencl_programs_ship_in_a_bundle(tmp_path):
    warmed = last_json(run_python(
        "import json, clmodes; from support import pyopencl_small as s; "
        "print(json.dumps(clmodes.warm(s.workload).as_dict()))", tmp_path / "a"))
    built = warmed["compilation"]["compiled"]
    assert built >= 3  # the elementwise kernel, the arithmetic, the sum
    bundle = tmp_path / "programs.clmb"
    for store, verb in ((tmp_path / "a", ["bundle", "export", str(bundle)]),
                        (tmp_path / "b", ["bundle", "import", str(bundle), "--allow-unsigned"])):
        out = subprocess.run([sys.executable, "-m", "clmodes", *verb], env=environment(store),
                             capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr
    run = last_json(run_python(SMALL.format("execute"), tmp_path / "b"))
    assert run["result"] == EXPECTED
    assert run["compilation"]["compiled"] == 0 and run["compilation"]["loaded"] == built


def test_programs_run_under_a_compile_override_persist_when_it_closes(tmp_path):
    first = last_json(run_python(SMALL.format("under_override"), tmp_path))
    assert first["compilation"]["compiled"] >= 3
    run = last_json(run_python(SMALL.format("execute"), tmp_path))
    assert run["result"] == EXPECTED
    assert run["compilation"]["compiled"] == 0
    assert run["compilation"]["loaded"] == first["compilation"]["compiled"]
