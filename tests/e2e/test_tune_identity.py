"""Tune entries never outlive the code they measured; processes agree (issue 13, 1 and 3).

Every case is a sequence of fresh processes sharing one store, on PoCL and on Intel's CPU
runtime: a fresh process is the point (nothing survives in memory, only the store)."""

from __future__ import annotations

import json
import sqlite3
import uuid


from clmodes.store import FILENAME
from support.subprocesses import run_reporting, spawn_python



def tune(cache_dir, runtime: str, name: str, **edits) -> dict:
    return run_reporting("editing", cache_dir, runtime, name, **edits)


def test_an_edited_kernel_is_measured_again(tmp_path, runtime):
    name = f"edit-{uuid.uuid4().hex[:8]}"
    first = tune(tmp_path, runtime, name)
    again = tune(tmp_path, runtime, name)
    edited = tune(tmp_path, runtime, name, edit_all=True)
    after = tune(tmp_path, runtime, name, edit_all=True)
    assert first["keys"] == 1 and again["keys"] == 0 and first["ok"] and again["ok"]
    assert edited["keys"] == 1, "an edited kernel must re-measure, not reuse the old winner"
    assert "stored tune result not used" in edited["stderr"]
    # The two ITEMS candidates changed; "plain" did not, and its measurement is reused.
    assert edited["measured_here"] == 2
    assert edited["identities"]["plain"] == first["identities"]["plain"]
    assert edited["identities"]["ITEMS=1"] != first["identities"]["ITEMS=1"]
    assert after["keys"] == 0 and after["ok"]


def test_only_the_edited_candidate_is_measured(tmp_path, runtime):
    name = f"one-{uuid.uuid4().hex[:8]}"
    tune(tmp_path, runtime, name)
    edited = tune(tmp_path, runtime, name, edit_plain=True)
    assert edited["keys"] == 1 and edited["measured_here"] == 1 and edited["ok"]


def test_an_added_candidate_alone_is_measured(tmp_path, runtime):
    name = f"grow-{uuid.uuid4().hex[:8]}"
    tune(tmp_path, runtime, name)
    grown = tune(tmp_path, runtime, name, extra=True)
    assert grown["keys"] == 1 and grown["measured_here"] == 1 and grown["ok"]
    assert set(grown["identities"]) == {"ITEMS=1", "ITEMS=4", "ITEMS=16", "plain"}


def test_a_stored_winner_that_is_not_a_candidate_is_a_miss(tmp_path, runtime):
    name = f"bogus-{uuid.uuid4().hex[:8]}"
    first = tune(tmp_path, runtime, name)
    connection = sqlite3.connect(tmp_path / FILENAME)
    (value,) = connection.execute("SELECT value FROM tune WHERE tunable=?", (name,)).fetchone()
    record = json.loads(value)
    record["winner"] = "no-such-candidate"
    record["identities"]["no-such-candidate"] = "x"
    connection.execute("UPDATE tune SET value=? WHERE tunable=?", (json.dumps(record), name))
    connection.commit()
    connection.close()
    second = tune(tmp_path, runtime, name)
    assert second["ok"] and second["keys"] == 1
    assert second["stderr"].count("'no-such-candidate' is not a candidate") == 1
    # Everything measured before was reused: the tune measured nothing new (its
    # finalists may be re-raced, so the winner is any real candidate, not necessarily
    # the first's: these candidates are within noise of each other).
    assert second["measured_here"] == 0
    assert second["winner"] in first["identities"] and second["winner"] != "no-such-candidate"


def test_processes_racing_one_key_measure_it_once(tmp_path, runtime):
    """Six processes start the same untuned key at once: one measures it, the others wait
    for its decision and adopt it; all end with the store's winner."""
    name = f"race-{uuid.uuid4().hex[:8]}"
    code = f"from support import editing; print(editing.run({name!r}))"
    procs = [spawn_python(code, tmp_path, CLMODES_DEVICE=runtime) for _ in range(6)]
    outputs = [p.communicate(timeout=300) for p in procs]
    for proc, (_, stderr) in zip(procs, outputs):
        assert proc.returncode == 0, stderr
        assert "clmodes store" not in stderr, stderr
    reports = [json.loads(stdout.strip().splitlines()[-1]) for stdout, _ in outputs]
    connection = sqlite3.connect(tmp_path / FILENAME)
    (value,) = connection.execute("SELECT value FROM tune WHERE tunable=?", (name,)).fetchone()
    stored = json.loads(value)["winner"]
    assert all(r["ok"] and r["winner"] == stored for r in reports)
    assert sum(r["keys"] for r in reports) == 1, [r["keys"] for r in reports]
    assert connection.execute("SELECT COUNT(*) FROM tune_lease").fetchone()[0] == 0
