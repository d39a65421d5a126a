"""Every benchmark `ci/bench/run` knows still starts: each at its `--smoke` size.

Marked `bench_smoke` (deselect with `-m "not bench_smoke"`); runs by default. A script
whose smoke is "run" must exit 0 and write its JSON with at least one ratio; one whose
smoke is "setup" (a full run cannot be made seconds: `ci/bench/suite.py` says which)
must exit 0 and write its JSON. Also: every `ci/bench/bench_*.py` is registered, and
the report generator writes `docs/benchmarks.md` from a report.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "ci" / "bench"
sys.path.insert(0, str(BENCH))

import benchmarks_doc  # noqa: E402
import suite  # noqa: E402

pytestmark = pytest.mark.bench_smoke

# Per script: a smoke run is seconds on an idle machine; this is the ceiling under load.
TIMEOUT_S = 240


@pytest.mark.parametrize("bench", suite.BENCHES, ids=lambda bench: bench.name)
def test_each_benchmark_starts_on_a_tiny_size(bench: suite.Bench) -> None:
    absent = suite.missing(bench)
    if absent:
        pytest.skip(f"{bench.name} needs {', '.join(absent)}")
    device = os.environ.get("CLMODES_DEVICE")
    outcome = suite.run_one(bench, device, smoke=True, timeout=TIMEOUT_S)
    assert outcome.status == "ok", f"{outcome.status}\n{outcome.output[-4000:]}"
    if bench.smoke == "run":
        assert outcome.figures, f"{bench.script} --smoke wrote no ratio\n{outcome.output[-2000:]}"


def test_every_bench_script_is_registered() -> None:
    registered = {bench.script for bench in suite.BENCHES}
    scripts = {path.name for path in BENCH.glob("bench_*.py")}
    assert scripts <= registered, f"not in ci/bench/suite.py BENCHES: {sorted(scripts - registered)}"
    assert registered <= scripts, f"registered but missing: {sorted(registered - scripts)}"


def test_the_report_renders_a_header_and_a_table_per_benchmark() -> None:
    report = {
        "date": "2026-01-01T00:00:00+00:00", "smoke": True,
        "machine": {"cpu": "Some CPU", "cores": 2, "arch": "x86_64", "os": "Linux",
                    "python": "3.11"},
        "versions": {"clmodes": "0", "commit": "abc", "pyopencl": "1", "pocl": ["PoCL 3.0"],
                     "pocl_wheel": "3.0", "intel_opencl_rt": "2026", "kernel_tuner": "1.5",
                     "platforms": ["OpenCL 3.0 PoCL 3.0"]},
        "devices": ["pocl", "intel"],
        "runs": [{"bench": "core", "script": "bench_core.py", "what": "cold compile",
                  "device": d, "status": "ok", "seconds": 3.0, "load_before": 1.0,
                  "load_after": 1.5} for d in ("pocl", "intel")]
        + [{"bench": "fleet", "script": "bench_fleet.py", "what": "fleet", "device": "pocl",
            "status": "skipped: needs ray", "seconds": 0.0, "load_before": None,
            "load_after": None}],
        "rows": [{"bench": "core", "script": "bench_core.py", "device": d, "figure": "x_ratio",
                  "value": v} for d, v in (("pocl", 4.0), ("intel", 17.0))],
    }
    text = benchmarks_doc.render(report)
    assert "**Smoke run**" in text and "Some CPU, 2 cores" in text
    assert "Kernel Tuner 1.5" in text and "PoCL PoCL 3.0" not in text
    assert "| `x_ratio` | 4 | 17 |" in text
    assert "| core | pocl | ok | 3 | 1.00 | 1.50 |" in text
    assert "## fleet" in text and "no figures in this run" in text


def test_the_page_draws_a_benchmarks_curves_as_a_table() -> None:
    report = {"date": "2026-12-02T12:00:00+00:00", "smoke": False,
              "machine": {"cpu": "Some CPU", "cores": 2, "arch": "x86_64", "os": "Linux",
                          "python": "3.11"},
              "versions": {"clmodes": "0", "commit": "abc", "pyopencl": "1", "pocl": [],
                           "platforms": []},
              "devices": ["intel"],
              "runs": [{"bench": "quality", "script": "bench_quality.py", "what": "ttq",
                        "device": "intel", "status": "ok", "seconds": 9.0, "load_before": 1.0,
                        "load_after": 1.0}],
              "rows": [],
              "curves": [{"bench": "quality", "device": "intel", "title": "gemm, 60 s",
                          "moments_s": [1, 30, 60], "within": 1.05,
                          "lines": {"clmodes:local": {"seeds": 3,
                                                      "median_incumbent_vs_best": [None, 1.2, 1.01],
                                                      "seeds_within": [0, 1, 2]}}}]}
    text = benchmarks_doc.render(report)
    assert "### Time to quality on `intel`: gemm, 60 s" in text
    assert "| strategy | 1 s | 30 s | 60 s |" in text
    assert "| clmodes:local | - (0/3) | 1.20 (1/3) | 1.01 (2/3) |" in text


def test_the_runner_itself_runs_and_writes_its_report(tmp_path: Path) -> None:
    """`ci/bench/run` end to end on its cheapest benchmark: the runner's own steps (device
    labels through the usable-device choice, the report, the page) are not the scripts'."""
    import subprocess

    out, doc = tmp_path / "latest.json", tmp_path / "benchmarks.md"
    done = subprocess.run(
        [sys.executable, str(BENCH / "run"), "--smoke", "--only", "strategies",
         "--devices", "pocl,intel,no-such-device", "--out", str(out), "--doc", str(doc)],
        capture_output=True, text=True, timeout=TIMEOUT_S)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "no usable device matches 'no-such-device'" in done.stdout
    assert "## strategies" in doc.read_text()
    assert json.loads(out.read_text())["runs"][0]["status"] == "ok"


