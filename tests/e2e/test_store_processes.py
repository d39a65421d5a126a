"""docs/contract.md, Persistence: the SQLite store of tune results."""

import json
import os
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path


import clmodes
from clmodes.store import FILENAME
from support.subprocesses import environment, last_json, run_python, spawn_python
from support.faults import assert_attached


def fresh_process_tune(name: str, n: int, cache_dir: Path) -> dict:
    return last_json(run_python(
        f"import json; from support import tunables; print(json.dumps(tunables.run_in_fresh_process({name!r}, {n})))",
        cache_dir,
    ))


def test_fresh_process_reuses_the_store(tmp_path):
    name = f"reuse-{uuid.uuid4().hex[:8]}"
    first = fresh_process_tune(name, 2048, tmp_path)
    second = fresh_process_tune(name, 2048, tmp_path)
    assert first["keys"] == 1 and first["ok"]
    assert second["keys"] == 0 and second["ok"]
    assert second["winner"] == first["winner"]
    assert (tmp_path / FILENAME).exists()


def test_store_location_follows_env_and_api(tmp_path):
    out = run_python("import clmodes; print(clmodes.default_store().location)", tmp_path)
    assert out.stdout.strip() == str(tmp_path / FILENAME)
    store = clmodes.set_cache_dir(tmp_path / "elsewhere")
    try:
        assert store.location == str(tmp_path / "elsewhere" / FILENAME)
        assert clmodes.default_store() is store
    finally:
        clmodes.set_cache_dir(os.environ["CLMODES_CACHE_DIR"])


def test_four_processes_tune_the_same_keys(tmp_path):
    name = f"race-{uuid.uuid4().hex[:8]}"
    code = (
        "import json, logging\n"
        "from support import tunables\n"
        "logging.basicConfig(level=logging.WARNING)\n"
        f"results = [tunables.run_in_fresh_process({name!r}, n) for n in (1024, 2048, 3072)]\n"
        "print(json.dumps(results))\n"
    )
    procs = [spawn_python(code, tmp_path) for _ in range(4)]
    outputs = [p.communicate(timeout=300) for p in procs]
    for proc, (stdout, stderr) in zip(procs, outputs):
        assert proc.returncode == 0, stderr
    assert_attached(tmp_path, [stderr for _, stderr in outputs])
    results = [json.loads(stdout.strip().splitlines()[-1]) for stdout, _ in outputs]
    assert all(r["ok"] for rs in results for r in rs)
    connection = sqlite3.connect(tmp_path / FILENAME)
    assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    rows = connection.execute("SELECT tune_key, value FROM tune WHERE tunable=?", (name,)).fetchall()
    assert sorted(json.loads(k)["n"] for k, _ in rows) == [1024, 2048, 3072]
    # Every process ended up agreeing with the one winner per key in the store.
    stored = {json.loads(k)["n"]: json.loads(v)["winner"] for k, v in rows}
    for rs, (_, stderr) in zip(results, outputs):
        assert [r["winner"] for r in rs] == [stored[n] for n in (1024, 2048, 3072)], stderr
    # Each key was measured once, by one process; the others waited and adopted it.
    assert sum(r["keys"] for rs in results for r in rs) == 3


def test_processes_opening_a_new_store_at_once_share_it(tmp_path):
    """Eight processes create the same store file at the same instant and each records
    its own winner for one key: every one must get the first recorded winner back."""
    start = time.time() + 1.5
    code = (
        "import json, logging, sys, time\n"
        "logging.basicConfig(level=logging.WARNING)\n"
        "from clmodes.store import Store\n"
        f"while time.time() < {start}: pass\n"
        "store = Store(sys.argv[1])\n"
        "mine = f'p{sys.argv[2]}'\n"
        "got = store.put_tune_json('model', 'race', '{}', 'c', {'winner': mine})['winner']\n"
        "print(json.dumps({'memory': store.in_memory, 'winner': got}))\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path), str(i)],
                              env=environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for i in range(8)]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert_attached(tmp_path, [stderr for _, stderr in outputs])
    reports = [json.loads(stdout) for stdout, _ in outputs]
    assert not any(r["memory"] for r in reports)
    (stored,) = sqlite3.connect(tmp_path / FILENAME).execute("SELECT value FROM tune").fetchall()
    assert {r["winner"] for r in reports} == {json.loads(stored[0])["winner"]}


