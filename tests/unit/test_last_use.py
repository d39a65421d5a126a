"""Last uses are noted in memory and written batched: never on the read that noted them,
never waiting for another process's write lock (docs/contract.md, Persistence)."""

from __future__ import annotations

import sqlite3
import time

import pytest

import clmodes
from clmodes.store import FILENAME, Store
from clmodes.sizes import SizeError
from clmodes.store.footprint import BINARY, TUNE, entry_text

EXACT = "Vendor | Model | 2CU | host memory | OpenCL 3.0 | driver 1 | OpenCL 3.0 X"


def filled(directory) -> Store:
    store = Store(directory)
    store.put_binary(EXACT, "batch", ["unit"], b"\x7fELF" + bytes(200), [("key", "name", None)])
    store.put_tune_json("Vendor | Model", "tunable", "{}", "cands", {"winner": "a"})
    return store


def rows(directory) -> list[tuple]:
    with sqlite3.connect(directory / FILENAME) as connection:
        return connection.execute("SELECT kind, entry, used FROM last_use ORDER BY kind").fetchall()


def test_a_read_notes_and_a_flush_writes_once(tmp_path):
    store = filled(tmp_path)
    before = time.time()
    assert store.get_binary(EXACT, "batch") is not None
    assert store.get_tune_json("Vendor | Model", "tunable", "{}", "cands") is not None
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


def test_hostile_last_use_rows_neither_fail_nor_keep_an_entry(tmp_path):
    """Rows another tool (or damage) put in `last_use`: a text for a time, a blob for a key,
    a time far in the future (for an entry, and for none). A prune and an export read past
    them, and the junk goes."""
    store = filled(tmp_path)
    with sqlite3.connect(tmp_path / FILENAME) as connection:
        connection.executemany("INSERT INTO last_use VALUES (?, ?, ?)", [
            (BINARY, entry_text((EXACT, "batch")), "soon"),
            (TUNE, entry_text((1, "Vendor | Model", "tunable", "{}", "cands")), 1e300),
            (TUNE, sqlite3.Binary(b"\x00\xff"), 1e300),
            ("nonsense", "[]", 5.0),
        ])
    recent = store.entries(since=time.time() + 3600)  # nothing is that recent, "soon" or not
    assert recent.binaries == [] and recent.tune == []
    report = clmodes.prune(0, store=store)
    assert report.evicted["binaries"] == 1 and report.evicted["tune_results"] == 1
    assert rows(tmp_path) == [] and store.entry_bytes() == 0
    store.close()


def test_the_python_api_refuses_what_is_not_a_size():
    store = Store(None)
    for bad in ("lots", -1, True, 1.5, None):
        with pytest.raises(SizeError):
            clmodes.prune(bad, store=store)  # type: ignore[arg-type]
    assert clmodes.prune("1k", store=store).max_size == 1024
