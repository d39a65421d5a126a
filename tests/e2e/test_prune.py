"""`clmodes cache prune`, last uses, `$CLMODES_CACHE_MAX_SIZE` and `bundle export --since`,
on real stores warmed by real processes (docs/contract.md, Persistence: the store's size).

Each workload of `support.pruned` stores one binary of its own, so which entries a prune
kept is read off the store by kernel key, and a fresh process shows that what was evicted
is rebuilt from source and what was kept still loads.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import sys
import time
from datetime import datetime

import pytest

import clmodes
from clmodes.store import FILENAME, Store, footprint
from clmodes.sizes import shown
from clmodes.store.footprint import BINARY, MEASUREMENT, TUNE, entry_text
from support import pruned
from support.subprocesses import (
    RUN_WORKLOAD,
    can_mount_read_only,
    last_json,
    run_cli,
    run_python,
    run_read_only,
    spawn_python,
)


def warm(cache_dir, runtime, names, **env):
    """Warm `names` (letters of `support.pruned`) one after another in one fresh process;
    when each warm ended."""
    return last_json(run_python(f"from support import pruned; pruned.main('warm', {names!r})",
                                cache_dir, CLMODES_DEVICE=runtime, **env))


def run(cache_dir, runtime, names):
    return last_json(run_python(f"from support import pruned; pruned.main('run', {names!r})",
                                cache_dir, CLMODES_DEVICE=runtime))


def stored(cache_dir) -> dict[str, object]:
    """Which `support.pruned` workloads the store holds a loadable binary for, by name."""
    store = Store(cache_dir)
    try:
        found = {}
        for name in pruned.FACTORS:
            batch = dict(store.query("SELECT kernel_key, batch FROM kernels")).get(pruned.kernel(name).key)
            if batch is not None and store.query("SELECT 1 FROM binaries WHERE batch=?", (batch,)):
                found[name] = batch
        return found
    finally:
        store.close()


def entries(cache_dir) -> list[footprint.Entry]:
    store = Store(cache_dir)
    try:
        return footprint.entries(lambda sql: store.query(sql))
    finally:
        store.close()


def consistent(cache_dir) -> None:
    """No kernel row without its binary, no measurement-less mess: SQLite's own check and
    the store's pairing of binaries and kernel rows."""
    with sqlite3.connect(cache_dir / FILENAME) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert connection.execute(
            "SELECT COUNT(*) FROM kernels k WHERE NOT EXISTS (SELECT 1 FROM binaries b "
            "WHERE b.exact = k.exact AND b.batch = k.batch)").fetchone() == (0,)


def test_prune_keeps_the_most_recently_used(tmp_path, runtime):
    # PoCL's kernel cache off: binaries big enough that evicting one leaves pages worth a
    # vacuum (PoCL's source records are a few kB: `clmodes.source_records`).
    warm(tmp_path, runtime, "abc", POCL_KERNEL_CACHE="0")  # created in this order: a oldest
    assert set(stored(tmp_path)) == {"a", "b", "c"}
    before = {e.key: e.used for e in entries(tmp_path) if e.kind == BINARY}

    touched = run(tmp_path, runtime, "a")  # a fresh process loads a: a use, across processes
    assert touched["a"] == {"ok": True, "compiled": 0, "loaded": 1}
    after = {e.key: e.used for e in entries(tmp_path) if e.kind == BINARY}
    batches = stored(tmp_path)
    a_key = next(k for k in after if k[1] == batches["a"])
    assert after[a_key] > max(before.values())  # written by that process, at its exit
    assert all(after[k] == before[k] for k in after if k != a_key)

    binaries = {e.key[1]: e for e in entries(tmp_path) if e.kind == BINARY}
    total = sum(e.bytes for e in entries(tmp_path))
    cap = total - binaries[batches["b"]].bytes  # room for all but one binary
    out = run_cli(tmp_path, "cache", "prune", "--max-size", str(cap), "--json")
    report = json.loads(out.stdout)
    assert out.returncode == 0, out.stderr
    assert report["evicted"]["binaries"] == 1 and report["evicted"]["kernels"] == 1
    assert report["bytes_after"] <= cap < report["bytes_before"]
    assert report["compacted"] == "vacuum"
    assert report["file_bytes_after"] <= report["file_bytes_before"]
    assert set(stored(tmp_path)) == {"a", "c"}  # b: least recently used (a was touched)
    consistent(tmp_path)

    again = run(tmp_path, runtime, "abc")  # what was evicted rebuilds; the rest loads
    assert all(r["ok"] for r in again.values())
    assert again["b"]["compiled"] == 1 and again["b"]["loaded"] == 0
    assert again["a"]["loaded"] == 1 and again["c"]["loaded"] == 1