def test_a_merged_run_keeps_the_earlier_reports_other_runs(tmp_path: Path) -> None:
    """`ci/bench/run --merge`: a benchmark run alone replaces its own runs on the page and
    keeps the others, each with its date."""
    import subprocess

    out, doc = tmp_path / "latest.json", tmp_path / "benchmarks.md"
    earlier = {"date": "2026-01-01T00:00:00+00:00", "versions": {"commit": "old1"},
               "machine": {"cpu": "Old CPU 9000"}, "device_labels": {"-": "Old runtime / old device"},
               "runs": [{"bench": bench, "script": f"bench_{bench}.py", "what": bench,
                         "device": "-", "status": "ok", "seconds": 1.0, "load_before": 0.5,
                         "load_after": 0.5} for bench in ("core", "strategies")],
               "rows": [{"bench": bench, "script": f"bench_{bench}.py", "device": "-",
                         "figure": "old_ratio", "value": 9.0} for bench in ("core", "strategies")]}
    out.write_text(json.dumps(earlier))
    done = subprocess.run(
        [sys.executable, str(BENCH / "run"), "--smoke", "--only", "strategies", "--merge",
         "--devices", "pocl,intel", "--out", str(out), "--doc", str(doc),
         "--keep", str(tmp_path / "kept")],
        capture_output=True, text=True, timeout=TIMEOUT_S)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    report = json.loads(out.read_text())
    assert [r["bench"] for r in report["runs"]] == ["core", "strategies"]
    assert report["runs"][0]["date"] == "2026-01-01T00:00:00+00:00"
    assert report["runs"][0]["commit"] == "old1"
    assert report["runs"][1]["date"] != "2026-01-01T00:00:00+00:00"
    # each run says where it ran: the kept one on the old machine, the new one here
    assert report["runs"][0]["device_label"] == "Old runtime / old device"
    assert report["runs"][0]["cpu"] == "Old CPU 9000"
    assert report["runs"][1]["cpu"] == report["machine"]["cpu"] != "Old CPU 9000"
    assert "Old runtime / old device (Old CPU 9000)" in doc.read_text()
    # --keep: the script's whole JSON and its output, beside the page's summary
    kept = json.loads((tmp_path / "kept" / "strategies-none.json").read_text())
    assert kept["smoke"] is True and kept["kinds"]
    assert (tmp_path / "kept" / "strategies-none.log").exists()
    assert [r["bench"] for r in report["rows"] if r["figure"] == "old_ratio"] == ["core"]
    assert "Merged (`ci/bench/run --merge`)" in doc.read_text()


def test_quality_keeps_runs_started_from_known_configs_out_of_the_search_ratio() -> None:
    """bench_quality's '+start' strategies start from kernels_cl's start configs: prior
    knowledge Kernel Tuner is not given. Their median must not stand in for the search's
    in the target ratio, and they get a ratio of their own."""
    import bench_quality

    summary = {"clmodes:local": {"median_time_to_quality_s": None},
               "clmodes:local+start": {"median_time_to_quality_s": 2.0},
               "kernel_tuner:random_sample": {"median_time_to_quality_s": 40.0},
               "kernel_tuner:bayes_opt": {"median_time_to_quality_s": 20.0}}
    search, started, theirs = bench_quality.medians(summary)
    assert (search, started, theirs) == (None, 2.0, 20.0)
    assert bench_quality.our_start("local", "gemm") is None
    assert callable(bench_quality.our_start("local+start", "gemm"))
    with pytest.raises(SystemExit, match="gemm space only"):
        bench_quality.our_start("local+start", "xgemm")
