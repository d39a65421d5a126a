"""The compiler_macro table: what an exact device's OpenCL C compiler predefines, per name
(or feature-check call) and options digest, as `clmodes.compiler_probe` asked it.

One row per probe (`queries`: the digest of the names it asked; `value`: a JSON object,
name -> answer), so one probe's answers are written in one statement, and a reader merges
every row of its (exact device, options). Local to a machine, like device checks: an
answer belongs to one driver's compiler, so bundles never carry it. A row that is not a
JSON object is skipped with one warning, and its names are asked of the compiler again,
never guessed."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from clmodes.store.transactions import Database
from clmodes.store.values import json_object

log = logging.getLogger("clmodes")


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
