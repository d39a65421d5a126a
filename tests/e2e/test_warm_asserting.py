"""`clmodes warm` on real programs that check their results (`support.asserting`): a
discarding pass drops their launches, so their `assert np.allclose(...)` raises there.
The warm keeps what was gathered before the error, names the error in one line and exits
3; `--execute` runs the program for real. Each test starts on a fresh store and asks a
second process (`clmodes check`) what the store serves: nothing built from source, or
exactly the kernels the error stood in front of."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from clmodes.store import FILENAME
from support import asserting
from support.subprocesses import run_cli, run_python

ERROR_LINE = "clmodes: warm: the workload raised AssertionError"


def _raised_at(marker: str) -> str:
    """`tests/support/asserting.py:N`, N the line of `support.asserting` holding `marker`
    (the command runs in this directory, so the path is shown relative to it)."""
    source = Path(asserting.__file__)
    number = next(i for i, line in enumerate(source.read_text().splitlines(), 1) if marker in line)
    return f"{source.relative_to(Path.cwd())}:{number}"


def _error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("clmodes: ")]


def _check(store: Path, workload: str, runtime: str) -> tuple[int, dict]:
    out = run_cli(store, "check", f"support.asserting:{workload}", "--json", CLMODES_DEVICE=runtime)
    assert out.returncode in (0, 1), out.stderr
    return out.returncode, json.loads(out.stdout)


def _stored_kernels(store: Path) -> set[str]:
    connection = sqlite3.connect(store / FILENAME)
    try:
        return {name for (name,) in connection.execute("SELECT name FROM kernels")}
    finally:
        connection.close()


def test_a_check_in_the_gathering_pass_keeps_what_came_before_it(tmp_path, runtime):
    out = run_cli(tmp_path, "warm", "support.asserting:checks_then_launches_more",
                  CLMODES_DEVICE=runtime)
    assert out.returncode == 3, out.stderr
    assert "Traceback" not in out.stderr and "1 compiled" in out.stdout
    [line] = _error_lines(out.stderr)
    assert line.startswith(f"{ERROR_LINE} ('scale computed wrong') at "
                           f"{_raised_at('scale computed wrong')} during the gathering pass"), line
    assert line.endswith("persisted; --execute runs it for real"), line
    assert out.stderr.count("the workload raised") == 1  # the logged copy is not shown too
    # The next process runs it for real: the kernel before the check comes from the
    # store, the one after it (never reached in a discarding pass) is the only miss.
    status, report = _check(tmp_path, "checks_then_launches_more", runtime)
    assert status == 1 and report["compilation"]["loaded"] == 1, report
    assert [(m["kind"], m["name"]) for m in report["misses"]] == [("kernel", "after_the_check")]


def test_two_kernels_and_a_tune_before_the_check_are_all_kept(tmp_path, runtime):
    out = run_cli(tmp_path, "warm", "support.asserting:two_kernels_and_a_tune_then_checks",
                  "--json", CLMODES_DEVICE=runtime)
    assert out.returncode == 3, out.stderr
    report = json.loads(out.stdout)
    assert report["workload_error"] == {
        "type": "AssertionError", "message": "scale of the two computed wrong",
        "where": _raised_at("scale of the two computed wrong"), "phase": "gathering"}
    assert report["autotune"]["keys"] == 1  # tuned as far as it got: the tune is before the check
    assert len(_error_lines(out.stderr)) == 1
    status, checked = _check(tmp_path, "two_kernels_and_a_tune_then_checks", runtime)
    assert status == 0 and checked["passed"], checked
    assert checked["compilation"]["compiled"] == 0 and checked["autotune"]["keys"] == 0


def test_execute_runs_the_checks_for_real_and_the_store_then_serves_everything(tmp_path, runtime):
    out = run_cli(tmp_path, "warm", "support.asserting:checks_then_launches_more", "--execute",
                  "--json", CLMODES_DEVICE=runtime)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["workload_error"] is None and report["outside"]["kernels"] == 0, report
    assert report["compilation"]["compiled"] == 2 and not _error_lines(out.stderr)
    status, checked = _check(tmp_path, "checks_then_launches_more", runtime)
    assert status == 0 and checked["passed"], checked
    assert checked["compilation"]["loaded"] == 2


def test_a_check_failing_for_real_under_execute_is_one_line_and_keeps_what_was_built(
        tmp_path, runtime):
    out = run_cli(tmp_path, "warm", "support.asserting:fails_for_real", "--execute",
                  CLMODES_DEVICE=runtime)
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert _error_lines(out.stderr) == [
        f"clmodes: warm --execute: the workload raised AssertionError ('scale is not 4x') at "
        f"{_raised_at('scale is not 4x')} while running for real; what it built and tuned "
        "before is persisted"]
    assert _stored_kernels(tmp_path) == {"scale"}


API = """
import json, clmodes
from support import asserting
stats = clmodes.warm(asserting.checks_then_launches_more)
print(json.dumps(stats.as_dict()))
try:
    clmodes.warm(asserting.fails_before_launching)
except clmodes.NothingWarmedError as error:
    print(error)
"""


def test_the_api_returns_the_error_in_the_statistics_and_logs_one_warning(tmp_path, runtime):
    out = run_python(API, tmp_path, CLMODES_DEVICE=runtime)
    assert out.returncode == 0, out.stderr
    report, refused = out.stdout.strip().splitlines()
    error = json.loads(report)["workload_error"]
    assert (error["type"], error["phase"], error["where"]) == (
        "AssertionError", "gathering", _raised_at("scale computed wrong"))
    warned = [line for line in out.stderr.splitlines() if "the workload raised" in line]
    assert len(warned) == 1 and "execute=True" in warned[0], out.stderr
    assert "the workload raised KeyError" in refused and "nothing persisted" in refused
    assert _stored_kernels(tmp_path) == {"scale"}