HOLD_LEASE = """
import os, platform, time
from clmodes.records.measurement import CandidateMeasurement, Outcome
from clmodes.store import Store
store = Store(os.environ["CLMODES_CACHE_DIR"])
key, owner = ("model-x", "held", '{"n":1}', "cands"), f"{platform.node()}:{os.getpid()}:test"
assert store.claim_tune(key, owner).mine
store.put_measurement_record("model-x", "held", '{"n":1}', "slow", "identity",
                             CandidateMeasurement(Outcome.MEASURED, 0.5))
print("claimed", flush=True)
while True:  # a tune in progress: beating until killed
    store.beat_tune(key, owner)
    time.sleep(0.5)
"""


def prune(cache_dir, max_size):
    store = Store(cache_dir)
    try:
        return clmodes.prune(max_size, store=store)
    finally:
        store.close()


def test_a_live_lease_is_never_evicted(tmp_path, runtime):
    warm(tmp_path, runtime, "a")
    tuned = last_json(run_python(
        "import json; from support import tunables; "
        "print(json.dumps(tunables.run_in_fresh_process('pruned', 1024)))",
        tmp_path, CLMODES_DEVICE=runtime))
    assert tuned["keys"] == 1 and tuned["ok"]
    holder = spawn_python(HOLD_LEASE, tmp_path)  # another live process, tuning a key
    try:
        assert holder.stdout.readline().strip() == "claimed", holder.stderr.read()
        report = prune(tmp_path, 0)
        assert report.in_use == 1 and report.over_cap
        left = {(e.kind, e.key[2] if len(e.key) > 2 else None) for e in entries(tmp_path)}
        assert left == {(MEASUREMENT, "held")}  # the binary and the finished tune went
        assert report.evicted["binaries"] == 1 and report.evicted["tune_results"] == 1
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=60)
    # Its owner is gone (this host, no such process): the lease is dead, its key evictable.
    report = prune(tmp_path, 0)
    assert report.in_use == 0 and report.bytes_after == 0 and report.evicted["measurements"] == 1
    consistent(tmp_path)


def test_prune_beside_a_concurrent_warm_leaves_the_store_consistent(tmp_path, runtime):
    warmer = spawn_python("import json, clmodes; from support import tunables; "
                          "print(json.dumps(clmodes.warm(tunables.workload).as_dict()))",
                          tmp_path, CLMODES_DEVICE=runtime)
    prunes = 0
    while warmer.poll() is None:
        report = prune(tmp_path, 0)
        prunes += 1
        time.sleep(0.05)
    out, err = warmer.communicate(timeout=60)
    assert warmer.returncode == 0, err
    assert json.loads(out.strip().splitlines()[-1])["autotune"]["keys"] == 1
    assert prunes > 1 and report.location.endswith(FILENAME)
    consistent(tmp_path)
    checks = last_json(run_python(RUN_WORKLOAD, tmp_path, CLMODES_DEVICE=runtime))
    assert checks["demo_ok"] and checks["tuned_ok"]  # whatever was left loads; the rest builds


