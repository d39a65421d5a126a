"""The store under faults, in fresh processes: a warmed store shipped read-only is read
and used, and corruption met at any point is moved aside once and the work goes on."""

import hashlib
import json
import sqlite3
import subprocess
import sys
import time

import pytest

from clmodes.store import FILENAME
from support.faults import aside_files, filled_store, garbage_into_the_middle
from support.subprocesses import (
    RUN_WORKLOAD,
    can_mount_read_only,
    environment,
    last_json,
    run_python,
    run_read_only,
)

WARM = ("import json, clmodes; from support import tunables; "
        "print(json.dumps(clmodes.warm(tunables.workload).as_dict()))")


def digests(directory):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in directory.iterdir()}


@pytest.fixture
def read_only_mounts(tmp_path_factory):
    if not can_mount_read_only(tmp_path_factory.mktemp("probe")):
        pytest.skip("cannot bind-mount a folder read-only here (unshare --mount)")


def test_a_warmed_store_mounted_read_only_is_used(tmp_path, read_only_mounts):
    last_json(run_python(WARM, tmp_path))
    before = digests(tmp_path)
    out = run_read_only(tmp_path, sys.executable, "-c", RUN_WORKLOAD)
    run = last_json(out)
    assert run["demo_ok"] and run["tuned_ok"]
    assert run["compilation"]["compiled"] == 0 and run["compilation"]["builds"] == 0
    assert run["compilation"]["loaded"] == 13 and run["source_builds"] == 0
    assert run["autotune"]["keys"] == 0  # the shipped winner, not a re-tune
    assert out.stderr.count("is read-only") == 1, out.stderr
    assert str(tmp_path / FILENAME) in out.stderr and "in memory" in out.stderr
    assert digests(tmp_path) == before


def test_commands_that_must_persist_refuse_a_read_only_store(tmp_path, read_only_mounts):
    last_json(run_python(WARM, tmp_path))
    before = digests(tmp_path)

    def cli(*args):
        return run_read_only(tmp_path, sys.executable, "-m", "clmodes", *args)

    refused = cli("warm", "support.tunables:workload")
    assert refused.returncode == 2 and str(tmp_path) in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr
    allowed = cli("warm", "support.tunables:workload", "--allow-memory", "--json")
    assert allowed.returncode == 0, allowed.stderr
    allowed = json.loads(allowed.stdout)
    assert allowed["autotune"]["keys"] == 0 and allowed["compilation"]["compiled"] == 0
    cleared = cli("cache", "clear")
    assert cleared.returncode == 2 and "read-only" in cleared.stderr
    assert "nothing cleared" in cleared.stderr.splitlines()[-1]
    shown = cli("cache", "info", "--json")
    assert shown.returncode == 0, shown.stderr
    info = json.loads(shown.stdout)
    assert info["read_only"] is True and info["devices"]
    assert digests(tmp_path) == before


def test_garbage_in_a_warmed_store_is_moved_aside_once(tmp_path):
    last_json(run_python(WARM, tmp_path))
    garbage_into_the_middle(tmp_path)
    out = run_python(RUN_WORKLOAD, tmp_path)
    run = last_json(out)
    assert run["demo_ok"] and run["tuned_ok"]
    (aside,) = aside_files(tmp_path)
    assert out.stderr.count("clmodes store") == 1, out.stderr  # one warning, no "read failed"
    assert "moved aside" in out.stderr and str(aside) in out.stderr
    # The next warm records normally into the fresh store, and the next run starts warm.
    warmed = last_json(run_python(WARM, tmp_path))
    assert warmed["compilation"]["compiled"] >= 13
    again = run_python(RUN_WORKLOAD, tmp_path)
    run = last_json(again)
    assert run["compilation"]["compiled"] == 0 and run["autotune"]["keys"] == 0
    assert "clmodes store" not in again.stderr and len(aside_files(tmp_path)) == 1


MID_RUN = """
import json, clmodes
from support import faults, tunables
store = clmodes.default_store()
assert store.count("tune") == 1  # open, and read, before the damage
faults.garbage_into_the_middle(store.path.parent)
c = clmodes.StatisticsCollector()
with clmodes.ProcessModeOverride(clmodes.ProcessMode.EXECUTE, c):
    checks = tunables.workload()
print(json.dumps({**checks, **clmodes.StatisticsReader(c).statistics().as_dict(),
                  "tune_rows": store.count("tune"), "location": store.location}))
"""


