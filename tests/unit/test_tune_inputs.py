"""`clmodes.tune.measuring.inputs` on host arrays: what counts as unwritten, and the replacement."""

import numpy as np
import pytest

from clmodes.tune.measuring.inputs import Replaced, uniform_like, unwritten


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64])
def test_nan_and_subnormal_values_are_counted_zero_and_infinity_are_not(dtype):
    real = np.dtype(dtype).type(0).real.dtype
    tiny = np.finfo(real).tiny
    values = np.array([0, 1, -np.inf, np.inf, tiny, -tiny], dtype=dtype)
    assert unwritten(values) == (0, 0)
    values = np.array([np.nan, tiny / 4, -tiny / 2, 0.5], dtype=dtype)
    assert unwritten(values) == (1, 2)


def test_garbage_bits_read_as_floats_are_mostly_unwritten():
    """Small integers and pointers, read as float32: subnormal (the memory `warm` leaves)."""
    garbage = np.arange(1, 4097, dtype=np.int32).view(np.float32)
    nan, subnormal = unwritten(garbage)
    assert subnormal == garbage.size and nan == 0


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex128])
def test_the_replacement_is_seeded_uniform_of_the_same_shape_and_dtype(dtype):
    like = np.empty((3, 5), dtype)
    first, again = uniform_like(like), uniform_like(like)
    assert first.shape == (3, 5) and first.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, uniform_like(like, seed=1))
    parts = first.view(first.real.dtype) if first.dtype.kind == "c" else first
    assert parts.min() >= -1 and parts.max() < 1 and unwritten(first) == (0, 0)


def test_a_replacement_describes_itself_in_one_line():
    text = Replaced(2, (64, 10), "float32", 3, 5).describe()
    assert text == "argument 2 (64x10 float32: 3 NaN, 5 subnormal values)"
