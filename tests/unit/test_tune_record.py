"""The tune record's decoding boundary (`clmodes.records.tune`): hostile, old and new
records, and that what clmodes writes reads back as the same record."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings, strategies as st

from clmodes.records.measurement import WRONG, CandidateMeasurement, Drop, Dropped, Outcome
from clmodes.records.tune import (RECORD_VERSION, CheckInfo, Cost, MalformedRecord, SpreadInfo,
                                 TuneRecord, decoded)

# A record as clmodes wrote it before records had a version (0.x, with a check and a spread).
OLD = {
    "winner": "fast", "statistic": "median",
    "measurements": {
        "fast": {"median_s": 1e-3, "samples_s": [1e-3, 1.1e-3, 0.9e-3], "device": "d | 1",
                 "host": "h", "measured_at": 1.5, "clmodes": "0.9", "identity": "id-fast",
                 "reference": "fast", "runs_per_sample": 4},
        "medium": {"median_s": 2e-3, "samples_s": [2e-3], "discarded_samples": 1,
                   "identity": "id-medium", "roofline": 0.25}},
    "dropped": {"broken": "failed: build error", "slow": "slower: 9 s vs best 1 s",
                "off": f"{WRONG} 'fast': argument 0: 3 of 64 differ"},
    "identities": {"fast": "id-fast", "medium": "id-medium", "slow": "id-slow"},
    "device": "d | 1", "host": "h", "space_size": 5, "measured_here": 5,
    "inputs_replaced": ["argument 0 (out)"],
    "check": {"reference": "fast", "candidates": 4, "seconds": 0.5, "bytes_copied": 1024},
    "tune_seconds": 2.5, "measured_at": 10.0, "clmodes": "0.9",
    "spread": {"nodes": 2, "measured_on": {"a": 3, "b": 2}, "reraced_on": "a"},
    "roofline": 0.5,
    "cost": {"bytes_moved": 1e6, "flops": 2e6, "bandwidth_gbps": 100.0, "compute_gflops": 1e3},
}


def test_an_old_record_decodes_and_writes_back_as_it_was_plus_its_version():
    record = TuneRecord.from_json(OLD)
    assert record.version == 0 and record.winner == "fast"
    assert [m.outcome for m in record.dropped.values()] == \
        [Outcome.FAILED, Outcome.DROPPED, Outcome.WRONG]
    assert record.measurements["fast"].runs_per_sample == 4
    assert record.spread == SpreadInfo(2, {"a": 3, "b": 2}, "a")
    assert record.check == CheckInfo("fast", 4, 0.5, 1024)
    assert record.cost is not None and record.cost.roofline_s == pytest.approx(1e-5)
    # Written back with the kinds its reasons said (`drop_kinds`, kept since they are typed).
    assert record.to_json() == {**OLD, "record_version": RECORD_VERSION,
                                "drop_kinds": {"broken": "failed", "slow": "slower", "off": "wrong"}}
    assert record.source is OLD


def test_a_record_from_before_identities_and_hosts_still_decodes():
    record = TuneRecord.from_json({"winner": "a", "measurements": {"a": {"median_s": 1.0}}})
    assert record.identities is None and record.host is None and record.version == 0
    assert record.measurements["a"].identity is None and record.dropped == {}
    assert TuneRecord.from_json({"winner": "a"}).measurements == {}  # before measurements


def test_unknown_identities_are_none_not_a_string():
    m = CandidateMeasurement.from_json({"failed": "failed: x", "identity": "unknown"})
    assert m is not None and m.identity is None and m.outcome is Outcome.FAILED
    assert "identity" not in m.to_json()


@pytest.mark.parametrize("hostile, why", [
    ([1, 2], "has no winner"),
    ({"winner": ["a"]}, "has no winner"),
    ({"measurements": {}}, "has no winner"),
])
def test_a_record_that_is_no_record_raises_one_line(hostile, why):
    with pytest.raises(MalformedRecord, match=why) as raised:
        TuneRecord.from_json(hostile)
    assert "\n" not in str(raised.value)
    assert decoded(hostile) is None


@pytest.mark.parametrize("unmeasured", [{"b": {"median_s": 1.0}}, [["a", 1.0]]])
def test_a_winner_it_did_not_measure_is_refused_only_from_a_bundle(unmeasured):
    """Bundles always refused one; a store's record decodes (the tunable then says why
    its winner does not hold)."""
    hostile = {"winner": "a", "measurements": unmeasured}
    with pytest.raises(MalformedRecord, match="winner 'a' is not among its measured"):
        TuneRecord.from_json(hostile, strict=True)
    assert TuneRecord.from_json(hostile).winner_measurement is None


def test_fields_of_the_wrong_type_become_none_or_defaults():
    record = TuneRecord.from_json({
        "winner": "a", "statistic": 3, "host": ["h"], "space_size": -4, "measured_here": True,
        "tune_seconds": "fast", "roofline": float("nan"), "identities": ["a"],
        "inputs_replaced": ["ok", 3], "check": "yes", "spread": {"nodes": "2",
                                                                  "measured_on": {"a": -1, "b": 2}},
        "cost": {"bytes_moved": -1, "flops": 1, "bandwidth_gbps": 1, "compute_gflops": 1},
        "record_version": "9",
        "measurements": {"a": {"median_s": "1", "samples_s": [1.0, "x", 3.0, math.inf]},
                         "b": 5, "c": {"samples_s": []}}})
    assert record.statistic == "median" and record.host is None and record.space_size is None
    assert record.measured_here is None and record.tune_seconds is None and record.roofline is None
    assert record.identities is None and record.inputs_replaced == ("ok",)
    assert record.check is None and record.cost is None and record.version == 0
    assert record.spread == SpreadInfo(None, {"b": 2})
    assert list(record.measurements) == ["a"]  # b and c are no measurements
    assert record.measurements["a"].median_s == 2.0  # the median of its real samples
    assert record.measurements["a"].samples_s == (1.0, 3.0)


def test_strict_decoding_refuses_a_roofline_that_is_not_a_number():
    with pytest.raises(MalformedRecord, match="roofline is not a number"):
        TuneRecord.from_json({"winner": "a", "roofline": "high"}, strict=True)
    assert TuneRecord.from_json({"winner": "a", "roofline": "high"}).roofline is None


def test_a_newer_record_decodes_what_this_clmodes_knows():
    newer = {"winner": "a", "record_version": RECORD_VERSION + 1, "future": {"x": 1},
             "measurements": {"a": {"median_s": 1.0, "samples_s": [1.0], "energy_j": 3}}}
    record = TuneRecord.from_json(newer)
    assert record.version == RECORD_VERSION + 1 and record.measurements["a"].median_s == 1.0


def test_the_outcome_comes_from_where_it_is_written():
    assert CandidateMeasurement.dropped(Dropped(Drop.FAILED, "it raised")).outcome is Outcome.FAILED
    assert CandidateMeasurement.dropped(Dropped(Drop.WRONG, "x")).outcome is Outcome.WRONG
    assert CandidateMeasurement.dropped(Dropped(Drop.SCREENED, "x")).outcome is Outcome.DROPPED
    # Under "dropped", a reason starting "failed" is still the racer's drop, not a failure.
    assert CandidateMeasurement.from_json({"dropped": "failed-ish"}).outcome is Outcome.DROPPED
    assert CandidateMeasurement.from_json({"median_s": None}) is None


def test_the_kind_is_data_not_the_words_of_the_reason():
    """A reason is words for a user: any words read back as the kind that was written."""
    wrong = CandidateMeasurement.dropped(Dropped(Drop.WRONG, "slower: looks like a drop"))
    back = CandidateMeasurement.from_json(json.loads(json.dumps(wrong.to_json())))
    assert back is not None and back.drop is Drop.WRONG and back.outcome is Outcome.WRONG
    record = TuneRecord("a", {"a": CandidateMeasurement(Outcome.MEASURED, 1.0, (1.0,))},
                        dropped={"b": CandidateMeasurement.dropped(Dropped(Drop.UNTIMED, "failed?"))})
    again = TuneRecord.from_json(json.loads(json.dumps(record.to_json())))
    assert again.dropped["b"].drop is Drop.UNTIMED and again.dropped["b"].outcome is Outcome.DROPPED
    # A kind this clmodes does not know (a newer one's) falls back to the reason's words.
    assert CandidateMeasurement.from_json({"dropped": "slower: 2 s", "kind": "hotter"}).drop is Drop.SLOWER


def test_adopting_a_record_says_where():
    record = TuneRecord.from_json(OLD).adopted_on("b")
    assert record.spread is not None and record.spread.adopted_on == "b"
    assert record.to_json()["spread"] == {**OLD["spread"], "adopted_on": "b"}
    assert record == TuneRecord.from_json(json.loads(json.dumps(record.to_json())))


# -- round trip -----------------------------------------------------------------------

names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12)
texts = st.text(max_size=20)
seconds = st.floats(min_value=1e-9, max_value=1e3, allow_nan=False)
optional = st.one_of(st.none(), texts)
identities = st.one_of(st.none(), texts.filter(lambda t: t != "unknown"))  # digests, really


@st.composite
def timed(draw: st.DrawFn) -> CandidateMeasurement:
    return CandidateMeasurement(
        Outcome.MEASURED, draw(seconds), tuple(draw(st.lists(seconds, max_size=5))),
        draw(st.integers(0, 9)), draw(st.integers(1, 16)), identity=draw(identities),
        reference=draw(optional), roofline=draw(st.one_of(st.none(), st.floats(0, 1))),
        device=draw(optional), host=draw(optional),
        measured_at=draw(st.one_of(st.none(), seconds)), clmodes=draw(optional))


@st.composite
def not_timed(draw: st.DrawFn) -> CandidateMeasurement:
    return CandidateMeasurement.dropped(Dropped(draw(st.sampled_from(list(Drop))), draw(texts)))


@st.composite
def records(draw: st.DrawFn) -> TuneRecord:
    measured = draw(st.dictionaries(names, timed(), min_size=1, max_size=4))
    return TuneRecord(
        winner=draw(st.sampled_from(sorted(measured))), measurements=measured,
        dropped=draw(st.dictionaries(names, not_timed(), max_size=3)),
        identities=draw(st.one_of(st.none(), st.dictionaries(names, texts, max_size=3))),
        statistic=draw(st.sampled_from(["median", "mean"])), device=draw(optional),
        host=draw(optional), space_size=draw(st.one_of(st.none(), st.integers(0, 10**6))),
        measured_here=draw(st.one_of(st.none(), st.integers(0, 10**6))),
        inputs_replaced=tuple(draw(st.lists(texts, max_size=2))),
        check=draw(st.one_of(st.none(), st.builds(CheckInfo, optional, st.integers(0, 9),
                                                  seconds, st.integers(0, 10**9)))),
        tune_seconds=draw(st.one_of(st.none(), seconds)), clmodes=draw(optional),
        spread=draw(st.one_of(st.none(), st.builds(
            SpreadInfo, st.integers(1, 8), st.dictionaries(names, st.integers(0, 99)),
            optional, optional))),
        roofline=draw(st.one_of(st.none(), st.floats(0, 1))),
        cost=draw(st.one_of(st.none(), st.builds(Cost, seconds, seconds, seconds, seconds))))


@settings(max_examples=200, deadline=None)
@given(records())
def test_what_clmodes_writes_reads_back_as_the_same_record(record):
    text = json.dumps(record.to_json(), sort_keys=True)
    again = TuneRecord.from_json(json.loads(text))
    assert again == record
    assert json.dumps(again.to_json(), sort_keys=True) == text
