"""A store damaged under running processes: each process notices at its next read or
write that meets the damage, one moves the file aside, every process goes on in the fresh
store, and what they wrote into the damaged file after the damage is not lost."""

import json
import sqlite3
import subprocess
import sys

import pytest

from clmodes.store import FILENAME
from support.faults import aside_files, filled_store, garbage_into_the_middle, garbage_over_the_header
from support.subprocesses import environment

RUNNING = """
import json, os, sys, time
from clmodes.store import Store
store = Store(sys.argv[1])
store.count("tune")
print("open", flush=True)
while not os.path.exists(sys.argv[2]):
    time.sleep(0.01)
me = sys.argv[3]
store.put_tune_json("model", "t", me + "-before", "c", {"winner": me})  # into the damaged file
store.entries()  # reads every binary: meets damage in one
store.put_tune_json("model", "t", me + "-after", "c", {"winner": me})
print(json.dumps({"location": store.location, "memory": store.in_memory}))
"""


# Over the header, one process: nothing else writing, SQLite keeps page 1 cached and
# would never look at the file's header again.
@pytest.mark.parametrize("damage, processes", [(garbage_into_the_middle, 2),
                                               (garbage_over_the_header, 1),
                                               (garbage_over_the_header, 2)])
def test_damage_under_running_processes_is_moved_aside_once_and_their_rows_kept(
        tmp_path, damage, processes):
    filled_store(tmp_path)
    go = tmp_path.parent / f"{tmp_path.name}-go"
    procs = [subprocess.Popen([sys.executable, "-c", RUNNING, str(tmp_path), str(go), f"p{i}"],
                              env=environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for i in range(processes)]
    for proc in procs:
        assert proc.stdout.readline().strip() == "open"
    damage(tmp_path)
    go.touch()
    outputs = [proc.communicate(timeout=120) for proc in procs]
    assert all(proc.returncode == 0 for proc in procs), [err for _, err in outputs]
    errors = "".join(err for _, err in outputs)
    assert "Traceback" not in errors
    assert len(aside_files(tmp_path)) == 1
    assert errors.count("moved aside to") == 1, errors
    assert all(err.count("clmodes store") <= 1 for _, err in outputs), errors  # one warning each
    reports = [json.loads(out.strip().splitlines()[-1]) for out, _ in outputs]
    assert not any(r["memory"] for r in reports)
    fresh = sqlite3.connect(tmp_path / FILENAME)
    assert fresh.execute("PRAGMA quick_check").fetchall() == [("ok",)]
    keys = {k for (k,) in fresh.execute("SELECT tune_key FROM tune")}
    assert {f"p{i}-after" for i in range(processes)} <= keys
    if damage is garbage_into_the_middle:  # written into the damaged file, then kept
        assert {"k"} | {f"p{i}-before" for i in range(processes)} <= keys


WARMING = """
import json, os, sys, time
from clmodes.store import Store
store = Store(sys.argv[1])
store.put_probe(sys.argv[3], {})  # it wrote before the damage, and holds the store
print("open", flush=True)
while not os.path.exists(sys.argv[2]):
    time.sleep(0.01)
with store.deferred():  # a warm's one commit, after the damage
    for i in range(3):
        store.put_tune_json("model", "t", f"{sys.argv[3]}-warmed-{i}", "c", {"winner": "w"})
print(json.dumps({"memory": store.in_memory}))
"""


def truncated(directory) -> None:
    """Half the file gone, as a full disk or a careless copy leaves it."""
    path = directory / FILENAME
    with open(path, "r+b") as handle:
        handle.truncate(path.stat().st_size // 2)


@pytest.mark.parametrize("damage", [garbage_into_the_middle, truncated, garbage_over_the_header])
def test_damage_no_statement_reads_is_noticed_before_a_warm_commits(tmp_path, damage):
    """Damage in pages the running processes never read (the middle of a binary, a
    truncated tail) is noticed before a warm commits: one warning, the file moved aside
    once, nothing the warms wrote lost."""
    filled_store(tmp_path)
    go = tmp_path.parent / f"{tmp_path.name}-go"
    procs = [subprocess.Popen([sys.executable, "-c", WARMING, str(tmp_path), str(go), f"p{i}"],
                              env=environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for i in range(2)]
    for proc in procs:
        assert proc.stdout.readline().strip() == "open"
    damage(tmp_path)
    go.touch()
    outputs = [proc.communicate(timeout=120) for proc in procs]
    errors = "".join(err for _, err in outputs)
    assert all(proc.returncode == 0 for proc in procs), errors
    assert "Traceback" not in errors
    assert len(aside_files(tmp_path)) == 1 and errors.count("moved aside to") == 1, errors
    # The first to commit notices; the other follows the fresh store it finds at the path.
    assert all(err.count("clmodes store") <= 1 for _, err in outputs), errors
    fresh = sqlite3.connect(tmp_path / FILENAME)
    assert fresh.execute("PRAGMA quick_check").fetchall() == [("ok",)]
    keys = {k for (k,) in fresh.execute("SELECT tune_key FROM tune")}
    assert {f"p{i}-warmed-{j}" for i in range(2) for j in range(3)} <= keys
