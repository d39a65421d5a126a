"""TuningSpace: enumeration with string and callable restrictions, safe parsing of
restriction strings, laziness, names, neighbours, sampling, subspaces."""

from __future__ import annotations

import itertools
import random

import pytest

from clmodes import TuningSpace
from clmodes.tune.search.restriction import RestrictionError

PARAMS = {"MWG": [16, 32, 64], "MDIMC": [8, 16], "VW": [1, 2, 4], "SA": [False, True],
          "MODE": ["a", "b"]}


def brute_force(params, predicate):
    names = list(params)
    return [dict(zip(names, values)) for values in itertools.product(*params.values())
            if predicate(dict(zip(names, values)))]


def test_string_and_callable_restrictions_enumerate_in_product_order():
    space = TuningSpace(PARAMS, ["MWG % (MDIMC * VW) == 0",
                                 lambda c: c["MODE"] == "a" or c["SA"]])
    expected = brute_force(PARAMS, lambda c: c["MWG"] % (c["MDIMC"] * c["VW"]) == 0
                           and (c["MODE"] == "a" or c["SA"]))
    assert list(space) == expected
    assert len(space) == len(expected) and 0 < len(expected) < space.product_size
    assert list(space) == expected  # iterating again gives the same order


@pytest.mark.parametrize("text,check", [
    ("16 <= MWG * VW < 128", lambda c: 16 <= c["MWG"] * c["VW"] < 128),
    ("not SA or MODE in ('a',)", lambda c: not c["SA"] or c["MODE"] in ("a",)),
    ("MWG // MDIMC ** 1 - VW % 3 != 2 and -VW < 0", lambda c: c["MWG"] // c["MDIMC"] - c["VW"] % 3 != 2),
    ("MWG / MDIMC >= 4 if SA else VW == 1", lambda c: c["MWG"] / c["MDIMC"] >= 4 if c["SA"] else c["VW"] == 1),
    ("MODE not in ['b'] or VW in (2, 4)", lambda c: c["MODE"] != "b" or c["VW"] in (2, 4)),
])
def test_string_restrictions_mean_what_python_means(text, check):
    assert list(TuningSpace(PARAMS, [text])) == brute_force(PARAMS, check)


@pytest.mark.parametrize("text", [
    "__import__('os').system('true')",
    "MWG.bit_length() > 3",
    "open('/etc/passwd')",
    "[x for x in (1, 2)]",
    "(lambda: 1)()",
    "MWG[0] == 1",
    "MWG > undefined_name",
    "MWG := 3",
    "MWG in (VW, 2)",
    "import os",
    "",
])
def test_unsafe_or_foreign_restriction_strings_are_refused_in_one_line(text):
    with pytest.raises(ValueError) as error:
        TuningSpace(PARAMS, [text])
    message = str(error.value)
    assert "\n" not in message and repr(text) in message


def test_a_restriction_failing_on_a_config_is_named():
    space = TuningSpace({"A": [0, 1], "B": [1]}, ["B % A == 0"])
    with pytest.raises(RestrictionError, match=r"'B % A == 0' failed on \{'A': 0, 'B': 1\}.*ZeroDivision"):
        list(space)
    with pytest.raises(RestrictionError, match="exceeds"):
        list(TuningSpace({"A": [2], "B": [10_000]}, ["A ** B > 1"]))
    with pytest.raises(RestrictionError, match="arithmetic on a string"):
        list(TuningSpace({"S": ["x"]}, ["S * 100000000000 == 'x'"]))


def test_bad_parameters_are_refused():
    for params in [{}, {"A": []}, {"A": "abc"}, {"A": [1, 1.5j]}, {"1A": [1]},
                   {"A": ["x,y"]}, {"A": [1, "1"]}]:
        with pytest.raises(ValueError):
            TuningSpace(params)
    with pytest.raises(TypeError, match="restriction 3"):
        TuningSpace({"A": [1]}, [3])


def test_a_million_point_product_with_tight_restrictions_is_enumerated_lazily():
    """10^6 points; the restrictions on the first parameters cut all but 10^3 early, so
    the walk checks a few thousand prefixes: a full product would take seconds."""
    params = {f"P{i}": list(range(10)) for i in range(6)}
    checked = []

    def spy(config):
        checked.append(1)
        return True

    space = TuningSpace(params, ["P0 == 3", "P1 == P0 + 1", "P2 < 1", spy])
    assert space.product_size == 10**6
    first = next(iter(space))
    assert first == {"P0": 3, "P1": 4, "P2": 0, "P3": 0, "P4": 0, "P5": 0}
    assert len(checked) == 1  # one complete config built for the first one
    assert len(space) == 1000 and len(checked) == 1001
    assert len(space) == 1000 and len(checked) == 1001  # len is cached


def test_names_round_trip_and_are_canonical():
    space = TuningSpace({"A": [1, 2], "X": [0.5, 1.0], "S": ["p", "q"], "B": [True, False]})
    for config in space:
        name = space.name(config)
        assert space.config(name) == config
        assert name in space and config in space
    reordered = {"S": "q", "B": False, "A": 2, "X": 0.5}
    assert space.name(reordered) == "A=2,X=0.5,S=q,B=False"
    for bad in ["A=3,X=0.5,S=q,B=False", "A=2,X=0.5,S=q", "A=2,X=0.5,S=q,B=False,C=1", "junk"]:
        assert bad not in space
        with pytest.raises(ValueError, match="config name"):
            space.config(bad)


def test_config_of_a_name_outside_the_restrictions_is_refused():
    space = TuningSpace({"A": [1, 2, 3]}, ["A != 2"])
    assert "A=2" not in space
    with pytest.raises(ValueError, match="'A != 2'"):
        space.config("A=2")
    assert {"A": 2} not in space and {"A": 4} not in space


def test_neighbours_step_along_value_lists_and_stay_valid():
    space = TuningSpace({"A": [1, 2, 4, 8], "B": [1, 2, 4]}, ["A >= B"])
    assert space.neighbours({"A": 2, "B": 2}) == [{"A": 4, "B": 2}, {"A": 2, "B": 1}]
    two = space.neighbours({"A": 2, "B": 2}, radius=2)
    assert {"A": 8, "B": 2} in two and {"A": 1, "B": 2} not in two  # invalid: A < B
    assert all(c in space for c in two)


def test_sample_is_distinct_valid_seeded_and_does_not_enumerate():
    params = {f"P{i}": list(range(10)) for i in range(6)}
    calls = []

    def spy(config):
        calls.append(1)
        return config["P5"] % 2 == 0

    space = TuningSpace(params, ["P0 + P1 < 12", spy])
    sample = space.sample(random.Random(5), 50)
    assert len(sample) == 50 and all(c in space for c in sample)
    assert len({space.name(c) for c in sample}) == 50
    assert len(calls) < 1000  # rejection sampling, not a walk of the 10^6 product
    assert space.sample(random.Random(5), 50) == sample
    assert space.sample(5, 50) == sample
    exclude = {space.name(c) for c in sample[:10]}
    assert not exclude & {space.name(c) for c in space.sample(7, 40, exclude=exclude)}


def test_sample_of_a_tight_space_falls_back_to_enumeration():
    params = {f"P{i}": list(range(10)) for i in range(5)}
    space = TuningSpace(params, ["P0 == 1 and P1 == 2 and P2 == 3 and P3 == 4"])
    sample = space.sample(random.Random(0), 20)
    assert len(sample) == 10 and sorted(c["P4"] for c in sample) == list(range(10))


def test_asking_for_more_than_the_space_holds_enumerates_at_once():
    """`RandomSample(100_000)` over a smaller space: every valid config once, without
    rejection sampling to its miss limit first (50 draws per config asked, 5,000,000
    here; over GEMM_SPACE that took a tune's whole time budget)."""
    params = {f"P{i}": list(range(10)) for i in range(4)}
    calls = []

    def spy(config):
        calls.append(1)
        return config["P3"] % 2 == 0

    space = TuningSpace(params, [spy])
    sample = space.sample(random.Random(1), 100_000)
    assert sorted(space.name(c) for c in sample) == sorted(space.name(c) for c in space)
    assert len(calls) < 10 * space.product_size  # counted and enumerated, not drawn
    assert len(space.sample(random.Random(1), 100_000, exclude={space.name(sample[0])})) == 4999


def test_subspace_fixes_and_narrows_parameters():
    space = TuningSpace(PARAMS, ["MWG % (MDIMC * VW) == 0"])
    sub = space.subspace(MWG=32, VW=[1, 4])
    assert all(c["MWG"] == 32 and c["VW"] in (1, 4) for c in sub)
    assert list(sub) == [c for c in space if c["MWG"] == 32 and c["VW"] in (1, 4)]
    with pytest.raises(ValueError, match="MWG has no value 48"):
        space.subspace(MWG=48)
    with pytest.raises(ValueError, match="NOPE"):
        space.subspace(NOPE=1)
