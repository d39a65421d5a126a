"""Binaries persist when the outermost compile-mode override closes, not only via warm()
(issue 13, item 2); a plain EXECUTE run persists none."""

from __future__ import annotations

import sqlite3

import pytest

from clmodes.store import FILENAME
from support.subprocesses import RUN_WORKLOAD, RUNTIMES, last_json, require_runtime, run_python

UNDER = """
import json, clmodes
from support import tunables
c = clmodes.StatisticsCollector()
with clmodes.ProcessModeOverride(clmodes.ProcessMode.{outer}, c):
    {inner}
print(json.dumps(clmodes.StatisticsReader(c).statistics().as_dict()))
"""
NESTED = """with clmodes.ProcessModeOverride(clmodes.ProcessMode.COMPILE_AND_AUTOTUNE):
        tunables.workload()
    binaries = clmodes.default_store().count("binaries")
    assert binaries == 0, f"captured at an inner close: {binaries}" """


@pytest.mark.parametrize("runtime", list(RUNTIMES.values()), ids=list(RUNTIMES))
def test_a_compile_and_autotune_run_persists_what_it_used(tmp_path, runtime):
    require_runtime(runtime)
    tuned = last_json(run_python(UNDER.format(outer="COMPILE_AND_AUTOTUNE",
                                              inner="tunables.workload()"),
                                 tmp_path, CLMODES_DEVICE=runtime))
    assert tuned["autotune"]["keys"] == 1 and tuned["compilation"]["compiled"] >= 13
    run = last_json(run_python(RUN_WORKLOAD, tmp_path, CLMODES_DEVICE=runtime))
    assert run["demo_ok"] and run["tuned_ok"]
    assert run["source_builds"] == 0 and run["compilation"]["loaded"] == 13
    assert run["autotune"]["keys"] == 0
    names = [n for (n,) in sqlite3.connect(tmp_path / FILENAME).execute("SELECT name FROM kernels")]
    assert names.count("twice") == 1  # the winner's kernel, not the losers'


def test_capture_waits_for_the_outermost_override(tmp_path):
    last_json(run_python(UNDER.format(outer="COMPILE_ONLY", inner=NESTED), tmp_path))
    assert sqlite3.connect(tmp_path / FILENAME).execute(
        "SELECT COUNT(*) FROM binaries").fetchone()[0] > 0


def test_an_execute_run_persists_no_binaries(tmp_path):
    last_json(run_python(RUN_WORKLOAD, tmp_path))
    assert sqlite3.connect(tmp_path / FILENAME).execute(
        "SELECT COUNT(*) FROM binaries").fetchone()[0] == 0
