"""`clmodes check` and `CLMODES_STRICT=1`: a cold store fails naming each miss and why; a
warmed one passes; a changed define, another shape or another driver's entries are named.
Fresh processes on one store, as CI and install scripts run them."""

from __future__ import annotations

import hashlib
import json
import warnings
from pathlib import Path

import pytest

from support.pyopencl_corpus import CORPUS
from support.subprocesses import RUNTIMES, pyopencl_ctx, run_cli, run_python

WORKLOAD = "support.checked:workload"


@pytest.fixture
def device(runtime: str) -> str:
    return runtime


def _check(store: Path, device: str, **env: str) -> tuple[int, dict]:
    out = run_cli(store, "check", WORKLOAD, "--json", CLMODES_DEVICE=device, **env)
    assert out.returncode in (0, 1), out.stderr
    return out.returncode, json.loads(out.stdout)


def _whys(report: dict, kind: str) -> list[str]:
    return [m["why"] for m in report["misses"] if m["kind"] == kind]


def test_a_cold_store_fails_naming_every_miss_then_a_warmed_one_passes(tmp_path: Path, device: str):
    code, report = _check(tmp_path, device)
    assert code == 1 and not report["passed"]
    assert report["compilation"]["compiled"] > 0 and report["autotune"]["keys"] == 1
    assert "no decision is stored for this tunable" in _whys(report, "tune")[0]
    assert all("holds no binaries" in why for why in _whys(report, "kernel"))
    text = run_cli(tmp_path / "other", "check", WORKLOAD, CLMODES_DEVICE=device)
    assert text.returncode == 1 and "check FAILED" in text.stdout.splitlines()[-1]

    warmed = run_cli(tmp_path, "warm", WORKLOAD, CLMODES_DEVICE=device)
    assert warmed.returncode == 0, warmed.stderr
    code, report = _check(tmp_path, device)
    assert (code, report["misses"], report["compilation"]["compiled"]) == (0, [], 0)


def test_a_changed_define_and_another_shape_are_named(tmp_path: Path, device: str):
    assert run_cli(tmp_path, "warm", WORKLOAD, CLMODES_DEVICE=device).returncode == 0
    code, report = _check(tmp_path, device, CHECKED_OFFSET="2.0f")
    assert code == 1 and report["autotune"]["keys"] == 0
    [why] = _whys(report, "kernel")
    assert "define OFFSET (1.0f -> 2.0f)" in why
    code, report = _check(tmp_path, device, CHECKED_N="640")
    assert code == 1
    assert _whys(report, "tune")[0].startswith('another shape: decisions are stored for 1 other key(s)')


def test_strict_raises_at_the_first_miss_and_lets_a_warm_warm(tmp_path: Path, device: str):
    code = "from support.checked import workload; workload()"
    out = run_python(code, cache_dir=tmp_path, CLMODES_DEVICE=device, CLMODES_STRICT="1")
    assert out.returncode != 0
    assert "StrictMissError: CLMODES_STRICT=1: tunable 'checked.twice'" in out.stderr
    assert run_cli(tmp_path, "warm", WORKLOAD, CLMODES_DEVICE=device,
                   CLMODES_STRICT="1").returncode == 0
    out = _warmed_run(code, tmp_path, device)
    assert out.returncode == 0, out.stderr


SIGSEGV = -11


def _warmed_run(code: str, store: Path, device: str):  # type: ignore[no-untyped-def]
    """The strict run on the warmed store. Quarantined, not hidden: twice in about eight
    suite runs (stop 48) this child died of SIGSEGV inside PoCL with nothing on stderr,
    and never in 120 runs of the same sequence alone, two at a time. A crash is retried
    once and reported as a warning with the stack Python's fault handler wrote; a second
    crash, or any other failure, fails the test."""
    def run():  # type: ignore[no-untyped-def]
        return run_python(code, cache_dir=store, CLMODES_DEVICE=device, CLMODES_STRICT="1",
                          PYTHONFAULTHANDLER="1")

    out = run()
    if out.returncode != SIGSEGV:
        return out
    again = run()
    warnings.warn(f"a warmed PoCL child crashed (SIGSEGV; its retry returned "
                  f"{again.returncode}): {out.stderr[-2000:]}", stacklevel=2)
    return again


def test_pyopencl_programs_are_misses_too(tmp_path: Path, device: str):
    workload = "support.checked:pyopencl_workload"
    out = run_cli(tmp_path, "check", workload, "--json", CLMODES_DEVICE=device)
    assert out.returncode == 1, out.stderr
    names = {m["name"] for m in json.loads(out.stdout)["misses"]}
    assert "checked_scale" in names and "reduce_kernel_stage1" in names
    strict = run_python("from support.checked import pyopencl_workload; pyopencl_workload()",
                        cache_dir=tmp_path, CLMODES_DEVICE=device, CLMODES_STRICT="1")
    assert "StrictMissError: CLMODES_STRICT=1: kernel 'checked_scale'" in strict.stderr
    assert run_cli(tmp_path, "warm", workload, CLMODES_DEVICE=device).returncode == 0
    passed = run_cli(tmp_path, "check", workload, CLMODES_DEVICE=device)
    assert passed.returncode == 0, passed.stdout


