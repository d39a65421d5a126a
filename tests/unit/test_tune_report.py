"""Tune entries read as typed records (`clmodes.tune.reporting.report`), from hand-written rows.

The rows are what a bundle from another machine or another clmodes version can hold, so
the records here are hostile on purpose: missing fields, wrong types, non-finite numbers.
The store is a real (in-memory) SQLite store."""

from __future__ import annotations

import dataclasses
import json
import math
import platform
from collections import Counter

import pytest

from clmodes.cli.tune_render import list_text
from clmodes.records.measurement import CandidateMeasurement, Outcome
from clmodes.records.tune import TuneRecord
from clmodes.tune.measuring.finals import play
from clmodes.tune.measuring.policy import RacePolicy
from clmodes.store import FORMAT_VERSION, Store, StoreEntries, TuneRow
from clmodes.tune.reporting import report, selecting

MODEL = "PoCL | some cpu | 2CU | host memory | OpenCL 3.0"
RECORD = {
    "winner": "TILE=16 local=8x8",
    "statistic": "median",
    "measurements": {
        "TILE=16 local=8x8": {"median_s": 1e-3, "samples_s": [1.1e-3, 1e-3, 0.9e-3, 1.2e-3, 1e-3]},
        "TILE=8 local=8x8": {"median_s": 1.5e-3, "samples_s": [1.5e-3, 1.6e-3, 1.4e-3],
                             "discarded_samples": 1},
        "TILE=32 local=4x4": {"median_s": 2e-3, "samples_s": [2e-3]},
    },
    "dropped": {"TILE=64 local=8x8": "screened: warm-up 0.01 s vs fastest 0.001 s",
                "TILE=4 local=2x2": "failed: kernel 'mm' failed to build on X:\nCompilation started\n1:2: error: bad\nmore"},
    "device": MODEL + " | driver 1", "tune_seconds": 0.5, "measured_at": 1.7e9,
    "clmodes": "0.1.0",
}


def store_with(*records: tuple[str, str, object]) -> Store:
    """An in-memory store holding (tunable, key, record) rows (a record may be raw text)."""
    store = Store(None)
    rows = [TuneRow(FORMAT_VERSION, MODEL, tunable, key, "c" * 16,
                    record if isinstance(record, str) else json.dumps(record))
            for tunable, key, record in records]
    store.add_entries(StoreEntries(rows, [], []))
    return store


def test_a_record_reads_as_sorted_candidates_runner_up_and_drops():
    (entry,) = report.tuned_keys(store_with(("mm", '{"n":64}', RECORD)))
    assert [m.name for m in entry.measured] == ["TILE=16 local=8x8", "TILE=8 local=8x8",
                                                 "TILE=32 local=4x4"]
    assert entry.runner_up.name == "TILE=8 local=8x8" and entry.runner_up_ratio == pytest.approx(1.5)
    assert entry.configs == 5 and entry.origin() == "unknown"
    best = entry.winner_measurement
    assert (best.min_s, best.max_s) == (0.9e-3, 1.2e-3) and best.quartiles_s == (1e-3, 1.1e-3)
    assert best.parameters == {"TILE": "16", "local": "8x8"}
    kinds = {d.name: d.kind for d in entry.dropped}
    assert kinds == {"TILE=64 local=8x8": "screened", "TILE=4 local=2x2": "failed"}
    failed = next(d for d in entry.dropped if d.kind == "failed")
    assert failed.summary == "failed: kernel 'mm' failed to build on X: — 1:2: error: bad"
    assert entry.measured[1].discarded_samples == 1


@pytest.mark.parametrize("host, origin", [(platform.node(), "here"), ("build-box-7", "imported"),
                                          (None, "unknown"), (42, "unknown")])
def test_where_an_entry_came_from(host, origin):
    (entry,) = report.tuned_keys(store_with(("mm", "{}", {**RECORD, "host": host})))
    assert entry.origin() == origin
    assert entry.summary()["origin"] == origin


def test_space_size_and_cost_when_the_record_has_them():
    cost = {"bytes_moved": 3e6, "flops": 1e6, "bandwidth_gbps": 10.0, "compute_gflops": 100.0}
    (entry,) = report.tuned_keys(store_with(("mm", "{}", {**RECORD, "space_size": 40, "cost": cost})))
    assert entry.configs == 40 and entry.cost.roofline_s == pytest.approx(3e-4)
    assert entry.details()["roofline_s"] == pytest.approx(3e-4)


