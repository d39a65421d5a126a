"""The measurement table: every candidate measured for a key, kept as it is taken.

A measurement is a fact about one candidate's code (its `identity`: the kernels it
launched) on one device model, not a decision, so it is written at once even inside a
deferred warm: a tune killed halfway then resumes where it stopped, a grown space or one
added candidate measures only what is new, and an edited kernel invalidates exactly the
measurements of the candidates that launch it (their identity changes; the old rows are
simply never asked for again).
"""

from __future__ import annotations

import json
import logging
import time

from clmodes.records.measurement import CandidateMeasurement, Outcome
from clmodes.store.schema import FORMAT_VERSION, MeasurementRow
from clmodes.store.transactions import Database

log = logging.getLogger("clmodes")

SELECT = ("SELECT candidate, identity, value FROM measurement WHERE format=? AND model=? "
          "AND tunable=? AND tune_key=?")


def measurements(db: Database, model: str, tunable: str, key: str
                 ) -> dict[tuple[str, str], CandidateMeasurement]:
    """(candidate, identity) -> its measurement; unreadable rows are skipped."""
    found: dict[tuple[str, str], CandidateMeasurement] = {}
    for candidate, identity, text in db.query(SELECT, (FORMAT_VERSION, model, tunable, key)):
        record = parse_measurement(text)
        if record is None or not isinstance(candidate, str) or not isinstance(identity, str):
            log.warning("clmodes store %s: unreadable measurement of %s key %s; measuring again",
                        db.location, tunable, key)
            continue
        found[(candidate, identity)] = record
    return found


def put_measurement(db: Database, model: str, tunable: str, key: str, candidate: str,
                    identity: str, value: CandidateMeasurement) -> None:
    """Record one measurement now (never deferred: see the module's doc)."""
    row = MeasurementRow(FORMAT_VERSION, model, tunable, key, candidate, identity,
                         json.dumps(value.to_json(), sort_keys=True))
    db.write_now("INSERT OR REPLACE INTO measurement VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                 (*row.values(), time.time()))


def parse_measurement(text: object) -> CandidateMeasurement | None:
    """A stored measurement: a positive median (a sample, or `median_s`), or a
    `failed` or `dropped` reason (a build that failed, a candidate screened out as far
    slower). Decided by `CandidateMeasurement.from_json`, the one reader of measurements
    from anywhere."""
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None
    found = CandidateMeasurement.from_json(value)
    if found is None or (found.outcome is Outcome.MEASURED
                         and not (found.median is not None and found.median > 0)):
        return None
    return found
