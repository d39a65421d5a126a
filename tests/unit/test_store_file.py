"""docs/contract.md, Persistence: the SQLite store of tune results."""

import json
import logging
import os
import sqlite3
import threading
import time

import pytest

from clmodes.store import FILENAME, Store


def test_corrupt_database_is_moved_aside(tmp_path, caplog):
    path = tmp_path / FILENAME
    path.write_bytes(b"this is not an SQLite database" * 100)
    with caplog.at_level(logging.WARNING, logger="clmodes"):
        store = Store(tmp_path)
    assert "corrupt" in caplog.text and str(path) in caplog.text
    assert not store.in_memory and store.count("tune") == 0
    aside = list(tmp_path.glob(f"{FILENAME}.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"this is not")
    store.put_tune_json("m", "t", "k", "c", {"winner": "a"})
    assert store.get_tune_json("m", "t", "k", "c")["winner"] == "a"


def test_unwritable_location_falls_back_to_memory(tmp_path, caplog):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with caplog.at_level(logging.WARNING, logger="clmodes"):
        store = Store(blocker / "cache")
    assert store.in_memory and "in memory" in caplog.text
    store.put_tune_json("m", "t", "k", "c", {"winner": "a"})
    assert store.get_tune_json("m", "t", "k", "c") == {"winner": "a"}


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_read_only_directory_falls_back_to_memory(tmp_path):
    tmp_path.chmod(0o500)
    try:
        assert Store(tmp_path / "cache").in_memory
    finally:
        tmp_path.chmod(0o700)


def test_unreadable_row_is_a_miss_with_a_warning(tmp_path, caplog):
    store = Store(tmp_path)
    store.put_tune_json("m", "t", "k", "c", {"winner": "a"})
    with store.transaction() as connection:
        connection.execute("UPDATE tune SET value = '{not json'")
    with caplog.at_level(logging.WARNING, logger="clmodes"):
        assert store.get_tune_json("m", "t", "k", "c") is None
    assert "unreadable tune entry" in caplog.text


def test_unreadable_row_is_replaced_by_the_next_tune(tmp_path):
    store = Store(tmp_path)
    store.put_tune_json("m", "t", "k", "c", {"winner": "a"})
    with store.transaction() as connection:
        connection.execute("UPDATE tune SET value = '{not json'")
    assert store.put_tune_json("m", "t", "k", "c", {"winner": "b"})["winner"] == "b"
    assert store.get_tune_json("m", "t", "k", "c")["winner"] == "b"


def test_open_waits_out_a_writer_sqlite_does_not_wait_for(tmp_path, caplog):
    """Another process mid-write on a database still in rollback mode (as when it is
    creating the store): switching to WAL then fails at once with "database is locked",
    busy timeout or not (SQLite refuses to wait where waiting could deadlock). The store
    must retry, not fall back to memory and silently tune alone."""
    other = sqlite3.connect(tmp_path / FILENAME, isolation_level=None, check_same_thread=False)
    other.execute("CREATE TABLE early (x)")
    other.execute("BEGIN")
    other.execute("INSERT INTO early VALUES (1)")  # holds the RESERVED lock
    release = threading.Timer(0.5, lambda: (other.execute("COMMIT"), other.close()))
    started = time.perf_counter()  # before the timer starts: the wait is then >= 0.5 s
    release.start()
    with caplog.at_level(logging.WARNING, logger="clmodes"):
        store = Store(tmp_path)
    release.join()
    assert not store.in_memory and "clmodes store" not in caplog.text
    assert time.perf_counter() - started >= 0.4
    assert store.put_tune_json("m", "t", "k", "c", {"winner": "a"})["winner"] == "a"
    connection = sqlite3.connect(tmp_path / FILENAME)
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_store_uses_wal_and_holds_only_json(tmp_path):
    store = Store(tmp_path)
    store.put_tune_json("m", "t", "k", "c", {"winner": "a", "measurements": {}})
    connection = sqlite3.connect(tmp_path / FILENAME)
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    (value,) = connection.execute("SELECT value FROM tune").fetchone()
    assert json.loads(value)["winner"] == "a"


def test_first_recorded_winner_is_kept(tmp_path):
    store = Store(tmp_path)
    assert store.put_tune_json("m", "t", "k", "c", {"winner": "a"})["winner"] == "a"
    assert store.put_tune_json("m", "t", "k", "c", {"winner": "b"})["winner"] == "a"


def test_a_tune_inside_a_deferral_reads_back_the_stored_winner(tmp_path):
    first, second = Store(tmp_path), Store(tmp_path)  # two processes' connections
    key = ("model", "t", '{"n": 1}', "abc")
    assert first.put_tune_json(*key, {"winner": "b"})["winner"] == "b"
    with second.deferred():
        assert second.put_tune_json(*key, {"winner": "a"})["winner"] == "b"
    assert first.get_tune_json(*key)["winner"] == "b"


def test_a_deferral_holds_only_its_own_contexts_writes(tmp_path):
    store = Store(tmp_path)
    mine, theirs = ("m", "mine", "{}", "x"), ("m", "theirs", "{}", "x")
    with store.deferred():
        store.put_tune_json(*mine, {"winner": "a"})
        other = threading.Thread(target=store.put_tune_json, args=(*theirs, {"winner": "b"}))
        other.start()
        other.join()
        reader = Store(tmp_path)
        assert reader.get_tune_json(*theirs)["winner"] == "b"  # written at once
        assert reader.get_tune_json(*mine) is None  # held until the block ends
    assert Store(tmp_path).get_tune_json(*mine)["winner"] == "a"
