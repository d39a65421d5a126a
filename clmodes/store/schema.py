"""The store's tables, as SQL and as typed rows.

The rows are shared with `clmodes.bundle`, which carries them between machines: code on
both sides names a column (`row.model`, `row.sha256`) instead of indexing a tuple by
position, and a table's key is declared once (`Row.KEY`) instead of as a width written
wherever rows are compared.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, ClassVar, TypeVar

FORMAT_VERSION = 1  # the clmodes format of persisted entries; part of every tune key
SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tune (
    format INTEGER NOT NULL,
    model TEXT NOT NULL,
    tunable TEXT NOT NULL,
    tune_key TEXT NOT NULL,
    candidates TEXT NOT NULL,
    value TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (format, model, tunable, tune_key, candidates)
);
CREATE TABLE IF NOT EXISTS measurement (
    format INTEGER NOT NULL,
    model TEXT NOT NULL,
    tunable TEXT NOT NULL,
    tune_key TEXT NOT NULL,
    candidate TEXT NOT NULL,
    identity TEXT NOT NULL,
    value TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (format, model, tunable, tune_key, candidate, identity)
);
CREATE TABLE IF NOT EXISTS tune_lease (
    model TEXT NOT NULL,
    tunable TEXT NOT NULL,
    tune_key TEXT NOT NULL,
    candidates TEXT NOT NULL,
    owner TEXT NOT NULL,
    heartbeat REAL NOT NULL,
    decision TEXT,
    PRIMARY KEY (model, tunable, tune_key, candidates)
);
CREATE TABLE IF NOT EXISTS binaries (
    exact TEXT NOT NULL,
    batch TEXT NOT NULL,
    units TEXT NOT NULL,
    binary BLOB NOT NULL,
    sha256 TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (exact, batch)
);
CREATE TABLE IF NOT EXISTS kernels (
    exact TEXT NOT NULL,
    kernel_key TEXT NOT NULL,
    batch TEXT NOT NULL,
    name TEXT NOT NULL,
    args TEXT NOT NULL,
    PRIMARY KEY (exact, kernel_key)
);
CREATE TABLE IF NOT EXISTS absent_kernel (
    exact TEXT NOT NULL,
    kernel_key TEXT NOT NULL,
    name TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (exact, kernel_key)
);
CREATE TABLE IF NOT EXISTS kernel_identity (
    exact TEXT NOT NULL,
    kernel_key TEXT NOT NULL,
    name TEXT NOT NULL,
    identity TEXT NOT NULL,
    PRIMARY KEY (exact, kernel_key)
);
CREATE TABLE IF NOT EXISTS device_check (
    exact TEXT NOT NULL,
    environment TEXT NOT NULL,
    value TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (exact, environment)
);
CREATE TABLE IF NOT EXISTS remote_origin (
    kind TEXT NOT NULL,
    scope TEXT NOT NULL,
    entry TEXT NOT NULL,
    signer TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (kind, scope, entry)
);
CREATE TABLE IF NOT EXISTS compiler_macro (
    exact TEXT NOT NULL,
    options TEXT NOT NULL,
    queries TEXT NOT NULL,
    value TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (exact, options, queries)
);
CREATE TABLE IF NOT EXISTS probe (
    format INTEGER NOT NULL,
    model TEXT NOT NULL,
    value TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (format, model)
);
CREATE TABLE IF NOT EXISTS last_use (
    kind TEXT NOT NULL,
    entry TEXT NOT NULL,
    used REAL NOT NULL,
    PRIMARY KEY (kind, entry)
);
"""

R = TypeVar("R", bound="Row")


