"""The store's tune API in record types (`Store.tune_record` and the rest): what goes in
comes out, first writer wins, a record passed through keeps the JSON it was read from
(a newer clmodes's fields, an older layout), and no module of clmodes uses the raw
JSON form (`get_tune_json`, `put_tune_json`)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import clmodes
from clmodes.records.measurement import CandidateMeasurement, Drop, Dropped, Outcome
from clmodes.records.tune import FinalInfo, Rivalry, SpreadInfo, TuneRecord, parsed
from clmodes.store import Store
from clmodes.tune.answers.nearest import Grade, nearest
from support.recorded_devices import fp

KEY = ("model-a", "mm", '{"n":1}', "c")
H200 = fp("nvidia-h200").model
RTX4090 = fp("nvidia-rtx4090-550").model
ARC = fp("intel-arc-a770").model

MADE_HERE = TuneRecord(
    winner="a",
    measurements={"a": CandidateMeasurement(Outcome.MEASURED, 1e-3, (1e-3, 1.1e-3), identity="ia"),
                  "b": CandidateMeasurement(Outcome.MEASURED, 2e-3, (2e-3,), roofline=0.5)},
    dropped={"c": CandidateMeasurement.dropped(Dropped(Drop.SLOWER, "slower: 9 s"))},
    identities={"a": "ia", "b": "ib", "c": "ic"}, device="d | 1", host="h", space_size=3,
    measured_here=3, spread=SpreadInfo(2, {"x": 2, "y": 1}, "x"),
    final=FinalInfo(("a", "b"), 5, {"a": 1.0, "b": 1.2}, {"b": Rivalry(4, 5)}))

# A record as a newer clmodes might write it: fields this version does not know, at the
# top and inside a measurement.
NEWER = {**MADE_HERE.to_json(), "record_version": 99, "future": {"kept": [1, 2]},
         "measurements": {"a": {"median_s": 1e-3, "samples_s": [1e-3], "future_m": "x"},
                          "b": {"median_s": 2e-3, "samples_s": [2e-3]}}}


def stored_text(store: Store, key: tuple[str, ...] = KEY) -> str:
    (text,) = [row.value for row in store.tune_rows() if (row.model, row.tunable, row.tune_key,
                                                          row.candidates) == key]
    return text


def test_a_record_made_here_is_stored_as_to_json_and_reads_back_equal():
    store = Store(None)
    assert store.put_tune_record(*KEY, MADE_HERE) is MADE_HERE
    assert stored_text(store) == json.dumps(MADE_HERE.to_json(), sort_keys=True)
    found = store.tune_record(*KEY)
    assert found == MADE_HERE and found is not MADE_HERE
    assert found.stored_json() == MADE_HERE.to_json()  # read back: written back unchanged


def test_the_first_writer_wins_and_is_returned_typed():
    store = Store(None)
    store.put_tune_record(*KEY, MADE_HERE)
    other = dataclasses.replace(MADE_HERE, winner="b")
    kept = store.put_tune_record(*KEY, other)
    assert kept == MADE_HERE and kept is not other
    assert store.tune_record(*KEY).winner == "a"


def test_a_graded_answer_keeps_a_newer_records_fields_as_dicts_did():
    store = Store(None)
    store.put_tune_json(H200, *KEY[1:], NEWER)
    vendor, across = nearest(RTX4090, store.tune_records_on_models(*KEY[1:]))
    assert (vendor.grade, across.grade) == (Grade.VENDOR, Grade.ACROSS)
    store.put_tune_record(RTX4090, *KEY[1:], vendor.as_record())
    # What the dict code wrote: the source, marked with its grade.
    expected = {**NEWER, "grade": "vendor", "graded_from": [H200], "measured_here": 0}
    assert stored_text(store, (RTX4090, *KEY[1:])) == json.dumps(expected, sort_keys=True)
    # Across: the winner and the slowdowns rewritten, the measurements kept as they were.
    store.put_tune_record(ARC, *KEY[1:], across.as_record())
    expected = {**NEWER, "grade": "across", "graded_from": [H200], "measured_here": 0,
                "across": {"models": 1, "slowdown": {"a": 1.0, "b": 2.0}}}
    assert stored_text(store, (ARC, *KEY[1:])) == json.dumps(expected, sort_keys=True)


def test_a_verified_record_keeps_its_source_and_an_old_layout():
    old = {"winner": "a", "measurements": {"a": {"median_s": 1.0}, "b": {"median_s": 2.0}},
           "dropped": {"c": "slower: 3 s"}, "host": "elsewhere", "future": 1}
    store = Store(None)
    store.put_tune_json(*KEY, old)
    record = store.tune_record(*KEY)
    verified = dataclasses.replace(record, verified={"kept": True, "winner": "a"})
    store.replace_tune_record(*KEY, verified)
    # No "record_version", no "drop_kinds" added: only what changed is rewritten.
    assert json.loads(stored_text(store)) == {**old, "verified": {"kept": True, "winner": "a"}}
    assert store.tune_record(*KEY).verified == {"kept": True, "winner": "a"}


def test_a_record_adopted_from_another_process_is_stored_as_it_was_decided():
    decision = json.dumps(NEWER, sort_keys=True)  # what a lease's decision holds
    store = Store(None)
    store.put_tune_record(*KEY, parsed(decision))
    assert stored_text(store) == decision


def test_a_stale_record_is_dropped_unless_replaced_meanwhile():
    store = Store(None)
    store.put_tune_record(*KEY, MADE_HERE)
    read = store.tune_record(*KEY)
    store.replace_tune_record(*KEY, dataclasses.replace(MADE_HERE, winner="b"))
    assert not store.drop_stale_tune(*KEY, read)  # replaced: not the entry read
    assert store.drop_stale_tune(*KEY, store.tune_record(*KEY))
    assert store.tune_record(*KEY) is None and store.get_tune_json(*KEY) is None


def test_measurements_go_in_and_come_out_typed_as_their_json():
    store = Store(None)
    timed = CandidateMeasurement(Outcome.MEASURED, 1e-3, (1e-3, 2e-3), runs_per_sample=4,
                                 identity="ia", host="h")
    wrong = CandidateMeasurement.dropped(Dropped(Drop.WRONG, "differs from the reference 'a'"))
    store.put_measurement_record(*KEY[:3], "a", "ia", timed)
    store.put_measurement_record(*KEY[:3], "w", "iw", wrong)
    found = store.measurement_records(*KEY[:3])
    assert found == {("a", "ia"): timed, ("w", "iw"): wrong}
    (text,) = store.query("SELECT value FROM measurement WHERE candidate='w'")[0]
    assert text == json.dumps(wrong.to_json(), sort_keys=True)


def test_no_module_of_clmodes_uses_the_raw_json_form():
    root = Path(clmodes.__file__).parent
    raw = re.compile(r"\.(get_tune_json|put_tune_json)\(")
    users = [str(path.relative_to(root)) for path in root.rglob("*.py")
             if path.name != "store.py" and raw.search(path.read_text(encoding="utf-8"))]
    assert users == []