def _files(store: Path) -> dict[str, str]:
    """The store's file and its log, a digest of each: what a read-only check must leave
    as is. Not the `-shm`: SQLite's shared index, where every reader marks what it reads."""
    return {f.name: hashlib.sha256(f.read_bytes()).hexdigest()
            for f in sorted(store.glob("store.sqlite3*")) if not f.name.endswith("-shm")}


def test_a_program_on_its_own_context_fails_by_name_until_clmodes_run_warms_it(
        tmp_path: Path, device: str):
    """pyopencl code on a context of its own, never handed to clmodes: the check adopts
    the context as `clmodes run` does, so on a cold store each program is a miss by name
    (before, the check passed it: "0 compiled"); after `clmodes run` of the same code,
    the check passes."""
    workload = "support.checked:unadopted_workload"
    out = run_cli(tmp_path, "check", workload, "--json", CLMODES_DEVICE=device)
    assert out.returncode == 1, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert not report["passed"] and report["compilation"]["compiled"] >= 2
    names = {m["name"] for m in report["misses"] if m["kind"] == "kernel"}
    assert {"unadopted_square", "unadopted_plus"} <= names, names
    script = tmp_path / "program.py"
    script.write_text("from support.checked import unadopted_workload\nunadopted_workload()\n")
    ran = run_cli(tmp_path, "run", str(script), CLMODES_DEVICE=device)
    assert ran.returncode == 0, ran.stderr
    passed = run_cli(tmp_path, "check", workload, CLMODES_DEVICE=device)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "check passed" in passed.stdout.splitlines()[-1]


def test_an_unchanged_upstream_program_fails_by_name_then_passes_and_the_store_stays_as_it_was(
        tmp_path: Path, device: str):
    """pyopencl's demo-struct-reduce.py as upstream wrote it (its own context, from
    `PYOPENCL_CTX`; a struct reduction, a random-number program and pyopencl's struct
    layout probe): on a cold store the check names each of its programs; after `clmodes
    run` of the script it passes; neither check changes a byte of the store."""
    ctx = pyopencl_ctx(next(k for k, v in RUNTIMES.items() if v == device))
    workload = "support.pyopencl_corpus:struct_reduce"
    ran = run_cli(tmp_path, "run", str(CORPUS / "example_narray.py"), PYOPENCL_CTX=ctx)
    assert ran.returncode == 0, ran.stderr  # a store that exists, holding another program
    before = _files(tmp_path)
    out = run_cli(tmp_path, "check", workload, "--json", CLMODES_DEVICE=device, PYOPENCL_CTX=ctx)
    assert out.returncode == 1, out.stdout + out.stderr
    report = json.loads(out.stdout)
    names = {m["name"] for m in report["misses"] if m["kind"] == "kernel"}
    assert {"reduce_kernel_stage1", "reduce_kernel_stage2", "get_size_and_offsets"} <= names, names
    assert _files(tmp_path) == before
    ran = run_cli(tmp_path, "run", str(CORPUS / "example_demo_struct_reduce.py"), PYOPENCL_CTX=ctx)
    assert ran.returncode == 0, ran.stderr
    warmed = _files(tmp_path)
    passed = run_cli(tmp_path, "check", workload, CLMODES_DEVICE=device, PYOPENCL_CTX=ctx)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "check passed" in passed.stdout.splitlines()[-1]
    assert _files(tmp_path) == warmed


def test_a_check_never_writes_the_store_it_checks(tmp_path: Path, device: str):
    """A cold store's check tunes and compiles in memory only: the files are unchanged
    (a missing store stays missing), and a second check says what the first said."""
    code, report = _check(tmp_path, device)
    assert not list(tmp_path.glob("store.sqlite3*"))  # nothing was there: nothing is
    again, report_again = _check(tmp_path, device)
    assert (again, report_again["misses"]) == (code, report["misses"]) and code == 1
    assert run_cli(tmp_path, "warm", "support.checked:pyopencl_workload",
                   CLMODES_DEVICE=device).returncode == 0
    before = _files(tmp_path)
    code, report = _check(tmp_path, device)  # another workload: misses, tunes, compiles
    assert code == 1 and report["autotune"]["keys"] == 1 and report["compilation"]["compiled"] > 0
    assert _files(tmp_path) == before
    again, report_again = _check(tmp_path, device)
    assert (again, report_again["misses"]) == (code, report["misses"])


def test_json_reports_parse_when_the_workload_writes_to_standard_output(tmp_path: Path,
                                                                         device: str):
    """The workload's prints (Python's and descriptor 1's) go to standard error while a
    `--json` report owns standard output."""
    workload = "support.checked:printing_workload"
    for verb in ("warm", "check"):
        out = run_cli(tmp_path, verb, workload, "--json", CLMODES_DEVICE=device)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["workload"] == workload
        assert "step 1 of 1" in out.stderr and "written to descriptor 1" in out.stderr
    plain = run_cli(tmp_path, "check", workload, CLMODES_DEVICE=device)
    assert "step 1 of 1" in plain.stdout  # without --json the workload's output is as it was


def test_a_pyopencl_build_error_under_warm_is_one_line(tmp_path: Path, device: str):
    out = run_cli(tmp_path, "warm", "support.checked:broken_pyopencl_workload",
                  CLMODES_DEVICE=device)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    [line] = [x for x in out.stderr.splitlines() if x.startswith("clmodes: ")]
    assert "a pyopencl program of the workload failed to build on" in line
    assert "undefined_thing" in line
