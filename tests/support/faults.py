"""Damaging a store the way a disk, a careless copy or a bad sector does, for the tests of
what the store does about it (`clmodes.store.recovery`)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from clmodes.store import FILENAME, Store

PAGE = 4096  # the store's SQLite page size
GARBAGE = bytes(range(256)) * (PAGE // 256)  # 4 KB no SQLite page can be


def garbage_into_the_middle(directory: Path) -> int:
    """Overwrite with garbage the page in the middle of the store's largest binary (the
    bulk of a warmed store's file, so where damage most often lands; the middle of the
    file itself may be an index page no run reads). Returns its offset."""
    path = Path(directory) / FILENAME
    reader = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        (binary,) = reader.execute(
            "SELECT binary FROM binaries ORDER BY LENGTH(binary) DESC LIMIT 1").fetchone()
    finally:
        reader.close()
    data, middle = path.read_bytes(), len(binary) // 2
    # A slice of the binary is contiguous in the file unless it straddles an overflow
    # page's 4-byte link: one of two slices 128 bytes apart is not.
    found = next(at for start in (middle, middle + 128)
                 if (at := data.find(bytes(binary[start:start + 64]))) >= 0)
    offset = found // PAGE * PAGE
    with open(path, "r+b") as handle:
        handle.seek(offset)
        handle.write(GARBAGE)
    return offset


def garbage_over_the_header(directory: Path) -> None:
    """Overwrite the start of the store file (its SQLite header and schema page), as a
    careless copy onto it does; a process with the store open keeps page 1 cached."""
    with open(Path(directory) / FILENAME, "r+b") as handle:
        handle.write(GARBAGE[:512])


def filled_store(directory: Path, binary_bytes: int = 200_000) -> None:
    """A closed store holding one tune result and one binary big enough that the middle of
    the file is one of its pages (no OpenCL needed)."""
    store = Store(directory)
    store.put_tune_json("model", "t", "k", "c", {"winner": "a"})
    store.put_binary("exact", "batch", ["unit"], os.urandom(binary_bytes),
                     [("kernel-key", "k", None)])
    store.close()


def aside_files(directory: Path) -> list[Path]:
    """The corrupt store files moved aside (the database files, not their -wal/-shm)."""
    return [p for p in Path(directory).glob(f"{FILENAME}.corrupt-*")
            if not p.name.endswith(("-wal", "-shm"))]


def assert_attached(tmp_path: Path, stderrs: list[str]) -> None:
    """No process detached from the shared store: none fell back to memory, failed a
    write or moved the live file aside (each of those logs a "clmodes store" warning)."""
    for stderr in stderrs:
        assert "clmodes store" not in stderr, stderr
    assert not list(tmp_path.glob("*.corrupt-*"))
