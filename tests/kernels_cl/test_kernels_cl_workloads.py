"""kernels_cl.workloads against numpy references, and warmed by the process modes.

Tolerance: float32 workloads match their float64 numpy reference within rtol 1e-4,
atol 1e-5 (mlp probabilities) and rtol 1e-4, atol 1e-4 (attention output, values of
order 1 after layer norm).
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from support.fp64 import fp64_broken

import clmodes
from clmodes import ProcessMode, ProcessModeOverride, StatisticsReader
from kernels_cl import workloads

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOLERANCE = {"mlp": dict(rtol=1e-4, atol=1e-5), "attention": dict(rtol=1e-4, atol=1e-4)}


pytestmark = pytest.mark.usefixtures("kernels_cl_small_race_policy")


@pytest.fixture
def on_device(client, monkeypatch):
    """Workloads use clmodes.client(): point it at the device under test."""
    monkeypatch.setenv("CLMODES_DEVICE", str(client.device.index))
    return client


def sizes(monkeypatch, **values):
    for name, value in values.items():
        monkeypatch.setenv(f"KERNELS_CL_{name.upper()}", str(value))


@pytest.mark.parametrize("name", ["mlp", "attention"])
def test_workload_matches_numpy(on_device, monkeypatch, name):
    sizes(monkeypatch, batch=3, hidden=40, layers=2, classes=7, seq=13)
    got = workloads.WORKLOADS[name]()
    ref = workloads.REFERENCES[name]()
    assert got.shape == ref.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, ref, **TOLERANCE[name])
    if name == "mlp":
        np.testing.assert_allclose(got.sum(axis=1), 1, rtol=1e-5)


def test_workloads_default_sizes(on_device):
    for name in ("mlp", "attention"):
        np.testing.assert_allclose(workloads.WORKLOADS[name](), workloads.REFERENCES[name](),
                                   **TOLERANCE[name])


# The MLP warmed in a fresh process (kernels obtained by earlier tests would make "builds
# nothing" trivially true) with its own store (so that every key is a miss there).
FRESH_PROCESS = r"""
import json, sys
import numpy as np
import clmodes, kernels_cl
from clmodes import ProcessMode, ProcessModeOverride, StatisticsCollector, StatisticsReader
from kernels_cl import workloads

kernels_cl.set_race_policy(clmodes.RacePolicy(warmup=1, first_samples=2, total_samples=3))

report = {}
for mode in ("COMPILE_ONLY", "COMPILE_AND_AUTOTUNE", "EXECUTE"):
    collector = StatisticsCollector()
    with ProcessModeOverride(ProcessMode[mode], collector):
        result = workloads.mlp()
    report[mode] = StatisticsReader(collector).statistics().as_dict()
report["error"] = float(np.max(np.abs(result - workloads.mlp_reference())))
print(json.dumps(report))
"""


def test_warming_mlp_in_a_fresh_process(on_device, monkeypatch, tmp_path):
    sizes(monkeypatch, batch=2, hidden=21, layers=1, classes=5, seq=9, seed=3)
    monkeypatch.setenv("CLMODES_CACHE_DIR", str(tmp_path))
    done = subprocess.run([sys.executable, "-c", FRESH_PROCESS], capture_output=True, text=True,
                          timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-4000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    modes = ("COMPILE_ONLY", "COMPILE_AND_AUTOTUNE", "EXECUTE")
    gathered, tuned, executed = (report[m] for m in modes)
    # COMPILE_ONLY: every kernel (every candidate's) queued, nothing built or tuned
    assert gathered["compilation"]["builds"] == 0 and gathered["compilation"]["kernels"] == 0
    assert gathered["autotune"]["keys"] == 0
    # COMPILE_AND_AUTOTUNE: the whole queue in one batch build (the GEMM search's start
    # configs among it), then at most one build per later generation of each of the two
    # matmul keys (8 configs: the start configs and one generation of neighbours), every key measured
    assert 1 <= tuned["compilation"]["builds"] <= 1 + 2, tuned
    assert tuned["compilation"]["kernels"] >= 20 and tuned["autotune"]["keys"] >= 4
    # then the real run compiles and tunes nothing, and is right
    assert executed["compilation"] == {"kernels": 0, "compiled": 0, "loaded": 0, "builds": 0}
    assert executed["autotune"]["keys"] == 0
    assert report["error"] < 1e-5


@pytest.mark.parametrize("name", ["mlp", "attention"])
def test_warming_a_workload_in_process(on_device, monkeypatch, name, build_spy, own_store):
    sizes(monkeypatch, batch=2, hidden=19, layers=1, classes=6, seq=7, seed=4)  # untuned shapes
    gathered, tuned, executed = (clmodes.StatisticsCollector() for _ in range(3))
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY, gathered):
        workloads.WORKLOADS[name]()
    assert build_spy.calls == 0
    assert StatisticsReader(gathered).statistics().compilation.kernels == 0
    with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, tuned):
        workloads.WORKLOADS[name]()
    assert StatisticsReader(tuned).statistics().autotune.keys >= 4
    builds = build_spy.calls
    with ProcessModeOverride(ProcessMode.EXECUTE, executed):
        got = workloads.WORKLOADS[name]()
    stats = StatisticsReader(executed).statistics()
    assert stats.compilation.kernels == 0 and stats.autotune.keys == 0
    assert build_spy.calls == builds
    np.testing.assert_allclose(got, workloads.REFERENCES[name](), **TOLERANCE[name])


def test_float64_attention(on_device, monkeypatch):
    if "cl_khr_fp64" not in on_device.device.cl_device.extensions.split():
        pytest.skip("no cl_khr_fp64")
    if why := fp64_broken(on_device.device):
        pytest.skip(why)  # `support.fp64`: it would abort the process
    sizes(monkeypatch, batch=2, hidden=16, seq=11, dtype="float64")
    np.testing.assert_allclose(workloads.attention(), workloads.attention_reference(),
                               rtol=1e-10, atol=1e-10)


def test_bad_environment_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("KERNELS_CL_HIDDEN", "wide")
    with pytest.raises(ValueError, match=r"\$KERNELS_CL_HIDDEN must be an integer"):
        workloads.mlp()
    monkeypatch.setenv("KERNELS_CL_HIDDEN", "8")
    monkeypatch.setenv("KERNELS_CL_DTYPE", "int8")
    with pytest.raises(ValueError, match=r"\$KERNELS_CL_DTYPE must be float32"):
        workloads.mlp()
