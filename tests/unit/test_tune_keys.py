"""Tune keys and timings that cannot be compared (issue "What ships is right", items 4-5)."""

from __future__ import annotations

import math

import pytest

from clmodes.records.measurement import Drop, Dropped
from clmodes.tune.measuring.policy import real_timing
from clmodes.tune.measuring.racing import Measurement, drop_slower, drop_untimed
from clmodes.tune.decisions.cache import canonical_key


def test_mapping_keys_must_be_strings():
    assert canonical_key({"1": 4}) == '{"1":4}'
    with pytest.raises(TypeError, match=r"tunable 'mm'.*string keys, not 1"):
        canonical_key({1: 4}, "tunable 'mm'")
    with pytest.raises(TypeError, match="string keys"):
        canonical_key([{"a": {2: 1}}], "tunable 'mm'")


def test_a_key_that_is_not_json_names_the_tunable():
    with pytest.raises(TypeError, match=r"tunable 'mm': a tune key must be JSON-able"):
        canonical_key({"shape": object()}, "tunable 'mm'")
    with pytest.raises(TypeError, match="JSON-able"):
        canonical_key({"x": 1j}, "tunable 'mm'")


@pytest.mark.parametrize("seconds", [math.nan, math.inf, -1e-3, 0.0])
def test_timings_that_cannot_be_real(seconds):
    assert not real_timing(seconds)
    assert real_timing(1e-6)


def test_a_candidate_without_a_real_timing_is_dropped_not_compared():
    measured = {"nan": Measurement("nan", [], discarded=3), "ok": Measurement("ok", [2e-3, 1e-3])}
    dropped: dict[str, Dropped] = {}
    drop_untimed(measured, dropped)
    assert list(measured) == ["ok"] and "3 discarded" in dropped["nan"].reason
    assert dropped["nan"].kind is Drop.UNTIMED


def test_dropping_slower_candidates_ignores_untimed_ones():
    measured = {"empty": Measurement("empty"), "fast": Measurement("fast", [1e-3]),
                "slow": Measurement("slow", [9e-3])}
    dropped: dict[str, Dropped] = {}
    from clmodes import RacePolicy

    drop_slower(measured, dropped, RacePolicy())
    assert "slow" in dropped and "empty" in measured
