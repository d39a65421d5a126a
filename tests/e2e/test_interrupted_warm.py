"""All or nothing for every way a warm stops (docs/store.md, "Interrupted"): Ctrl-C,
SIGTERM, SIGKILL, an exception in the workload or in clmodes' own persisting, at any
moment. The store is as it was (but for the measurements taken) or whole, the command
says so in one line with 128 + the signal, and the next warm completes what was left:
never "0 keys tuned" while a key the workload uses has no decision.

The trap (`clmodes.store.tuning`): a decision is published in its tune lease before the
warm's one transaction commits its tune row; interrupted between the two, the lease kept
a decision no row backed, and every later warm adopted it and stored nothing."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from clmodes.store import FILENAME
from support import stopping
from support.subprocesses import environment, run_cli

WORKLOAD = "support.stopping:workload"
KEYS = len(stopping.N)


def rows(directory, table: str) -> int:
    connection = sqlite3.connect(directory / FILENAME)
    try:
        return connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        connection.close()


def assert_completed_by_the_next_warm(directory, runtime: str) -> None:
    """Nothing was decided; the next warm decides every key, and `check` then passes."""
    assert rows(directory, "tune") == 0
    again = run_cli(directory, "warm", WORKLOAD, "--json", CLMODES_DEVICE=runtime)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["autotune"]["keys"] == KEYS
    checked = run_cli(directory, "check", WORKLOAD, CLMODES_DEVICE=runtime)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    connection = sqlite3.connect(directory / FILENAME)
    assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    connection.close()


@pytest.mark.parametrize("way, moment, status", [
    ("SIGINT", "tuning", 130), ("SIGINT", "persisting", 130), ("SIGINT", "gathering", 130),
    ("SIGTERM", "persisting", 143)])
def test_a_command_stopped_says_so_in_one_line_and_keeps_nothing_half_done(
        tmp_path, runtime, way, moment, status):
    out = run_cli(tmp_path, "warm", WORKLOAD, CLMODES_DEVICE=runtime, STOP=way, STOP_AT=moment)
    assert out.returncode == status, out.stderr
    assert "Traceback" not in out.stderr
    lines = [line for line in out.stderr.splitlines() if line.startswith("clmodes:")]
    assert len(lines) == 1 and "nothing half-written" in lines[0], out.stderr
    assert_completed_by_the_next_warm(tmp_path, runtime)


@pytest.mark.parametrize("way", ["SIGKILL", "exception"])
def test_a_warm_killed_or_failing_while_persisting_is_completed_by_the_next(
        tmp_path, runtime, way):
    code = "import clmodes; from support import stopping; clmodes.warm(stopping.workload)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=environment(tmp_path, CLMODES_DEVICE=runtime, STOP=way,
                                         STOP_AT="persisting"), timeout=300)
    assert out.returncode == (-signal.SIGKILL if way == "SIGKILL" else 1), out.stderr
    assert rows(tmp_path, "measurement") > 0  # measured, nothing decided
    assert_completed_by_the_next_warm(tmp_path, runtime)


def test_a_published_decision_no_row_backs_is_taken_over(tmp_path, runtime):
    """A store left by an older version (or any cause): every key's measurements and a
    decision in a lease whose owner is gone, no tune row."""
    out = run_cli(tmp_path, "warm", WORKLOAD, CLMODES_DEVICE=runtime)
    assert out.returncode == 0, out.stderr
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    connection = sqlite3.connect(tmp_path / FILENAME, isolation_level=None)
    connection.execute("INSERT INTO tune_lease SELECT model, tunable, tune_key, candidates, ?, ?, "
                       "value FROM tune", (f"{os.uname().nodename}:{gone.pid}:dead", time.time()))
    connection.execute("DELETE FROM tune")
    connection.close()
    assert_completed_by_the_next_warm(tmp_path, runtime)