def test_hostile_records_are_skipped_or_read_field_by_field(caplog):
    hostile = {
        "winner": "a", "statistic": 7, "host": ["x"], "tune_seconds": "fast", "space_size": -3,
        "measured_at": math.inf, "roofline": True, "cost": {"bytes_moved": -1},
        "measurements": {"a": {"median_s": "1", "samples_s": [1e-3, "x", None, 2e-3],
                               "runs_per_sample": "many"},
                         "b": "not a measurement", "c": {"samples_s": [3e-3]},
                         "d": {"median_s": float("nan")}},
        "dropped": ["not", "a", "dict"],
        "spread": {"nodes": "two", "measured_on": {"n0": 5, "n1": "x", "n2": -1},
                   "reraced_on": 3, "adopted_on": "n1", "extra": object.__name__},
        "inputs_replaced": ["argument 1 (8 float32: 1 NaN, 0 subnormal values)", 7, None],
    }
    store = store_with(("t", "k1", "not json"), ("t", "k2", json.dumps({"winner": 3})),
                       ("t", "k3", hostile), ("t", "k4", json.dumps([1, 2])))
    with caplog.at_level("WARNING", logger="clmodes"):
        entries = report.tuned_keys(store)
    assert [e.key for e in entries] == ["k3"]
    assert sum("unreadable tune entry" in r.message for r in caplog.records) == 3
    (entry,) = entries
    assert [m.name for m in entry.measured] == ["a", "c"]  # a: median of its real samples
    assert entry.measured[0].median_s == pytest.approx(1.5e-3) and entry.measured[0].samples_s == (1e-3, 2e-3)
    assert (entry.statistic, entry.host, entry.tune_seconds, entry.space_size, entry.measured_at,
            entry.roofline, entry.cost, entry.dropped) == ("median", None, None, None, None,
                                                           None, None, ())
    assert entry.spread == {"nodes": None, "measured_on": {"n0": 5}, "reraced_on": None,
                            "adopted_on": "n1"}  # known fields, typed
    assert entry.inputs_replaced == ("argument 1 (8 float32: 1 NaN, 0 subnormal values)",)
    assert entry.measured[0].runs_per_sample == 1
    json.dumps(entry.details(), allow_nan=False)  # what --json prints is strict JSON


def test_select_by_exact_canonical_or_partial_key_and_errors_name_what_exists():
    store = store_with(("mm", '{"M":8,"N":16}', RECORD), ("mm", '{"M":8,"N":32}', RECORD),
                       ("sm", '{"R":4}', RECORD))
    assert [r.tune_key for r in selecting.select(store, "mm", '{"N": 16, "M": 8}')] == ['{"M":8,"N":16}']
    assert [r.tune_key for r in selecting.select(store, "mm", '"N":32')] == ['{"M":8,"N":32}']
    assert len(selecting.select(store, "mm")) == 2
    with pytest.raises(report.NoTuneEntryError, match=r"ambiguous: it is part of 2 keys"):
        selecting.select(store, "mm", '"M":8')
    with pytest.raises(report.NoTuneEntryError, match=r"has no key '\{\"M\":9\}'; its keys: "):
        selecting.select(store, "mm", '{"M":9}')
    with pytest.raises(report.NoTuneEntryError, match=r"'nope'; tuned here: mm, sm"):
        selecting.select(store, "nope")
    with pytest.raises(report.NoTuneEntryError, match="the store has none"):
        selecting.select(Store(None), "mm")


def test_forget_deletes_exactly_the_selected_entries_readable_or_not():
    store = store_with(("mm", '{"M":8}', RECORD), ("mm", '{"M":9}', "garbage"), ("sm", "{}", RECORD))
    assert selecting.forget(store, selecting.select(store, "mm", '{"M":8}')) == 1
    assert [(r.tunable, r.tune_key) for r in store.tune_rows()] == [("mm", '{"M":9}'), ("sm", "{}")]
    assert selecting.forget(store, selecting.select(store, "mm")) == 1  # the unreadable one too
    assert [r.tunable for r in store.tune_rows()] == ["sm"]


@pytest.mark.parametrize("name, expected", [
    ("reg RM=4,WPT=8 local=8x8", {"family": "reg", "RM": "4", "WPT": "8", "local": "8x8"}),
    ("A=1,B=2", {"A": "1", "B": "2"}), ("naive local=16x16", {"family": "naive", "local": "16x16"}),
    ("fast_path", {}), ("two words", {}), ("A=", {}), ("default", {}),
])
def test_configuration_names_read_as_parameters(name, expected):
    assert report.parameters(name) == expected


def test_a_candidate_dropped_for_its_output_reads_as_wrong_with_the_check():
    record = {**RECORD, "dropped": {"fast": "differs from the reference 'slow': argument 0: "
                                            "max abs error 0.5 at index 3 (...)"},
              "check": {"reference": "slow", "candidates": 3, "seconds": "hostile",
                        "bytes_copied": 4096}}
    (entry,) = report.tuned_keys(store_with(("op", '{"n":1}', record)))
    assert [d.kind for d in entry.dropped] == ["wrong"]
    assert entry.check == {"reference": "slow", "candidates": 3, "seconds": None,
                           "bytes_copied": 4096}
    assert entry.summary()["check"] == entry.check


