"""The store under faults, in this process: an immutable store file is read and its
writes kept in memory; corruption met after opening is moved aside once, and only by
the process that found the file there."""

import logging
import sqlite3
import subprocess

import pytest

from clmodes.store import FILENAME, Store
from clmodes.store.recovery import identity, move_aside
from support.faults import aside_files, filled_store, garbage_into_the_middle


@pytest.fixture
def immutable(tmp_path):
    """Make a file immutable (`chattr +i`: binds root too); undone after the test."""
    made = []

    def make(path):
        if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode:
            pytest.skip("this file system has no immutable attribute (chattr +i)")
        made.append(path)

    yield make
    for path in made:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_an_immutable_store_is_read_and_its_writes_stay_in_memory(tmp_path, immutable, caplog):
    filled_store(tmp_path)
    path = tmp_path / FILENAME
    before = path.read_bytes()
    immutable(path)
    with caplog.at_level(logging.WARNING, logger="clmodes"):
        store = Store(tmp_path)
        again = Store(tmp_path)  # the same process opening it again: no second warning
    assert store.read_only and again.read_only
    assert not store.persistent and store.fell_back and not store.in_memory
    assert caplog.text.count("is read-only") == 1 and str(path) in caplog.text
    assert store.get_tune_json("model", "t", "k", "c") == {"winner": "a"}
    assert store.get_binary("exact", "batch") is not None
    store.put_tune_json("model", "t", "k2", "c", {"winner": "b"})  # into the copy in memory
    assert store.get_tune_json("model", "t", "k2", "c") == {"winner": "b"}
    assert store.get_tune_json("model", "t", "k", "c") == {"winner": "a"}  # shipped entries stay
    assert store.info()["read_only"] is True and store.location == str(path)
    assert path.read_bytes() == before
    assert "write failed" not in caplog.text


def test_an_older_immutable_store_reads_as_holding_none_of_a_later_table(tmp_path, immutable,
                                                                        caplog):
    """A store an older clmodes wrote, before a table was added (absent_kernel), shipped
    read-only: reading that table is a quiet miss, a write to it goes to the copy."""
    filled_store(tmp_path)
    path = tmp_path / FILENAME
    connection = sqlite3.connect(path)
    connection.execute("DROP TABLE absent_kernel")
    connection.commit()
    connection.close()
    immutable(path)
    with caplog.at_level(logging.WARNING, logger="clmodes"):
        store = Store(tmp_path)
        assert store.read_only
        assert store.absent_kernels("exact", ["k1"]) == set()
        store.put_absent_kernels("exact", [("k1", "name")])
        assert store.absent_kernels("exact", ["k1", "k2"]) == {"k1"}
        assert store.get_tune_json("model", "t", "k", "c") == {"winner": "a"}
    assert "read failed" not in caplog.text and "could not" not in caplog.text, caplog.text


def test_corruption_met_after_opening_is_moved_aside_once(tmp_path, caplog):
    filled_store(tmp_path)
    store = Store(tmp_path)
    assert store.count("tune") == 1
    garbage_into_the_middle(tmp_path)
    with caplog.at_level(logging.WARNING, logger="clmodes"):
        assert store.get_binary("exact", "batch") is None  # a miss, not an error
        # The fresh store, holding what could still be read of the damaged one.
        assert store.get_tune_json("model", "t", "k", "c") == {"winner": "a"}
        store.put_tune_json("model", "t", "k2", "c", {"winner": "b"})
    (aside,) = aside_files(tmp_path)
    assert caplog.text.count("clmodes store") == 1 and str(aside) in caplog.text
    assert store.get_tune_json("model", "t", "k2", "c") == {"winner": "b"}
    fresh = sqlite3.connect(tmp_path / FILENAME)
    assert fresh.execute("SELECT COUNT(*) FROM tune").fetchall() == [(2,)]
    assert fresh.execute("SELECT COUNT(*) FROM binaries").fetchall() == [(0,)]  # the damaged one


def test_corruption_met_by_a_write_is_recovered_and_the_write_kept(tmp_path, caplog):
    filled_store(tmp_path)
    store = Store(tmp_path)
    garbage_into_the_middle(tmp_path)
    with caplog.at_level(logging.WARNING, logger="clmodes"):
        store.drop_binary("exact", "batch")  # a DELETE walks the damaged pages
        store.put_binary("exact", "other", ["u"], b"binary", [("key", "k", None)])
    assert len(aside_files(tmp_path)) == 1
    assert "write failed" not in caplog.text and caplog.text.count("moved aside") == 1
    assert store.get_binary("exact", "other") == (b"binary", ["u"])


def test_a_store_replaced_since_it_was_found_corrupt_is_not_moved(tmp_path, caplog):
    filled_store(tmp_path)
    path = tmp_path / FILENAME
    found = identity(path)
    path.rename(tmp_path / "elsewhere")  # another process moved it and started afresh
    filled_store(tmp_path)
    with caplog.at_level(logging.WARNING, logger="clmodes"):
        assert move_aside(path, sqlite3.DatabaseError("malformed"), found) is None
    assert not aside_files(tmp_path) and "already moved it aside" in caplog.text
    assert Store(tmp_path).get_tune_json("model", "t", "k", "c") == {"winner": "a"}
