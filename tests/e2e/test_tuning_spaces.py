"""Tuning spaces in fresh processes (issue 15): generations built in one batch each, a
budget honoured exactly, a killed tune resumed, a grown space or an edited kernel
measuring only what is new, a config that fails to build dropped with its log."""

from __future__ import annotations

import math
import signal
import sqlite3
import time
import uuid


from clmodes.store import FILENAME
from support.subprocesses import run_reporting, spawn_python

FULL = 22  # support.spaced.space(): 11 (ITEMS, WG) pairs x 2 bodies


def tune(cache_dir, runtime: str, name: str, **options) -> dict:
    return run_reporting("spaced", cache_dir, runtime, name, **options)


def name() -> str:
    return f"space-{uuid.uuid4().hex[:8]}"


def test_every_generation_builds_once(tmp_path, runtime):
    report = tune(tmp_path, runtime, name())
    assert report["ok"] and report["keys"] == 1 and report["space_size"] == FULL
    assert report["measured_here"] == FULL
    assert report["builds"] == math.ceil(FULL / 4)  # generation=4: one build each


def test_a_budget_of_n_configs_measures_n(tmp_path, runtime):
    report = tune(tmp_path, runtime, name(), configs=5)
    assert report["ok"] and report["measured_here"] == 5
    assert len(report["measured"]) + len(report["dropped"]) == 5


def test_a_grown_space_measures_only_the_new_configs(tmp_path, runtime):
    tunable = name()
    small = tune(tmp_path, runtime, tunable, items=(1, 2, 4))
    grown = tune(tmp_path, runtime, tunable)
    assert small["measured_here"] == 18 and grown["keys"] == 1
    assert grown["measured_here"] == FULL - 18  # ITEMS=8 x WG {16, 32} x 2 bodies
    assert grown["ok"] and len(grown["measured"]) + len(grown["dropped"]) == FULL


def test_an_edited_kernel_re_measures_exactly_its_configs(tmp_path, runtime):
    tunable = name()
    tune(tmp_path, runtime, tunable)
    edited = tune(tmp_path, runtime, tunable, edit="add")
    assert edited["keys"] == 1 and edited["ok"]
    assert edited["measured_here"] == FULL // 2  # the configs with BODY=add


def test_a_config_that_fails_to_build_is_dropped_and_named(tmp_path, runtime):
    report = tune(tmp_path, runtime, name(), bodies=("mul", "broken"))
    assert report["ok"] and report["keys"] == 1
    broken = {n: r for n, r in report["dropped"].items() if "BODY=broken" in n}
    assert len(broken) == FULL // 2, report["dropped"]
    assert all("failed" in reason and "twice" in reason for reason in broken.values())
    assert all("BODY=mul" in n for n in report["measured"])


def test_a_killed_tune_resumes_measuring_only_what_is_missing(tmp_path, runtime):
    tunable = name()
    code = f"from support import spaced; print(spaced.run({tunable!r}))"
    proc = spawn_python(code, tmp_path, CLMODES_DEVICE=runtime, SPACED_PAUSE_S="0.02")
    store = tmp_path / FILENAME
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if store.exists() and _measurements(store, tunable) >= 4:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the tune ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    taken = _measurements(store, tunable)
    assert 4 <= taken < FULL
    resumed = tune(tmp_path, runtime, tunable)
    assert resumed["ok"] and resumed["keys"] == 1
    assert resumed["measured_here"] == FULL - taken
    assert "waiting for process" not in resumed["stderr"]  # a dead owner is not waited for


def _measurements(store, tunable: str) -> int:
    connection = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5)
    try:
        return connection.execute("SELECT COUNT(*) FROM measurement WHERE tunable=?",
                                  (tunable,)).fetchone()[0]
    except sqlite3.OperationalError:  # the table not created yet
        return 0
    finally:
        connection.close()
