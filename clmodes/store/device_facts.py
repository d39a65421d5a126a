"""What was learnt about a device, kept so that it is asked once: its throughput probe,
its usability verdict, its compiler's predefined macros. Each value is a JSON object
read as hostile data (`json_object`): a row that does not parse is asked again, never
guessed.

## Throughput probes

The probe table: one throughput probe result (`clmodes.probe`) per device model.

Unlike a tune result, a probe is replaced when it is measured again (a refresh).

## Device checks

The device_check table: one usability verdict (`clmodes.device_check`) per exact device
and compiler environment. Local to a machine: bundles never carry it (a verdict is about
this machine's CPU and runtime, not the hardware model).

## Compiler macros

The compiler_macro table: what an exact device's OpenCL C compiler predefines, per name
(or feature-check call) and options digest, as `clmodes.compiler_probe` asked it.

One row per probe (`queries`: the digest of the names it asked; `value`: a JSON object,
name -> answer), so one probe's answers are written in one statement, and a reader merges
every row of its (exact device, options). Local to a machine, like device checks: an
answer belongs to one driver's compiler, so bundles never carry it. A row that is not a
JSON object is skipped with one warning, and its names are asked of the compiler again,
never guessed.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from clmodes.store.schema import FORMAT_VERSION, ProbeRow
from clmodes.store.transactions import Database

log = logging.getLogger("clmodes")


def json_object(value: object) -> dict[str, Any] | None:
    """The object `value` (a column's text) holds, or None if it is not text, not JSON, or
    not an object: a caller treats None as a miss and says so once."""
    if not isinstance(value, str):
        return None
    try:
        found = json.loads(value)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


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


def get_answers(db: Database, exact: str, options: str) -> dict[str, Any]:
    """query -> the stored answer (its reader validates each one)."""
    rows = db.query("SELECT queries, value FROM compiler_macro WHERE exact=? AND options=?",
                    (exact, options))
    answers: dict[str, Any] = {}
    bad = 0
    for _, value in sorted(rows, key=lambda row: str(row[0])):
        found = json_object(value)
        if found is None:
            bad += 1
        else:
            answers.update(found)
    if bad:
        log.warning("clmodes store %s: %d unreadable compiler macro rows for %s; asking the "
                    "compiler again", db.location, bad, exact)
    return answers


def put_answers(db: Database, exact: str, options: str, queries: str,
                answers: dict[str, Any]) -> None:
    db.write("INSERT OR REPLACE INTO compiler_macro VALUES (?, ?, ?, ?, ?)",
             (exact, options, queries, json.dumps(answers, sort_keys=True), time.time()))
