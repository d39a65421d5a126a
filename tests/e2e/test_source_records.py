"""On PoCL with its kernel cache on, the store keeps a batch as its source record, a later
process builds it again from PoCL's cache, and a bundle still ships a binary
(`clmodes.source_records`). Each process gets its own PoCL cache folder where it matters."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from clmodes.source_records import MAGIC
from clmodes.store import FILENAME
from support.subprocesses import (RUNTIMES, RUN_WORKLOAD, last_json, require_runtime,
                                  run_python, spawn_python)

POCL_MAGIC = b"poclbin\x00"

# Launches `twice` (by `clmodes.warm` or in a plain run), prints its result, the
# compilation statistics and what the clmodes logger warned; `export` writes a bundle of
# the store, `install` installs one into this process's (empty) store first.
CODE = """
import json, logging, numpy as np, pyopencl.array as cla, clmodes, clmodes.bundle
from support.statistics import statistics_of
warned = []
class Keep(logging.Handler):
    def emit(self, record):
        if record.levelno >= logging.WARNING:
            warned.append(record.getMessage())
logging.getLogger("clmodes").addHandler(Keep())
export, install, warm = {export!r}, {install!r}, {warm!r}
if install:
    clmodes.bundle.install(install, allow_unsigned=True)
stream = clmodes.client().stream()
out = cla.zeros(stream.queue, 4, np.float32)
kernel = clmodes.Kernel("__kernel void twice(__global float* o) {{ o[get_global_id(0)] = 2.0f * (get_global_id(0) + 1); }}", "twice")
def work():
    stream.launch(kernel, (4,), None, out.data)
s = statistics_of(work, warm).as_dict()["compilation"]
if export:
    clmodes.bundle.export(export)
print(json.dumps({{"out": out.get().tolist(), "builds": s["builds"], "loaded": s["loaded"],
                  "warned": warned}}))