def test_max_size_variable_prunes_after_a_warm(tmp_path, runtime):
    warm(tmp_path, runtime, "a")
    (one,) = [e.bytes for e in entries(tmp_path)]
    out = run_cli(tmp_path, "warm", "support.pruned:workload_b", "-v",
                  CLMODES_DEVICE=runtime, CLMODES_CACHE_MAX_SIZE=str(one * 3 // 2))
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stderr.splitlines() if "CLMODES_CACHE_MAX_SIZE" in line]
    assert len(lines) == 1 and "evicted 1 binaries" in lines[0], out.stderr
    assert set(stored(tmp_path)) == {"b"}

    shown = json.loads(run_cli(tmp_path, "cache", "info", "--json",
                               CLMODES_CACHE_MAX_SIZE="800k").stdout)
    assert shown["max_size"] == 800 * 1024 and shown["entry_bytes"] == sum(
        e.bytes for e in entries(tmp_path))

    bad = run_cli(tmp_path, "warm", "support.pruned:workload_c", CLMODES_DEVICE=runtime,
                  CLMODES_CACHE_MAX_SIZE="lots")
    assert bad.returncode == 0, bad.stderr
    warned = [line for line in bad.stderr.splitlines() if "CLMODES_CACHE_MAX_SIZE" in line]
    assert len(warned) == 1 and "'lots' is not a size" in warned[0] and "not pruned" in warned[0]
    assert set(stored(tmp_path)) == {"b", "c"}


def test_export_since_takes_only_recent_entries(tmp_path, runtime):
    maker, target = tmp_path / "maker", tmp_path / "target"
    times = warm(maker, runtime, "ab")
    between = datetime.fromtimestamp(times["a"] + 0.01).isoformat()
    recent = tmp_path / "recent.clmodes"
    out = run_cli(maker, "bundle", "export", str(recent), "--since", between, "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["manifest"]["counts"]["kernels"] == 1
    everything = json.loads(run_cli(maker, "bundle", "export", str(tmp_path / "all.clmodes"),
                                    "--since", "1d", "--json").stdout)
    assert everything["manifest"]["counts"]["kernels"] == 2

    imported = run_cli(target, "bundle", "import", str(recent), "--allow-unsigned", "--json")
    assert imported.returncode == 0, imported.stderr
    after = run(target, runtime, "ab")
    assert after["b"] == {"ok": True, "compiled": 0, "loaded": 1}  # shipped: used since WHEN
    assert after["a"]["ok"] and after["a"]["compiled"] == 1  # not shipped: built here

    empty = run_cli(maker, "bundle", "export", str(tmp_path / "none.clmodes"),
                    "--since", datetime.fromtimestamp(time.time() - 0.5).isoformat())
    assert empty.returncode == 2 and "nothing to export" in empty.stderr
    assert len(empty.stderr.strip().splitlines()) == 1


def test_export_holds_only_kernels_the_workload_launched(tmp_path, runtime):
    """A bundle carries the kernels a workload launched (a tune's winner, not its losing
    candidates): every one of them, and nothing else."""
    maker, target = tmp_path / "maker", tmp_path / "target"
    assert run_cli(maker, "warm", "support.tunables:workload", CLMODES_DEVICE=runtime).returncode == 0
    bundle = tmp_path / "w.clmodes"
    manifest = json.loads(run_cli(maker, "bundle", "export", str(bundle), "--json").stdout)["manifest"]
    assert run_cli(target, "bundle", "import", str(bundle), "--allow-unsigned").returncode == 0
    launched = last_json(run_python(
        "import json, clmodes\nfrom clmodes.execution import usage\nfrom support import tunables\n"
        "with usage.recording() as used, clmodes.ProcessModeOverride(clmodes.ProcessMode.EXECUTE):\n"
        "    tunables.workload()\nprint(json.dumps(sorted(used)))", target, CLMODES_DEVICE=runtime))
    store = Store(target)
    shipped = {key for (key,) in store.query("SELECT kernel_key FROM kernels")}
    store.close()
    assert shipped == set(launched) and manifest["counts"]["kernels"] == len(launched)
    checks = last_json(run_python(RUN_WORKLOAD, target, CLMODES_DEVICE=runtime))
    assert checks["compilation"]["compiled"] == 0 and checks["source_builds"] == 0


@pytest.mark.parametrize("args, message", [
    (("cache", "prune", "--max-size", "lots"), "--max-size 'lots' is not a size"),
    (("cache", "prune", "--max-size", "-5"), "is not a size"),
    (("cache", "prune", "--max-size", "9" * 5000), "is not a size"),
    (("bundle", "export", "x.clmodes", "--since", "yesterday"), "--since 'yesterday': not a time"),
    (("bundle", "export", "x.clmodes", "--since", "2999-01-01"), "in the future"),
])
def test_bad_sizes_and_times_are_one_line(tmp_path, args, message):
    out = run_cli(tmp_path, *args)
    assert out.returncode == 2 and message in out.stderr, out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_a_read_only_store_is_read_not_pruned(tmp_path, runtime):
    (tmp_path / "probe").mkdir()
    if not can_mount_read_only(tmp_path / "probe"):
        pytest.skip("cannot bind-mount a folder read-only here (unshare --mount)")
    store_dir = tmp_path / "store"
    warm(store_dir, runtime, "a")
    for leftover in store_dir.glob(f"{FILENAME}-*"):  # as shipped: the database file alone
        leftover.unlink()
    before = (store_dir / FILENAME).read_bytes()
    ran = run_read_only(store_dir, "env", f"CLMODES_DEVICE={runtime}", sys.executable, "-c",
                        "from support import pruned; pruned.main('run', 'a')")
    assert last_json(ran)["a"] == {"ok": True, "compiled": 0, "loaded": 1}
    refused = run_read_only(store_dir, sys.executable, "-m", "clmodes", "cache", "prune",
                            "--max-size", "0")
    assert refused.returncode == 2 and "nothing pruned" in refused.stderr, refused.stderr
    (tmp_path / "out").mkdir()
    exported = run_read_only(store_dir, sys.executable, "-m", "clmodes", "bundle", "export",
                             str(tmp_path / "out" / "b.clmodes"), "--since", "1h", "--json")
    assert exported.returncode == 0, exported.stderr
    assert json.loads(exported.stdout)["manifest"]["counts"]["kernels"] == 1
    assert (store_dir / FILENAME).read_bytes() == before
    assert sorted(p.name for p in store_dir.iterdir()) == [FILENAME]


def test_a_store_without_last_uses_counts_entries_as_used_when_created(tmp_path, runtime):
    """A store an older clmodes made has no `last_use` table: it opens, its entries are as
    recent as their `created`, and a prune works on it."""
    warm(tmp_path, runtime, "ab")
    with sqlite3.connect(tmp_path / FILENAME) as connection:
        connection.execute("DROP TABLE last_use")
    assert run(tmp_path, runtime, "b")["b"]["loaded"] == 1  # re-creates the table, notes b
    store = Store(tmp_path)
    rows = store.query("SELECT kind, entry FROM last_use")
    batches = stored(tmp_path)
    exact = store.query("SELECT exact FROM binaries LIMIT 1")[0][0]
    assert rows == [(BINARY, entry_text((exact, batches["b"])))]
    (a,) = [e for e in entries(tmp_path) if e.key[1] == batches["a"]]
    report = store.prune(sum(e.bytes for e in entries(tmp_path)) - a.bytes)
    store.close()
    assert report.evicted["binaries"] == 1 and set(stored(tmp_path)) == {"b"}


# Eviction by cost: binaries (seconds of building) before decisions (minutes of measuring).
# Each tuned workload of `support.pruned` (d, e, f, ...) stores a decision, its key's
# measurements and its winner's binary.


def decisions(cache_dir) -> set[str]:
    """The tuned workloads the store holds a decision for, by letter."""
    return {e.key[2].removeprefix("pruned.") for e in entries(cache_dir) if e.kind == TUNE}


def owner(entry: footprint.Entry, ended: dict[str, float]) -> str:
    """The workload that wrote `entry`: the first warm that ended after it was written
    (`ended`: when each warm ended, from `warm`)."""
    return min((t, name) for name, t in ended.items() if entry.created <= t)[1]


def binaries(cache_dir, ended: dict[str, float]) -> list[str]:
    """The tuned workloads the store holds a binary of, by letter, in warm order."""
    return sorted((owner(e, ended) for e in entries(cache_dir) if e.kind == BINARY),
                  key=ended.get)


def test_a_cap_evicts_binaries_and_keeps_every_decision(tmp_path, runtime):
    """The user's report: under a cap of about three workloads, a store ended with 2
    binaries and 0 decisions, and every later run tuned again. Binaries as the report had
    them: PoCL's kernel cache off, else a PoCL store holds source records, a few kB each,
    and three workloads' worth cannot hold seven decisions (`clmodes.source_records`)."""
    ended = warm(tmp_path, runtime, "def", POCL_KERNEL_CACHE="0")
    three = sum(e.bytes for e in entries(tmp_path))  # three workloads' worth
    ended |= warm(tmp_path, runtime, "ghij", CLMODES_CACHE_MAX_SIZE=str(three * 11 // 10),
                  POCL_KERNEL_CACHE="0")
    assert decisions(tmp_path) == set("defghij")  # every decision and its measurements
    assert {e.key[2] for e in entries(tmp_path) if e.kind == MEASUREMENT} == {
        f"pruned.{name}" for name in "defghij"}
    kept = binaries(tmp_path, ended)
    assert 1 <= len(kept) < 7 and kept == list("defghij"[-len(kept):])  # the oldest went
    assert sum(e.bytes for e in entries(tmp_path)) <= three * 11 // 10
    consistent(tmp_path)
    later = run(tmp_path, runtime, "dj")  # a later run rebuilds what went, tunes nothing
    assert later["d"] == {"ok": True, "compiled": 1, "loaded": 0, "tuned": 0}
    assert later["j"] == {"ok": True, "compiled": 0, "loaded": 1, "tuned": 0}


def test_a_cap_below_one_workload_keeps_what_the_warm_made(tmp_path, runtime):
    # PoCL's kernel cache off: binaries over 4 KiB (a PoCL source record of these
    # workloads fits under it: `clmodes.source_records`).
    ended = warm(tmp_path, runtime, "d", POCL_KERNEL_CACHE="0")
    out = run_cli(tmp_path, "warm", "support.pruned:workload_e", CLMODES_DEVICE=runtime,
                  CLMODES_CACHE_MAX_SIZE="4k", POCL_KERNEL_CACHE="0")
    assert out.returncode == 0, out.stderr
    ended["e"] = time.time()
    needed = sum(e.bytes for e in entries(tmp_path))
    lines = [line for line in out.stderr.splitlines() if "CLMODES_CACHE_MAX_SIZE" in line]
    assert len(lines) == 1, out.stderr
    assert "4 KiB is smaller than what this warm's workload needs" in lines[0]
    assert f"({shown(needed)} in 3 entries)" in lines[0] and "kept them" in lines[0]
    assert decisions(tmp_path) == {"e"} and binaries(tmp_path, ended) == ["e"]  # d: evicted
    assert {e.kind for e in entries(tmp_path)} == {BINARY, TUNE, MEASUREMENT}
    consistent(tmp_path)
    assert run(tmp_path, runtime, "e")["e"] == {"ok": True, "compiled": 0, "loaded": 1,
                                                "tuned": 0}


def test_least_recently_used_binaries_go_first_and_decisions_stay(tmp_path, runtime):
    ended = warm(tmp_path, runtime, "def")
    assert run(tmp_path, runtime, "d")["d"]["loaded"] == 1  # d: used again, in a new process
    found = entries(tmp_path)
    (e_binary,) = [e for e in found if e.kind == BINARY and owner(e, ended) == "e"]
    cap = sum(e.bytes for e in found) - e_binary.bytes  # room for all but one binary
    out = run_cli(tmp_path, "cache", "prune", "--max-size", str(cap), "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["evicted"] == {"binaries": 1, "kernels": 1, "tune_results": 0,
                                 "measurements": 0}
    assert binaries(tmp_path, ended) == ["d", "f"]  # e: the least recently used binary
    assert decisions(tmp_path) == set("def")
    consistent(tmp_path)
    again = run(tmp_path, runtime, "def")
    assert again["e"] == {"ok": True, "compiled": 1, "loaded": 0, "tuned": 0}
    assert again["d"]["loaded"] == again["f"]["loaded"] == 1