def test_corruption_met_by_an_open_store_is_moved_aside(tmp_path):
    last_json(run_python(WARM, tmp_path))
    out = run_python(MID_RUN, tmp_path)
    run = last_json(out)
    assert run["demo_ok"] and run["tuned_ok"]
    assert run["location"] == str(tmp_path / FILENAME)  # a fresh file, not memory
    assert run["tune_rows"] == 1  # the tune after the damage recorded into the fresh store
    assert out.stderr.count("clmodes store") == 1 and len(aside_files(tmp_path)) == 1
    later = last_json(run_python(RUN_WORKLOAD, tmp_path))
    assert later["autotune"]["keys"] == 0  # that winner serves the next process


RACE = """
import json, os, sys, time
from clmodes.store import Store
store = Store(sys.argv[1])
store.count("tune")
print("open", flush=True)
while not os.path.exists(sys.argv[2]):
    time.sleep(0.01)
entries = store.entries()
store.put_tune_json("model", "t", sys.argv[3], "c", {"winner": sys.argv[3]})
print(json.dumps({"binaries": len(entries.binaries), "location": store.location}))
"""


def test_two_processes_meeting_the_same_corruption_move_it_once(tmp_path):
    filled_store(tmp_path)
    go = tmp_path.parent / f"{tmp_path.name}-go"
    procs = [subprocess.Popen([sys.executable, "-c", RACE, str(tmp_path), str(go), f"p{i}"],
                              env=environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for i in range(2)]
    for proc in procs:
        assert proc.stdout.readline().strip() == "open"
    garbage_into_the_middle(tmp_path)
    go.touch()
    outputs = [proc.communicate(timeout=120) for proc in procs]
    assert all(proc.returncode == 0 for proc in procs), [err for _, err in outputs]
    assert len(aside_files(tmp_path)) == 1
    assert sum("moved aside to" in err for _, err in outputs) == 1
    reports = [json.loads(out.strip().splitlines()[-1]) for out, _ in outputs]
    assert {r["location"] for r in reports} == {str(tmp_path / FILENAME)}
    fresh = sqlite3.connect(tmp_path / FILENAME)
    assert fresh.execute("PRAGMA quick_check").fetchall() == [("ok",)]
    keys = {k for (k,) in fresh.execute("SELECT tune_key FROM tune")}
    assert keys == {"k", "p0", "p1"}  # neither process's write lost; the old entry still readable kept


WRITE_READ_ONLY = """
import json, sys
from clmodes.store import Store
store = Store(sys.argv[1])
before = store.count("tune")
store.put_tune_json("model", "t", "new key", "c", {"winner": "mine"})
print(json.dumps({"read_only": store.read_only, "reason": store.read_only_reason,
                  "before": before, "after": store.count("tune"),
                  "mine": store.get_tune_json("model", "t", "new key", "c")}))
"""


def test_writes_to_a_store_mounted_read_only_stay_in_this_process(tmp_path, read_only_mounts):
    filled_store(tmp_path)  # closed cleanly: no -wal or -shm, so it opens immutable
    before = digests(tmp_path)
    out = run_read_only(tmp_path, sys.executable, "-c", WRITE_READ_ONLY, str(tmp_path))
    report = last_json(out)
    assert report["read_only"] and "immutable" in report["reason"]
    assert report["before"] == 1 and report["after"] == 2
    assert report["mine"] == {"winner": "mine"}
    assert "write failed" not in out.stderr and out.stderr.count("is read-only") == 1
    assert digests(tmp_path) == before


OPEN_AT_ONCE = """
import json, sys, time
from clmodes.store import Store
while time.time() < float(sys.argv[2]):
    pass
store = Store(sys.argv[1])
store.put_tune_json("model", "t", sys.argv[3], "c", {"winner": sys.argv[3]})
print(json.dumps({"memory": store.in_memory}))
"""


def test_processes_opening_a_corrupt_store_at_once_move_it_once(tmp_path):
    (tmp_path / FILENAME).write_bytes(b"this is not an SQLite database" * 200)
    start = str(time.time() + 1.5)
    procs = [subprocess.Popen([sys.executable, "-c", OPEN_AT_ONCE, str(tmp_path), start, f"p{i}"],
                              env=environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for i in range(4)]
    outputs = [proc.communicate(timeout=120) for proc in procs]
    assert all(proc.returncode == 0 for proc in procs), [err for _, err in outputs]
    assert not any(json.loads(out.strip().splitlines()[-1])["memory"] for out, _ in outputs)
    (aside,) = aside_files(tmp_path)
    assert aside.read_bytes().startswith(b"this is not")
    assert sum("moved aside to" in err for _, err in outputs) == 1
    keys = {k for (k,) in sqlite3.connect(tmp_path / FILENAME).execute("SELECT tune_key FROM tune")}
    assert keys == {"p0", "p1", "p2", "p3"}  # nobody's fresh store was moved away
