"""The benchmarks stay runnable, at a cost the suite can pay.

In the suite: one smoke of the runner itself (`ci/bench/run --smoke` on two cheap
benchmarks, one on a device and one without OpenCL, merged into an earlier report and
kept: the runner's steps, the report and the page), every `ci/bench/bench_*.py`
registered, and each registered script *imported* in this process (an import that broke
with a renamed API fails here without a child process per script). Each script's own
`--smoke` run (one child process per registered benchmark, minutes) is marked `bench_smoke` and runs only when
asked: `python -m pytest -m bench_smoke`, or `ci/bench/run --smoke` (every script, each
device). A script whose smoke is "run" must exit 0 and write its JSON with at least one
ratio; one whose smoke is "setup" must exit 0 and write its JSON.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "ci" / "bench"
sys.path.insert(0, str(BENCH))

import benchmarks_doc  # noqa: E402
import suite  # noqa: E402

# Per script: a smoke run is seconds on an idle machine; this is the ceiling under load.
TIMEOUT_S = 240
# The runner's smoke in the suite: one benchmark on a device, one without OpenCL.
RUNNER_SMOKE = ("probe", "strategies")
# A benchmark no longer registered, as a retired script's runs stay in an earlier report.
RETIRED = "batch_size"


@pytest.mark.bench_smoke
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


@pytest.mark.parametrize("bench", suite.BENCHES, ids=lambda bench: bench.name)
def test_each_benchmark_script_imports(bench: suite.Bench) -> None:
    """Each script's module level (its imports of clmodes, kernels_cl and the helpers)
    runs in this process: no child process, no device work (`main` is not called)."""
    absent = [name for name in bench.needs if not name.startswith("bin:")
              and importlib.util.find_spec(name) is None]
    if absent:
        pytest.skip(f"{bench.name} needs {', '.join(absent)}")
    spec = importlib.util.spec_from_file_location(f"bench_import_{bench.name}", BENCH / bench.script)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(spec.name, None)
    assert callable(getattr(module, "main", None)), f"{bench.script} has no main()"


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


def test_the_runner_runs_merges_and_writes_its_report(tmp_path: Path) -> None:
    """`ci/bench/run` end to end, the suite's one smoke of the benchmarks: the runner's own
    steps (device labels through the usable-device choice, an absent selector skipped,
    the report, the page) on one benchmark on a device and one without OpenCL, and
    `--merge`: the benchmarks run replace their own runs on the page and the earlier
    report's others are kept, each with its date, but for those of a benchmark no longer
    registered (a retired script), which leave the report and the page."""
    import subprocess

    out, doc = tmp_path / "latest.json", tmp_path / "benchmarks.md"
    earlier = {"date": "2026-01-01T00:00:00+00:00", "versions": {"commit": "old1"},
               "machine": {"cpu": "Old CPU 9000"}, "device_labels": {"-": "Old runtime / old device"},
               "runs": [{"bench": bench, "script": f"bench_{bench}.py", "what": bench,
                         "device": "-", "status": "ok", "seconds": 1.0, "load_before": 0.5,
                         "load_after": 0.5} for bench in ("core", "strategies")]
               + [{"bench": bench, "script": f"bench_{bench}.py", "what": bench,
                   "device": "intel", "status": "ok", "seconds": 1.0, "load_before": 0.5,
                   "load_after": 0.5} for bench in ("probe", RETIRED)],
               "rows": [{"bench": bench, "script": f"bench_{bench}.py", "device": "-",
                         "figure": "old_ratio", "value": 9.0} for bench in ("core", "strategies", RETIRED)],
               "curves": [{"bench": RETIRED, "device": "intel", "title": "t", "moments_s": [1],
                           "lines": {}}]}
    out.write_text(json.dumps(earlier))
    done = subprocess.run(
        [sys.executable, str(BENCH / "run"), "--smoke", "--only", ",".join(RUNNER_SMOKE),
         "--merge", "--devices", "intel,no-such-device", "--out", str(out), "--doc", str(doc),
         "--keep", str(tmp_path / "kept")],
        capture_output=True, text=True, timeout=TIMEOUT_S)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "no usable device matches 'no-such-device'" in done.stdout
    report = json.loads(out.read_text())
    # the suite's order; the probe's earlier run on intel replaced by this one's
    assert [(r["bench"], r["device"]) for r in report["runs"]] == [
        ("core", "-"), ("probe", "intel"), ("strategies", "-")]
    assert all(r["status"] == "ok" for r in report["runs"])
    assert report["runs"][0]["date"] == "2026-01-01T00:00:00+00:00"
    assert report["runs"][0]["commit"] == "old1"
    assert report["runs"][1]["date"] != "2026-01-01T00:00:00+00:00"
    assert report["runs"][2]["date"] != "2026-01-01T00:00:00+00:00"
    assert any(r["bench"] == "probe" and r["figure"] != "old_ratio" for r in report["rows"])
    # each run says where it ran: the kept one on the old machine, the new one here
    assert report["runs"][0]["device_label"] == "Old runtime / old device"
    assert report["runs"][0]["cpu"] == "Old CPU 9000"
    assert report["runs"][2]["cpu"] == report["machine"]["cpu"] != "Old CPU 9000"
    assert "Old runtime / old device (Old CPU 9000)" in doc.read_text()
    assert "## strategies" in doc.read_text() and "## probe" in doc.read_text()
    # --keep: the script's whole JSON and its output, beside the page's summary
    kept = json.loads((tmp_path / "kept" / "strategies-none.json").read_text())
    assert kept["smoke"] is True and kept["kinds"]
    assert (tmp_path / "kept" / "strategies-none.log").exists()
    assert [r["bench"] for r in report["rows"] if r["figure"] == "old_ratio"] == ["core"]
    assert "Merged (`ci/bench/run --merge`)" in doc.read_text()
    assert RETIRED not in json.dumps(report) and RETIRED not in doc.read_text()


def test_render_drops_retired_benchmarks_and_runs_nothing(tmp_path: Path) -> None:
    """`ci/bench/run --render`: the report and the page written again from the report
    alone (no benchmark runs, no device is opened), without a retired benchmark's runs,
    rows and curves."""
    import subprocess

    assert RETIRED not in suite.by_name()

    out, doc = tmp_path / "latest.json", tmp_path / "benchmarks.md"
    earlier = {"date": "2026-01-01T00:00:00+00:00", "smoke": False,
               "machine": {"cpu": "Old CPU", "cores": 2, "arch": "x86_64", "os": "Linux",
                           "python": "3.11"},
               "versions": {"clmodes": "0", "commit": "old1", "pyopencl": "1", "pocl": [],
                            "platforms": []},
               "devices": ["intel"], "merged": True,
               "runs": [{"bench": bench, "script": f"bench_{bench}.py", "what": bench,
                         "device": "intel", "status": "ok", "seconds": 1.0, "load_before": 0.5,
                         "load_after": 0.5} for bench in ("core", RETIRED)],
               "rows": [{"bench": bench, "script": f"bench_{bench}.py", "device": "intel",
                         "figure": "x_ratio", "value": 2.0} for bench in ("core", RETIRED)],
               "curves": [{"bench": RETIRED, "device": "intel", "title": "t", "moments_s": [1],
                           "lines": {}}]}
    out.write_text(json.dumps(earlier))
    done = subprocess.run([sys.executable, str(BENCH / "run"), "--render", "--out", str(out),
                           "--doc", str(doc)], capture_output=True, text=True, timeout=TIMEOUT_S)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    report = json.loads(out.read_text())
    assert [r["bench"] for r in report["runs"]] == ["core"]
    assert [r["bench"] for r in report["rows"]] == ["core"] and report["curves"] == []
    assert report["date"] == earlier["date"] and report["machine"] == earlier["machine"]
    assert "## core" in doc.read_text() and RETIRED not in doc.read_text()


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
