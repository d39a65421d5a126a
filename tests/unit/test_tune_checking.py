"""The comparison a tune makes before a candidate can win (`clmodes.tune.checking.comparison`), and
which stored measurements a checking tune may reuse (`clmodes.tune.checking.reference`)."""

import numpy as np
import pytest

from clmodes import Tolerance
from clmodes.tune.checking.comparison import default_tolerance, disagreement
from clmodes.tune.checking.reference import Checker
from clmodes.tune.checking.rule import Checking
from clmodes.records.measurement import CandidateMeasurement


def test_reordered_sums_agree_and_a_missed_term_does_not():
    """A dot product summed in another order agrees, even where it cancels to near
    zero; one that misses a term is wrong."""
    rng = np.random.default_rng(0)
    a, b = rng.uniform(-1, 1, (64, 512)).astype(np.float32), rng.uniform(-1, 1, 512).astype(np.float32)
    forward = np.array([np.sum(row * b, dtype=np.float32) for row in a], np.float32)
    backward = np.array([np.sum((row * b)[::-1], dtype=np.float32) for row in a], np.float32)
    assert not np.array_equal(forward, backward)
    assert disagreement(backward, forward) is None
    missed = forward - a[:, -1] * b[-1]
    assert disagreement(missed, forward).startswith("max abs error ")


def test_the_reason_names_the_worst_element():
    reference = np.arange(8, dtype=np.float32)
    got = reference.copy()
    got[3] += 0.5
    assert disagreement(got, reference) == \
        "max abs error 0.5 at index 3 (allowed 0.001; 1 of 8 values differ)"


def test_nan_agrees_only_with_nan_and_infinities_with_themselves():
    reference = np.array([1, np.nan, np.inf, -np.inf], np.float32)
    assert disagreement(reference.copy(), reference) is None
    got = reference.copy()
    got[0] = np.nan
    assert disagreement(got, reference).startswith("nan where the reference has 1 at index 0")
    got = reference.copy()
    got[2] = -np.inf
    assert "-inf where the reference has inf at index 2" in disagreement(got, reference)


def test_integers_agree_bit_for_bit_and_index_by_shape():
    reference = np.arange(12, dtype=np.int32).reshape(3, 4)
    got = reference.copy()
    got[1, 2] += 1
    assert disagreement(got, reference) == \
        "1 of 12 elements differ, the first at index (1, 2) (7 vs 6)"


def test_tolerance_is_per_width_and_configurable():
    assert default_tolerance(np.float16).rtol > default_tolerance(np.float32).rtol \
        > default_tolerance(np.float64).rtol
    assert default_tolerance(np.complex64) == default_tolerance(np.float32)
    reference = np.ones(4, np.float32)
    assert disagreement(reference * 1.001, reference) is not None
    assert disagreement(reference * 1.001, reference, Tolerance(rtol=1e-2)) is None
    assert disagreement(reference + 0.05, reference, Tolerance(rtol=0, atol=0.1)) is None
    with pytest.raises(ValueError, match="atol must be a finite number >= 0"):
        Tolerance(rtol=1e-3, atol=float("nan"))


def test_only_measurements_checked_against_the_reference_in_force_are_reused():
    passed = {"median_s": 1e-3, "reference": "slow"}
    unchecked = {"median_s": 1e-3}
    wrong = {"dropped": "differs from the reference 'slow': argument 0: ...", "reference": "slow"}
    failed = {"failed": "failed: build error"}
    # Stored rows as the tuner reads them: typed at the boundary (`tune.measurement`).
    passed, unchecked, wrong, failed = (CandidateMeasurement.from_json(r)
                                        for r in (passed, unchecked, wrong, failed))
    any_reference = Checker(Checking(), None, "t")
    assert [any_reference.reusable(r) for r in (passed, unchecked, wrong, failed)] == \
        [True, False, True, True]
    other = Checker(Checking(reference="medium"), None, "t")
    assert [other.reusable(r) for r in (passed, unchecked, wrong, failed)] == \
        [False, False, False, True]
    off = Checker(None, None, "t")
    assert [off.reusable(r) for r in (passed, unchecked, wrong, failed)] == \
        [True, True, False, True]
