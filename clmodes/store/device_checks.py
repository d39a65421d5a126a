"""The device_check table: one usability verdict (`clmodes.device_check`) per exact device
and compiler environment. Local to a machine: bundles never carry it (a verdict is about
this machine's CPU and runtime, not the hardware model)."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from clmodes.store.transactions import Database
from clmodes.store.values import json_object

log = logging.getLogger("clmodes")


def get_check(db: Database, exact: str, environment: str) -> dict[str, Any] | None:
    """The stored verdict, or None if absent or unreadable (then the device is checked
    again: a verdict costs one trivial build)."""
    rows = db.query("SELECT value FROM device_check WHERE exact=? AND environment=?",
                    (exact, environment))
    if not rows:
        return None
    value = json_object(rows[0][0])
    if value is None or not isinstance(value.get("usable"), bool):
        log.warning("clmodes store %s: unreadable device check for %s; checking again",
                    db.location, exact)
        return None
    return value


def put_check(db: Database, exact: str, environment: str, value: dict[str, Any]) -> None:
    db.write("INSERT OR REPLACE INTO device_check VALUES (?, ?, ?, ?)",
             (exact, environment, json.dumps(value, sort_keys=True), time.time()))
