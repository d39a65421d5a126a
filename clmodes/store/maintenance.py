"""What the store holds (`clmodes cache info`) and clearing it (`clmodes cache clear`);
pruning it to a size is `pruning`'s."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clmodes.device import model_of
from clmodes.store.contention import patiently
from clmodes.store.footprint import total_bytes
from clmodes.store.schema import exact_filter, model_filter
from clmodes.store.transactions import Database


def info(db: Database) -> dict[str, Any]:
    """Location, bytes (the file), entry bytes (what a cap measures, `footprint`), and
    entries per device model (tune results) and, under each model, per exact device +
    driver (program binaries and indexed kernels)."""
    devices: dict[str, dict[str, Any]] = {}

    def model_entry(model: str) -> dict[str, Any]:
        return devices.setdefault(model, {"tune_results": 0, "tune_bytes": 0,
                                          "measurements": 0, "probe_results": 0,
                                          "drivers": {}})

    for model, count, size in db.query(
        "SELECT model, COUNT(*), SUM(LENGTH(value)) FROM tune GROUP BY model"
    ):
        model_entry(model).update(tune_results=count, tune_bytes=size or 0)
    for model, count in db.query("SELECT model, COUNT(*) FROM measurement GROUP BY model"):
        model_entry(model)["measurements"] = count
    for model, count in db.query("SELECT model, COUNT(*) FROM probe GROUP BY model"):
        model_entry(model)["probe_results"] = count
    for exact, count, size in db.query(
        "SELECT exact, COUNT(*), SUM(LENGTH(binary)) FROM binaries GROUP BY exact"
    ):
        drivers = model_entry(model_of(exact))["drivers"]
        drivers.setdefault(exact, {"kernels": 0}).update(binaries=count, binary_bytes=size or 0)
    for exact, count in db.query("SELECT exact, COUNT(*) FROM kernels GROUP BY exact"):
        drivers = model_entry(model_of(exact))["drivers"]
        drivers.setdefault(exact, {"binaries": 0, "binary_bytes": 0})["kernels"] = count
    return {"location": db.location, "bytes": size_on_disk(db.path), "read_only": db.read_only,
            "entry_bytes": total_bytes(lambda sql: db.query(sql)), "devices": devices}


def size_on_disk(path: Path | None) -> int:
    """The database file and its write-ahead log, in bytes (0 in memory)."""
    if path is None:
        return 0
    parts = (Path(f"{path}{suffix}") for suffix in ("", "-wal"))
    return sum(part.stat().st_size for part in parts if part.exists())


def clear(db: Database, model: str | None = None) -> int:
    """Delete every entry, or those of one device model (all its drivers). Returns the
    number of entries deleted (tune results, probes and binaries; the kernel index
    goes with its binaries)."""
    return patiently(lambda: clear_once(db, model))  # re-runnable: one transaction


def clear_once(db: Database, model: str | None) -> int:
    where, parameters = model_filter(model)
    like, like_parameters = exact_filter(model)
    deleted = 0
    with db.transaction() as connection:
        deleted += connection.execute("DELETE FROM tune" + where, parameters).rowcount
        deleted += connection.execute("DELETE FROM probe" + where, parameters).rowcount
        deleted += connection.execute("DELETE FROM binaries" + like, like_parameters).rowcount
        connection.execute("DELETE FROM kernels" + like, like_parameters)
        connection.execute("DELETE FROM device_check" + like, like_parameters)  # re-checked
        connection.execute("DELETE FROM compiler_macro" + like, like_parameters)  # re-asked
        connection.execute("DELETE FROM kernel_identity" + like, like_parameters)
        connection.execute("DELETE FROM measurement" + where, parameters)
        connection.execute("DELETE FROM tune_lease" + where, parameters)
    return deleted
