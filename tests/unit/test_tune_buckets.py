"""Shape buckets (`Tunable(..., bucket=...)`, clmodes.tune.bucket): the ranges, the key
they make, the errors that name the field, and the miss reason "another shape bucket"."""

from __future__ import annotations

import pytest

from clmodes import Tunable
from clmodes.store import Store
from clmodes.tune import bucket
from clmodes.tune.bucket import bucketed, rules_of

MODEL = "NVIDIA | NVIDIA H100 80GB HBM3 | 132CU | 80GiB | OpenCL 3.0"


class _FakeDevice:  # only what tune_key reads: the model fingerprint
    class fingerprint:
        model = MODEL


class _FakeStream:
    device = _FakeDevice


def test_powers_of_two_share_a_range():
    rule = bucket.powers_of_two()
    assert [rule.label(v) for v in (0, 1, 2, 3, 4, 5, 33, 48, 56, 64, 65)] == [
        "0", "1", "2", "3..4", "3..4", "5..8", "33..64", "33..64", "33..64", "33..64", "65..128"]
    assert bucket.powers_of(4).label(480) == bucket.powers_of(4).label(640) == "257..1024"


def test_edges_are_inclusive_and_open_above():
    rule = bucket.edges([4096, 65536])
    assert [rule.label(v) for v in (0, 4096, 4097, 65536, 65537)] == [
        "0..4096", "0..4096", "4097..65536", "4097..65536", "65537.."]


@pytest.mark.parametrize("bad", [[], [8, 4], [4, 4], [1.5]])
def test_edges_must_be_increasing_integers(bad):
    with pytest.raises(ValueError, match="bucket.edges"):
        bucket.edges(bad)


def test_one_tune_key_answers_a_bucket():
    mm = Tunable("mm", key=lambda m, n: {"M": m, "N": n}, candidates={"a": print, "b": print},
                 bucket={"M": "pow2"})
    keys = {mm.tune_key(_FakeStream, (rows, 10)).key for rows in (33, 48, 56, 64)}
    assert keys == {'{"M":"33..64","N":10}'}
    assert mm.tune_key(_FakeStream, (65, 10)).key == '{"M":"65..128","N":10}'
    assert mm.tune_key(_FakeStream, (64, 11)).key == '{"M":"33..64","N":11}'  # N is exact


def test_bucket_errors_name_the_tunable_and_field():
    with pytest.raises(ValueError, match=r"tunable 'mm': unknown bucket rule 'pow3' for 'M'"):
        rules_of({"M": "pow3"}, "tunable 'mm'")
    with pytest.raises(TypeError, match=r"tunable 'mm': bucket= must map"):
        rules_of(["M"], "tunable 'mm'")
    rules = rules_of({"M": "pow2"}, "tunable 'mm'")
    with pytest.raises(ValueError, match=r"tunable 'mm': bucket= names 'M', which the key"):
        bucketed({"N": 3}, rules, "tunable 'mm'")
    with pytest.raises(TypeError, match=r"key field 'M' is bucketed, so it must be a non-negative"):
        bucketed({"M": "3"}, rules, "tunable 'mm'")
    with pytest.raises(TypeError, match=r"needs the key function to return a dict"):
        bucketed([3], rules, "tunable 'mm'")


def test_a_miss_by_bucket_is_named():
    store = Store(None)
    store.put_tune_json(MODEL, "mm", '{"M":"33..64","N":10}', "c", {"winner": "a"})
    store.put_tune_json(MODEL, "mm", '{"M":"33..64","N":32}', "c", {"winner": "a"})
    why = store.why_tune_missed(MODEL, "mm", '{"M":"65..128","N":10}', "c", bucketed=("M",))
    assert why == "another shape bucket (M 65..128 here; decisions are stored for M 33..64)"
    # an unbucketed field that differs is another shape, not another bucket
    other = store.why_tune_missed(MODEL, "mm", '{"M":"65..128","N":11}', "c", bucketed=("M",))
    assert other.startswith("another shape: ")
    assert store.why_tune_missed(MODEL, "mm", '{"M":"65..128","N":10}', "c").startswith(
        "another shape: ")


def test_a_bucket_miss_names_only_what_differs_from_the_nearest_key():
    store = Store(None)
    store.put_tune_json(MODEL, "mm", '{"M":"33..64","N":"9..16"}', "c", {"winner": "a"})
    store.put_tune_json(MODEL, "mm", '{"M":"33..64","N":"17..32"}', "c", {"winner": "a"})
    why = store.why_tune_missed(MODEL, "mm", '{"M":"65..128","N":"9..16"}', "c",
                                bucketed=("M", "N"))
    assert why == "another shape bucket (M 65..128 here; decisions are stored for M 33..64)"