"""
EXPECTED = [2.0, 4.0, 6.0, 8.0]


def run(store, runtime, pocl_cache, warm=False, export="", install="", **environment):
    code = CODE.format(warm=warm, export=str(export), install=str(install))
    out = last_json(run_python(code, store, CLMODES_DEVICE=runtime,
                               POCL_CACHE_DIR=str(pocl_cache), **environment))
    assert warm or out["out"] == EXPECTED, out  # warm() compiles, and computes nothing
    return out


def payloads(store) -> list[bytes]:
    connection = sqlite3.connect(store / FILENAME)
    rows = [bytes(binary) for (binary,) in connection.execute("SELECT binary FROM binaries")]
    connection.close()
    return rows


def pocl() -> str:
    return require_runtime(RUNTIMES["pocl"])


def test_pocl_keeps_a_record_and_a_later_process_builds_it_from_pocls_cache(tmp_path):
    runtime, cache = pocl(), tmp_path / "pocl-cache"
    warmed = run(tmp_path / "store", runtime, cache, warm=True, POCL_KERNEL_CACHE="1")
    assert warmed["builds"] == 1
    (stored,) = payloads(tmp_path / "store")
    assert stored.startswith(MAGIC) and b"twice" in stored
    assert any(cache.rglob("*.bc")), "PoCL's cache holds the build"
    later = run(tmp_path / "store", runtime, cache, POCL_KERNEL_CACHE="1")
    assert later["builds"] == 0 and later["loaded"] == 1 and not later["warned"], later
    # PoCL's cache gone: the record still builds (a full build), counted as loaded.
    cleared = run(tmp_path / "store", runtime, tmp_path / "empty-cache")
    assert cleared["builds"] == 0 and cleared["loaded"] == 1 and not cleared["warned"], cleared


@pytest.mark.parametrize("switch", ["0", "", "yes"])
def test_pocl_with_its_cache_off_keeps_a_binary(tmp_path, switch):
    """Read as PoCL reads it: only unset or starting with `1` is on (`""` set is off for
    PoCL, on for the knob, which cannot tell it from unset: a record, still correct)."""
    run(tmp_path / "store", pocl(), tmp_path / "cache", warm=True, POCL_KERNEL_CACHE=switch)
    (stored,) = payloads(tmp_path / "store")
    assert stored.startswith(MAGIC if switch == "" else POCL_MAGIC)


def test_intel_keeps_a_binary_whatever_pocl_says(tmp_path):
    runtime = require_runtime(RUNTIMES["intel"])
    run(tmp_path / "store", runtime, tmp_path / "cache", warm=True, POCL_KERNEL_CACHE="1")
    (stored,) = payloads(tmp_path / "store")
    assert not stored.startswith(MAGIC)


@pytest.mark.parametrize("damage", [b"{not json", b"[1, 2]", b'{"source": "", "options": []}',
                                    b'{"source": "x", "options": "-DX"}', b"\xff\xfe"])
def test_a_malformed_record_is_dropped_with_one_warning_and_rebuilt(tmp_path, damage):
    runtime, cache = pocl(), tmp_path / "cache"
    run(tmp_path / "store", runtime, cache, warm=True)
    replace_payload(tmp_path / "store", MAGIC + damage)
    later = run(tmp_path / "store", runtime, cache)
    assert later["builds"] == 1 and later["loaded"] == 0, later
    assert len(later["warned"]) == 1 and "source record" in later["warned"][0], later


def test_a_record_that_no_longer_builds_is_refused_and_rebuilt(tmp_path):
    runtime, cache = pocl(), tmp_path / "cache"
    run(tmp_path / "store", runtime, cache, warm=True)
    replace_payload(tmp_path / "store", MAGIC + b'{"source": "__kernel void twice(", "options": []}')
    later = run(tmp_path / "store", runtime, cache)
    assert later["builds"] == 1 and later["loaded"] == 0, later
    assert any("refused the stored source record" in w for w in later["warned"]), later


def test_a_bundle_of_a_record_store_ships_a_binary_that_installs_and_loads(tmp_path):
    runtime = pocl()
    run(tmp_path / "store", runtime, tmp_path / "cache", warm=True)
    assert payloads(tmp_path / "store")[0].startswith(MAGIC)
    run(tmp_path / "store", runtime, tmp_path / "cache", export=tmp_path / "b.clmodes")
    fresh = run(tmp_path / "fresh", runtime, tmp_path / "fresh-cache",
                install=tmp_path / "b.clmodes", POCL_KERNEL_CACHE="1")
    assert fresh["builds"] == 0 and fresh["loaded"] == 1, fresh
    assert all("unsigned" in w for w in fresh["warned"]), fresh
    (installed,) = payloads(tmp_path / "fresh")
    assert installed.startswith(POCL_MAGIC), "the bundle carried the binary"


# One `bundle.export` of the store, counting the stored source records it builds.
EXPORT = """
import json, clmodes.bundle
from support.build_spy import BuildSpy
spy = BuildSpy().install()
clmodes.bundle.export({out!r})
print(json.dumps({{"records": len(spy.records), "sources": spy.calls}}))
"""


def test_a_record_built_for_an_export_is_kept_so_the_next_export_builds_nothing(tmp_path):
    """Export builds a record into its binary (on PoCL, reading `BINARIES`: code for every
    kernel, 10.3 s for the MLP's alone, 18 s two at once): the binary is kept in the
    record's place, so a second export, even with PoCL's cache gone, builds nothing, and
    the store still serves the kernel without a build."""
    runtime = pocl()
    store = tmp_path / "store"
    run(store, runtime, tmp_path / "cache", warm=True, POCL_KERNEL_CACHE="1")
    assert payloads(store)[0].startswith(MAGIC)
    exports = []
    for n, cache in enumerate(("cache", "cache-gone")):
        code = EXPORT.format(out=str(tmp_path / f"b{n}.clmodes"))
        exports.append(last_json(run_python(code, store, CLMODES_DEVICE=runtime,
                                            POCL_CACHE_DIR=str(tmp_path / cache))))
    assert exports == [{"records": 1, "sources": 0}, {"records": 0, "sources": 0}], exports
    (kept,) = payloads(store)
    assert kept.startswith(POCL_MAGIC), "the binary built is kept in the record's place"
    later = run(store, runtime, tmp_path / "later-cache", POCL_KERNEL_CACHE="1")
    assert later["builds"] == 0 and later["loaded"] == 1 and not later["warned"], later


def replace_payload(store, payload: bytes) -> None:
    """The store's one program as `payload`, its checksum made to match: damage the
    store's own check cannot see."""
    connection = sqlite3.connect(store / FILENAME)
    with connection:
        connection.execute("UPDATE binaries SET binary=?, sha256=?",
                           (sqlite3.Binary(payload), hashlib.sha256(payload).hexdigest()))
    connection.close()


def test_three_processes_warming_at_once_share_one_store_and_one_pocl_cache(tmp_path):
    """Records are written by several processes at once (the same batches, the same
    PoCL cache folder): every warm succeeds, the store is whole, and a later process
    computes right with nothing built from source and nothing warned."""
    runtime, cache, store = pocl(), tmp_path / "pocl-cache", tmp_path / "store"
    warm = ("import logging, clmodes\nfrom support import tunables\n"
            "logging.basicConfig(level=logging.WARNING)\nclmodes.warm(tunables.workload)\n")
    procs = [spawn_python(warm, store, CLMODES_DEVICE=runtime, POCL_KERNEL_CACHE="1",
                          POCL_CACHE_DIR=str(cache)) for _ in range(3)]
    outputs = [proc.communicate(timeout=600) for proc in procs]
    for proc, (_, stderr) in zip(procs, outputs):
        assert proc.returncode == 0, stderr
        assert "Traceback" not in stderr and "WARNING" not in stderr, stderr
    connection = sqlite3.connect(store / FILENAME)
    assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    connection.close()
    stored = payloads(store)
    assert stored and all(p.startswith(MAGIC) for p in stored), [p[:24] for p in stored]
    later = last_json(run_python(RUN_WORKLOAD, store, CLMODES_DEVICE=runtime,
                                 POCL_KERNEL_CACHE="1", POCL_CACHE_DIR=str(cache)))
    assert later["demo_ok"] and later["tuned_ok"], later
    assert later["source_builds"] == 0 and later["compilation"]["compiled"] == 0, later
    assert later["compilation"]["loaded"] > 0 and later["autotune"]["keys"] == 0, later


# A pyopencl program as its author wrote it: under `clmodes run`, its program is persisted
# at the end; it prints its result, then the run's report says what was built and loaded.
PROGRAM = """
import numpy as np, pyopencl as cl, pyopencl.array as cla
ctx = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(ctx)
src = '''__kernel void __attribute__((reqd_work_group_size(4, 1, 1))) thrice(__global float* a)
{ a[get_global_id(0)] *= 3.0f; }'''
program = cl.Program(ctx, src).build(options=["-DUNUSED=1"])
a = cla.to_device(queue, np.arange(1, 5, dtype=np.float32))
program.thrice(queue, (4,), (4,), a.data)
print(a.get().tolist())
"""


def run_program(tmp_path, store, pocl_cache, *flags, **environment):
    import json
    import subprocess
    import sys

    from support.subprocesses import environment as env_of, pyopencl_ctx

    script, report = tmp_path / "program.py", tmp_path / "report.json"
    script.write_text(PROGRAM)
    out = subprocess.run([sys.executable, "-m", "clmodes", "run", *flags, "--report", str(report),
                          str(script)], capture_output=True, text=True, timeout=600,
                         env=env_of(store, PYOPENCL_CTX=pyopencl_ctx("pocl"),
                                    POCL_CACHE_DIR=str(pocl_cache), **environment))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[3.0, 6.0, 9.0, 12.0]", out.stdout + out.stderr
    return json.loads(report.read_text())


def test_a_pyopencl_program_under_run_is_kept_as_its_record_and_loaded_from_pocls_cache(tmp_path):
    """Issue 58: a first `clmodes run` read each pyopencl program's BINARIES to persist it,
    which makes PoCL generate every kernel's code (2.3-9.3x a plain run on real programs).
    Where PoCL's cache is on, the run keeps the program's record instead (its text and
    pyopencl's own options, built again exactly so): the next run builds nothing from
    clmodes' view (`--strict`) and PoCL finds the build in its cache; a bundle of the
    store still ships a binary, which a fresh store runs `--strict` on."""
    pocl()
    store, cache = tmp_path / "store", tmp_path / "pocl"
    first = run_program(tmp_path, store, cache)
    assert [p[:len(MAGIC)] for p in payloads(store)] == [MAGIC], "a record, not a binary"
    second = run_program(tmp_path, store, cache, "--strict")
    assert second["compilation"]["compiled"] == 0 and second["compilation"]["loaded"] >= 1, second
    assert first["compilation"]["compiled"] >= 1, first
    bundle = tmp_path / "program.clb"
    export = run_python(f"import clmodes.bundle; clmodes.bundle.export({str(bundle)!r})", store)
    assert export.returncode == 0, export.stderr
    fresh = tmp_path / "fresh"
    installed = run_python(f"import clmodes.bundle; clmodes.bundle.install({str(bundle)!r}, "
                           "allow_unsigned=True)", fresh)
    assert installed.returncode == 0, installed.stderr
    assert all(not p.startswith(MAGIC) for p in payloads(fresh)), "a bundle ships binaries"
    run_program(tmp_path, fresh, tmp_path / "pocl-fresh", "--strict")


def test_a_pyopencl_program_with_pocls_cache_off_is_kept_as_its_binary(tmp_path):
    pocl()
    store = tmp_path / "store"
    run_program(tmp_path, store, tmp_path / "pocl", POCL_KERNEL_CACHE="0")
    assert [p.startswith(MAGIC) for p in payloads(store)] == [False]
    run_program(tmp_path, store, tmp_path / "pocl", "--strict", POCL_KERNEL_CACHE="0")
