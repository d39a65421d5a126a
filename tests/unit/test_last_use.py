"""Last uses are noted in memory and written batched: never on the read that noted them,
never waiting for another process's write lock (docs/contract.md, Persistence)."""

from __future__ import annotations

import sqlite3
import time

from clmodes.store import FILENAME, Store
from clmodes.store.uses import BINARY, TUNE, entry_text

EXACT = "Vendor | Model | 2CU | host memory | OpenCL 3.0 | driver 1 | OpenCL 3.0 X"


def filled(directory) -> Store:
    store = Store(directory)
    store.put_binary(EXACT, "batch", ["unit"], b"\x7fELF" + bytes(200), [("key", "name", None)])
    store.put_tune("Vendor | Model", "tunable", "{}", "cands", {"winner": "a"})
    return store


def rows(directory) -> list[tuple]:
    with sqlite3.connect(directory / FILENAME) as connection:
        return connection.execute("SELECT kind, entry, used FROM last_use ORDER BY kind").fetchall()


def test_a_read_notes_and_a_flush_writes_once(tmp_path):
    store = filled(tmp_path)
    before = time.time()
    assert store.get_binary(EXACT, "batch") is not None
    assert store.get_tune("Vendor | Model", "tunable", "{}", "cands") is not None
    assert rows(tmp_path) == []  # noted, not written: a read never writes
    assert store.uses.flush()
    (binary, tune) = rows(tmp_path)
    assert binary[:2] == (BINARY, entry_text((EXACT, "batch"))) and binary[2] >= before
    assert tune[:2] == (TUNE, entry_text((1, "Vendor | Model", "tunable", "{}", "cands")))
    store.get_binary(EXACT, "batch")  # read again in this process: nothing new to write
    assert not store.uses.pending
    store.close()


def test_a_flush_never_waits_for_another_process(tmp_path):
    store = filled(tmp_path)
    store.get_binary(EXACT, "batch")
    other = sqlite3.connect(tmp_path / FILENAME, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process's warm, committing
    try:
        started = time.perf_counter()
        assert not store.uses.flush(wait_s=0.05)
        assert time.perf_counter() - started < 2.0  # bounded by its wait, not the 30 s timeout
        assert store.uses.pending  # kept for the next try
    finally:
        other.execute("COMMIT")
        other.close()
    assert store.uses.flush() and len(rows(tmp_path)) == 1
    store.close()


def test_closing_writes_what_is_pending_and_exit_writes_everything_used(tmp_path):
    store = filled(tmp_path)
    store.get_binary(EXACT, "batch")
    store.close()
    (first,) = rows(tmp_path)
    again = Store(tmp_path)
    again.get_binary(EXACT, "batch")
    again.uses.flush()
    time.sleep(0.01)
    assert again.uses.flush(everything_now=True)  # what the exit handler runs
    (last,) = rows(tmp_path)
    assert last[2] > first[2]  # the later use wins (max), whichever process wrote it
    again.close()
