"""The probe table: one throughput probe result (`clmodes.probe`) per device model.

Unlike a tune result, a probe is replaced when it is measured again (a refresh)."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from clmodes.store.schema import FORMAT_VERSION, ProbeRow
from clmodes.store.transactions import Database
from clmodes.store.values import json_object

log = logging.getLogger("clmodes")


def get_probe(db: Database, model: str) -> dict[str, Any] | None:
    """A device model's probe result, as stored; None if absent or unreadable (with a
    warning)."""
    rows = db.query("SELECT value FROM probe WHERE format=? AND model=?", (FORMAT_VERSION, model))
    if not rows:
        return None
    value = json_object(rows[0][0])
    if value is None:
        log.warning("clmodes store %s: unreadable probe entry for %s; re-measuring",
                    db.location, model)
        return None
    return value


def put_probe(db: Database, model: str, value: dict[str, Any]) -> None:
    """Record (or replace: a refresh re-measures) a device model's probe result."""
    row = ProbeRow(FORMAT_VERSION, model, json.dumps(value, sort_keys=True))
    db.write("INSERT OR REPLACE INTO probe VALUES (?, ?, ?, ?)", (*row.values(), time.time()))