class Row:
    """A table's row without its bookkeeping column (`created`): what an entry *is*.

    `KEY` names the primary-key columns; `columns()` the columns in table order, so that
    `SELECT {columns()}` and `Row.of(tuple)` agree."""

    KEY: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def columns(cls) -> str:
        return ", ".join(field.name for field in dataclasses.fields(cls))  # type: ignore[arg-type]

    @classmethod
    def of(cls: type[R], row: R | Sequence[Any]) -> R:
        """A typed row from itself or from a plain tuple in column order (SQLite's rows)."""
        return row if isinstance(row, cls) else cls(*row)  # type: ignore[misc]  # a tuple's columns

    def values(self) -> tuple[Any, ...]:
        """The columns in table order, as SQLite parameters."""
        return tuple(getattr(self, field.name) for field in dataclasses.fields(self))  # type: ignore[arg-type]

    @property
    def key(self) -> tuple[Any, ...]:
        """The primary key: rows with equal keys are one entry."""
        return tuple(getattr(self, name) for name in self.KEY)


@dataclasses.dataclass(frozen=True)
class TuneRow(Row):
    """A measured winner: `value` is the JSON record (`winner`, measurements, ...)."""

    KEY: ClassVar[tuple[str, ...]] = ("format", "model", "tunable", "tune_key", "candidates")

    format: int
    model: str
    tunable: str
    tune_key: str
    candidates: str
    value: str


@dataclasses.dataclass(frozen=True)
class MeasurementRow(Row):
    """One candidate's measurement for one key, as taken (`value` is JSON: median_s,
    samples_s, ... or `failed`), under the identity of the kernels it launched. Local to
    a store: bundles carry decisions (`TuneRow`), whose records summarise these."""

    KEY: ClassVar[tuple[str, ...]] = ("format", "model", "tunable", "tune_key", "candidate",
                                      "identity")

    format: int
    model: str
    tunable: str
    tune_key: str
    candidate: str
    identity: str
    value: str


@dataclasses.dataclass(frozen=True)
class BinaryRow(Row):
    """A batch's program binary for one exact device and driver; `units` is JSON."""

    KEY: ClassVar[tuple[str, ...]] = ("exact", "batch")

    exact: str
    batch: str
    units: str
    binary: bytes
    sha256: str


@dataclasses.dataclass(frozen=True)
class KernelRow(Row):
    """The index from a kernel to the batch binary that holds it; `args` is JSON."""

    KEY: ClassVar[tuple[str, ...]] = ("exact", "kernel_key")

    exact: str
    kernel_key: str
    batch: str
    name: str
    args: str


@dataclasses.dataclass(frozen=True)
class ProbeRow(Row):
    """A device model's throughput probe (`clmodes.probe`); `value` is JSON."""

    KEY: ClassVar[tuple[str, ...]] = ("format", "model")

    format: int
    model: str
    value: str


@dataclasses.dataclass
class StoreEntries:
    """Rows of the store: what a bundle carries. Plain tuples in column order are
    accepted and turned into typed rows."""

    tune: list[TuneRow]
    binaries: list[BinaryRow]
    kernels: list[KernelRow]

    def __post_init__(self) -> None:
        self.tune = [TuneRow.of(row) for row in self.tune]
        self.binaries = [BinaryRow.of(row) for row in self.binaries]
        self.kernels = [KernelRow.of(row) for row in self.kernels]

    @classmethod
    def empty(cls) -> StoreEntries:
        return cls([], [], [])

    def tables(self) -> dict[str, list[Any]]:
        """Table name -> its rows, for code that treats every table alike."""
        return {"tune": self.tune, "binaries": self.binaries, "kernels": self.kernels}


def model_filter(model: str | None) -> tuple[str, tuple[Any, ...]]:
    """A WHERE clause selecting one device model's rows of a table with a `model` column."""
    if model is None:
        return "", ()
    return " WHERE model=?", (model,)


def exact_filter(model: str | None) -> tuple[str, tuple[Any, ...]]:
    """A WHERE clause selecting the exact fingerprints of one model (all its drivers)."""
    if model is None:
        return "", ()
    return " WHERE substr(exact, 1, ?) = ?", (len(model) + 3, model + " | ")