# -- a runner-up faster by median than the winner: why it was not chosen ---------------


@pytest.fixture(autouse=True)
def _whole_width(monkeypatch):
    """Tables fit `$COLUMNS` (a pytest-xdist worker exports 80): these read whole names."""
    monkeypatch.delenv("COLUMNS", raising=False)

# Two finalists timed round by round (ms): "slow-ish" loses two rounds by half, wins three
# narrowly, so its median is 4% above the other's yet its paired score is the lower.
PATTERN = {"TILE=16 local=8x8": [3.0, 3.0, 0.95, 1.0, 1.0],
           "TILE=8 local=8x8": [3.1, 3.1, 0.96, 0.5, 0.5]}


def played_record() -> TuneRecord:
    """A record of a final played by `finals.play` (the tuner's final) on replayed timings:
    its winner, its finalists' samples and what it keeps of the final, as the tuner
    records them; plus a candidate measured only in an earlier race."""
    calls: Counter[str] = Counter()

    def timing(name: str) -> float:
        calls[name] += 1
        return PATTERN[name][(calls[name] - 1) % len(PATTERN[name])] * 1e-3

    final = play(list(PATTERN), timing, RacePolicy())
    measured = {name: final.measurements[name].as_measurement() for name in final.order}
    return TuneRecord(winner=final.order[0], measurements=measured, final=final.info(),
                      host=platform.node())


def listed(record: TuneRecord | dict) -> tuple[report.TunedKey, dict, str]:
    """The entry, its `tune list --json` row and `tune list`'s text."""
    raw = record.to_json() if isinstance(record, TuneRecord) else record
    (entry,) = report.tuned_keys(store_with(("mm", '{"n":64}', raw)))
    payload = {"store": "memory", "host": platform.node(), "unit": "s", "tunable": None,
               "entries": [entry.summary()]}
    return entry, json.loads(json.dumps(payload))["entries"][0], list_text(payload)


def test_a_runner_up_that_lost_the_final_says_so_with_the_finals_numbers():
    record = played_record()
    entry, row, text = listed(record)
    assert entry.winner == "TILE=16 local=8x8" and entry.runner_up.name == "TILE=8 local=8x8"
    assert entry.runner_up_ratio == pytest.approx(0.96)  # faster by median...
    note = row["runner_up_not_chosen"]
    assert note["reason"] == "lost-final"  # ...but slower in most paired rounds
    assert (note["slower_rounds"], note["shared_rounds"]) == (6, 10) == (
        record.final.against_winner["TILE=8 local=8x8"].slower, record.final.rounds)
    assert note["score"] > note["winner_score"]
    assert note["text"] == ("4.0% faster by median; not chosen: lost the final, slower than "
                            "the winner in 6 of 10 paired rounds (paired score 1.01 against "
                            "the winner's 0.995)")
    assert "* TILE=8 local=8x8 (-4.0%)" in text
    assert f'mm {{"n":64}}: runner-up TILE=8 local=8x8 0.96 ms ({note["text"]})' in text


def test_a_runner_up_measured_only_in_its_race_says_it_was_no_finalist():
    record = played_record()
    race_only = CandidateMeasurement(Outcome.MEASURED, 0.5e-3, (0.5e-3, 0.49e-3, 0.52e-3))
    record = dataclasses.replace(record, measurements={**record.measurements,
                                                       "TILE=32 local=4x4": race_only})
    entry, row, text = listed(record)
    assert entry.runner_up.name == "TILE=32 local=4x4"
    assert row["runner_up_not_chosen"]["reason"] == "not-in-final"
    assert ("50.0% faster by median; not chosen: it was not a finalist; its median is from "
            "its own earlier race, the winner's from the final's 10 paired rounds") in text


def test_a_record_without_its_final_says_the_reason_is_not_kept():
    raw = played_record().to_json()
    del raw["final"]
    _, row, text = listed(raw)
    assert row["runner_up_not_chosen"]["reason"] == "unrecorded"
    assert "not chosen: unknown: the record does not keep the final" in text


def test_a_runner_up_slower_than_the_winner_needs_no_reason():
    entry, row, text = listed(RECORD)
    assert entry.runner_up_ratio == pytest.approx(1.5)
    assert row["runner_up_not_chosen"] is None and entry.runner_up_note is None
    assert "not chosen" not in text and "* " not in text
    assert "TILE=8 local=8x8 (+50.0%)" in text
