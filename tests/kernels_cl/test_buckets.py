"""Shape buckets end to end: a warm at 64 MLP rows answers 48 and 56 rows in later
processes, with nothing tuned, nothing compiled from source, and results numpy's.

Fresh processes on PoCL and Intel's CPU runtime (tests/support/subprocesses.py): nothing
in memory survives between them, only the store does. The kernels take their sizes as
arguments, so the binaries warmed at 64 rows are the very ones 48 rows launches.
"""

from __future__ import annotations

import json

import pytest

from support.subprocesses import RUNTIMES, last_json, require_runtime, run_cli, run_python

SIZES = {"KERNELS_CL_HIDDEN": "32", "KERNELS_CL_LAYERS": "1", "KERNELS_CL_CLASSES": "10"}

WARM = r"""
import json, clmodes, kernels_cl
from kernels_cl import workloads
kernels_cl.set_race_policy(clmodes.RacePolicy(warmup=1, first_samples=2, total_samples=3))
print(json.dumps(clmodes.warm(workloads.mlp).as_dict()))
"""

EXECUTE = r"""
import json
import numpy as np
import clmodes
from kernels_cl import workloads
from support import BuildSpy
spy = BuildSpy().install()
collector = clmodes.StatisticsCollector()
with clmodes.ProcessModeOverride(clmodes.ProcessMode.EXECUTE, collector):
    got = workloads.mlp()
ref = workloads.mlp_reference()
print(json.dumps({**clmodes.StatisticsReader(collector).statistics().as_dict(),
                  "source_builds": sum(1 for s in spy.sources if s), "shape": list(got.shape),
                  "close": bool(np.allclose(got, ref, rtol=1e-4, atol=1e-5))}))
"""


@pytest.fixture(params=sorted(RUNTIMES))
def runtime(request) -> str:
    return require_runtime(RUNTIMES[request.param])


def test_a_warm_at_64_rows_answers_48_and_56(runtime, tmp_path):
    warmed = last_json(run_python(WARM, tmp_path, CLMODES_DEVICE=runtime,
                                  KERNELS_CL_BATCH="64", **SIZES))
    assert warmed["autotune"]["keys"] >= 3  # two matmuls, the elementwise ops, softmax
    for rows in (48, 56):
        report = last_json(run_python(EXECUTE, tmp_path, CLMODES_DEVICE=runtime,
                                      KERNELS_CL_BATCH=str(rows), **SIZES))
        assert report["shape"] == [rows, 10]
        assert report["autotune"]["keys"] == 0, report
        assert report["compilation"]["compiled"] == 0 and report["source_builds"] == 0, report
        assert report["close"], f"{rows} rows differ from numpy"


def test_check_names_another_shape_bucket(runtime, tmp_path):
    last_json(run_python(WARM, tmp_path, CLMODES_DEVICE=runtime, KERNELS_CL_BATCH="64", **SIZES))
    passed = run_cli(tmp_path, "check", "kernels_cl.workloads:mlp", "--json",
                     CLMODES_DEVICE=runtime, KERNELS_CL_BATCH="40", **SIZES)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    failed = run_cli(tmp_path, "check", "kernels_cl.workloads:mlp", "--json",
                     CLMODES_DEVICE=runtime, KERNELS_CL_BATCH="100", **SIZES)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    report = json.loads(failed.stdout)
    tunes = [m for m in report["misses"] if m["kind"] == "tune"]
    matmul = [m for m in tunes if m["name"].startswith("kernels_cl.matmul")]
    # the check runs (and tunes) the workload: the first key missed is named by its
    # 64-row namesake; the second is nearest both that one's and the first's new bucket
    assert matmul and all(m["why"].startswith("another shape bucket (") for m in matmul), tunes
    assert matmul[0]["why"] == ("another shape bucket (M 65..128 here; decisions are stored "
                                "for M 33..64)"), matmul
    softmax = [m for m in tunes if m["name"].startswith("kernels_cl.softmax")]
    assert softmax[0]["why"] == ("another shape bucket (R 65..128 here; decisions are stored "
                                 "for R 33..64)"), softmax
