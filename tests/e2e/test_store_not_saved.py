"""A command that could not keep what it says it kept exits 4 with one line (issue 55,
items 1 and 4): a full disk under the store, and a store a newer clmodes wrote.

The full disk is real: a 2 MiB tmpfs in a private mount namespace (`unshare --mount`,
root or a user namespace), filled to the last byte after the store was made, so that
every write's log frame is refused by the file system (SQLite: "database or disk is
full"). Before, `clmodes warm` logged one warning and exited 0, and a CI step shipped
the empty store it left.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from clmodes.store import FILENAME
from support.subprocesses import RUNTIMES, environment, pyopencl_ctx, require_runtime, run_python

NOT_SAVED = 4
LINE = "could not record"

WORKLOAD = '''
import numpy as np, pyopencl.array as cla, clmodes
SOURCE = "__kernel void k{n}(__global float* o, float s) {{ o[get_global_id(0)] = {n} * s; }}"
KERNELS = [clmodes.Kernel(SOURCE.format(n=n), f"k{n}") for n in range(6)]
def work():
    stream = clmodes.client().stream()
    out = cla.zeros(stream.queue, 4, np.float32)
    for kernel in KERNELS:
        stream.launch(kernel, (4,), None, out.data, 2.0)
'''

PROGRAM = '''
import numpy as np, pyopencl as cl, pyopencl.array as cla
ctx = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(ctx)
program = cl.Program(ctx, "__kernel void twice(__global float* a) { a[get_global_id(0)] *= 2; }").build()
a = cla.to_device(queue, np.ones(4, np.float32))
program.twice(queue, (4,), None, a.data)
print(a.get().tolist())
'''

# Mount a tmpfs on the store's folder, make the store, fill the disk, then run the command.
FULL = ('mount -t tmpfs -o size=2m tmpfs "$0" && "$1" -m clmodes cache info >/dev/null && '
        'dd if=/dev/zero of="$0/fill" bs=4k 2>/dev/null; exec "$@"')


@pytest.fixture(scope="module")
def can_mount(tmp_path_factory) -> None:
    probe = tmp_path_factory.mktemp("probe")
    try:
        out = subprocess.run(["unshare", "--mount", "sh", "-c", 'mount -t tmpfs tmpfs "$0"',
                              str(probe)], capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as error:
        pytest.skip(f"no private mount namespace here ({error})")
    if out.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {out.stderr.decode().strip()}")


@pytest.fixture(params=list(RUNTIMES.values()), ids=list(RUNTIMES))
def runtime(request) -> str:
    return require_runtime(request.param)


def on_full_disk(store: Path, *command: str, **extra: str) -> subprocess.CompletedProcess:
    """`command` with the store's folder on a full 2 MiB tmpfs (the store made first)."""
    return subprocess.run(["unshare", "--mount", "sh", "-c", FULL, str(store), sys.executable,
                           *command], env=environment(store, **extra), cwd=store.parent,
                          capture_output=True, text=True, timeout=600)


def one_line(out: subprocess.CompletedProcess) -> str:
    lines = [line for line in out.stderr.splitlines() if line.startswith("clmodes: ")]
    assert len(lines) == 1, out.stderr
    assert "Traceback" not in out.stderr, out.stderr
    return lines[0]


def test_a_warm_whose_commit_the_disk_refuses_exits_4(tmp_path, can_mount, runtime):
    (tmp_path / "work.py").write_text(WORKLOAD)
    store = tmp_path / "store"
    store.mkdir()
    out = on_full_disk(store, "-m", "clmodes", "warm", "work:work", CLMODES_DEVICE=runtime)
    assert out.returncode == NOT_SAVED, out.stderr
    line = one_line(out)
    assert LINE in line and "disk is full" in line and "nothing of it was written" in line


def test_a_library_warm_whose_commit_fails_raises(tmp_path, can_mount, runtime):
    """`clmodes.warm()` from an install script raises `StoreWriteError` instead of
    returning statistics that say 6 compiled."""
    code = WORKLOAD + ("try:\n    clmodes.warm(work)\n    print('RETURNED')\n"
                       "except clmodes.StoreWriteError as error:\n    print('RAISED', error)\n")
    store = tmp_path / "store"
    store.mkdir()
    out = on_full_disk(store, "-c", code, CLMODES_DEVICE=runtime)
    assert "RAISED the store at" in out.stdout and "RETURNED" not in out.stdout, out.stderr


def test_an_import_the_disk_refuses_exits_4(tmp_path, can_mount, runtime):
    (tmp_path / "work.py").write_text(WORKLOAD)
    warmed = tmp_path / "warmed"
    out = cli(warmed, "warm", "work:work", CLMODES_DEVICE=runtime)
    assert out.returncode == 0, out.stderr
    assert cli(warmed, "bundle", "export", str(tmp_path / "b.clb")).returncode == 0
    store = tmp_path / "store"
    store.mkdir()
    out = on_full_disk(store, "-m", "clmodes", "bundle", "import", str(tmp_path / "b.clb"),
                       "--allow-unsigned")
    assert out.returncode == NOT_SAVED, out.stderr
    assert LINE in one_line(out)


