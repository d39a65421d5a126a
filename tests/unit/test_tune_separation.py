"""When the finalists' re-race may stop: the fastest's upper quartile below the others'
lower quartiles."""

from clmodes.tune.measuring.racing import Measurement
from clmodes.tune.measuring.racing import separated


def test_clearly_faster_is_separated():
    assert separated([Measurement("a", [1.0, 1.1, 1.0, 1.05]), Measurement("b", [2.0, 2.1, 1.9])])


def test_overlapping_spreads_are_not():
    assert not separated([Measurement("a", [1.0, 1.5, 1.2, 1.4]),
                          Measurement("b", [1.3, 1.6, 1.1, 1.45])])


def test_one_finalist_or_one_sample():
    assert separated([Measurement("a", [1.0])])
    assert separated([Measurement("a", [1.0]), Measurement("b", [2.0])])
    assert not separated([Measurement("a", [1.0]), Measurement("b", [1.0])])
