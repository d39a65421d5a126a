"""Which answers are verified here (`TuneRecord.untimed_on`) and what a race's result decides
(`clmodes.tune.answers.verify`)."""

from __future__ import annotations

import pytest

from clmodes.execution import ProcessMode
from clmodes.records.tune import TuneRecord
from clmodes.tune.answers.verify import TOLERANCE, Verdict, due, runner_up


@pytest.mark.parametrize("record, expected", [
    ({"winner": "a", "host": "me"}, False),                        # measured here
    ({"winner": "a"}, False),                                      # predates the host field
    ({"winner": "a", "host": "build-1"}, True),                    # imported
    ({"winner": "a", "host": "me", "grade": "family"}, True),      # graded
    ({"winner": "a", "host": "build-1", "verified": {"kept": True}}, False),  # once
])
def test_untimed_on(record, expected):
    assert TuneRecord.from_json(record).untimed_on("me") is expected


def test_the_runner_up_is_the_fastest_other_current_candidate():
    record = TuneRecord.from_json({"winner": "b", "measurements": {
        "b": {"median_s": 1.0}, "gone": {"median_s": 2.0}, "a": {"median_s": 3.0}}})
    assert runner_up(record, {"a": print, "b": print}.get) == "a"
    only = TuneRecord.from_json({"winner": "b", "measurements": {"b": {"median_s": 1.0}}})
    assert runner_up(only, {"b": print}.get) is None


def verdict(winner_s, runner_up_s):
    return Verdict("w", winner_s, "r", runner_up_s, 5, "family")


def test_kept_within_the_tolerance_re_tuned_beyond_it():
    assert verdict(1.0, 1.0).kept and verdict(1.0, 1 / TOLERANCE + 1e-9).kept
    assert not verdict(1.0, 1 / TOLERANCE - 1e-3).kept
    assert not verdict(None, 1.0).kept  # the winner failed here
    assert Verdict("w", 1.0, None, None, 5, "vendor").kept  # nothing to race it against
    assert verdict(2.0, 1.0).as_json()["outcome"] == "re-tuned"


def test_only_compile_and_autotune_or_first_use_time(monkeypatch):
    monkeypatch.delenv("CLMODES_VERIFY", raising=False)
    assert due(ProcessMode.COMPILE_AND_AUTOTUNE)
    assert not due(ProcessMode.EXECUTE) and not due(ProcessMode.COMPILE_ONLY)
    monkeypatch.setenv("CLMODES_VERIFY", "first-use")
    assert due(ProcessMode.EXECUTE) and not due(ProcessMode.COMPILE_ONLY)