def test_a_run_whose_programs_cannot_be_persisted_exits_4(tmp_path, can_mount, runtime):
    """The program's own output and a status that is not 0: what it built is not kept."""
    (tmp_path / "prog.py").write_text(PROGRAM)
    store = tmp_path / "store"
    store.mkdir()
    out = on_full_disk(store, "-m", "clmodes", "run", str(tmp_path / "prog.py"),
                       PYOPENCL_CTX=pyopencl_ctx(next(k for k, v in RUNTIMES.items() if v == runtime)))
    assert out.stdout.strip() == "[2.0, 2.0, 2.0, 2.0]", out.stderr
    assert out.returncode == NOT_SAVED, out.stderr
    assert LINE in one_line(out)


def cli(store: Path, *args: str, **extra: str) -> subprocess.CompletedProcess:
    """`clmodes ARGS` run from the store's parent folder (where `work.py` is)."""
    return subprocess.run([sys.executable, "-m", "clmodes", *args],
                          env=environment(store, **extra), cwd=store.parent,
                          capture_output=True, text=True, timeout=600)


def newer(store: Path) -> None:
    """Make `store` look written by a clmodes of schema 2 (a column added to `tune`)."""
    with sqlite3.connect(store / FILENAME) as connection:
        connection.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")
        connection.execute("ALTER TABLE tune ADD COLUMN added_later TEXT")
    connection.close()


def test_a_store_of_a_newer_clmodes_is_refused_by_warm_in_one_line(tmp_path, runtime):
    (tmp_path / "work.py").write_text(WORKLOAD)
    store = tmp_path / "store"
    assert cli(store, "warm", "work:work", CLMODES_DEVICE=runtime).returncode == 0
    newer(store)
    before = (store / FILENAME).read_bytes()
    out = cli(store, "-q", "warm", "work:work", CLMODES_DEVICE=runtime)
    assert out.returncode == 2, out.stderr
    line = one_line(out)
    assert "store schema 2" in line and "writes schema 1" in line, line
    # Read-only and said: what it holds still loads, and the file is not changed.
    ran = run_python(WORKLOAD + "import json\ns = clmodes.warm(work, allow_memory=True)\n"
                     "print(json.dumps(s.as_dict()['compilation']))", store,
                     CLMODES_DEVICE=runtime)
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout.strip().splitlines()[-1])["loaded"] == 6, ran.stderr
    assert "columns but" not in ran.stderr and "store schema 2" in ran.stderr
    assert (store / FILENAME).read_bytes() == before


# Mount a tmpfs on the store's folder, warm into it, fill the disk, then run the command.
WARMED_THEN_FULL = ('mount -t tmpfs -o size=8m tmpfs "$0" && "$1" -m clmodes warm work:work '
                    '>/dev/null && dd if=/dev/zero of="$0/fill" bs=4k 2>/dev/null; exec "$@"')


@pytest.mark.parametrize("verb", [("cache", "prune", "--max-size", "0"), ("cache", "clear")],
                         ids=["prune", "clear"])
def test_a_prune_or_clear_the_disk_refuses_exits_4(tmp_path, can_mount, runtime, verb):
    (tmp_path / "work.py").write_text(WORKLOAD)
    store = tmp_path / "store"
    store.mkdir()
    out = subprocess.run(["unshare", "--mount", "sh", "-c", WARMED_THEN_FULL, str(store),
                          sys.executable, "-m", "clmodes", *verb],
                         env=environment(store, CLMODES_DEVICE=runtime), cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == NOT_SAVED, out.stdout + out.stderr
    assert LINE in one_line(out)


RETRIED = WORKLOAD + '''
import json, os, sys
try:
    clmodes.warm(work)
    print("FIRST RETURNED")
except clmodes.StoreWriteError:
    print("FIRST REFUSED")
os.remove(sys.argv[1])  # space again
s = clmodes.warm(work)
print(json.dumps(s.as_dict()["compilation"]))
'''

# A full disk for the first warm only; then `clmodes check` of the same workload.
FULL_THEN_CHECK = ('mount -t tmpfs -o size=2m tmpfs "$0" && "$1" -m clmodes cache info >/dev/null && '
                   'dd if=/dev/zero of="$0/fill" bs=4k 2>/dev/null; "$1" -c "$2" "$0/fill" && '
                   'exec "$1" -m clmodes check work:work')


def test_a_warm_retried_in_the_same_process_after_a_full_disk_keeps_everything(
        tmp_path, can_mount, runtime):
    """The first warm's commit is refused; its process still believed every key decided
    and every program captured, so the second warm (space freed) wrote nothing and said
    it had warmed: `check` then built and tuned it all again."""
    (tmp_path / "work.py").write_text(WORKLOAD)
    store = tmp_path / "store"
    store.mkdir()
    out = subprocess.run(["unshare", "--mount", "sh", "-c", FULL_THEN_CHECK, str(store),
                          sys.executable, RETRIED],
                         env=environment(store, CLMODES_DEVICE=runtime), cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    assert "FIRST REFUSED" in out.stdout, out.stdout + out.stderr
    assert out.returncode == 0, out.stdout + out.stderr  # check: nothing built, nothing tuned
