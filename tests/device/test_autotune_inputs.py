"""What a tune measures on (`clmodes.tune.measuring.inputs`): unwritten memory is replaced by
uniform values, real inputs are measured as they are. Candidates here are the `twice`
variants wrapped so that each measured call records, on the host, the input it got."""

import numpy as np
import pyopencl.array as cla

import clmodes
from clmodes import Kernel, ProcessMode, ProcessModeOverride, Tunable, kernel_variants
from support import fresh
from support.tunables import SOURCE, launch_twice, unique

N = 1024


def spied_tunable(caller_x):
    """A tunable of three `twice` variants; `seen` gets the host values of every `x` a
    measurement ran on (a call with the caller's own array is the gathering pass)."""
    seen: list[np.ndarray] = []
    variants = kernel_variants(Kernel(fresh(SOURCE), "twice"), launch_twice,
                               defines={"ITEMS": [1, 4, 16]})

    def spy(candidate):
        def run(stream, out, x, n):
            if x is not caller_x:
                seen.append(x.get())
            return candidate(stream, out, x, n)
        return run

    tunable = Tunable(unique(), key=lambda out, x, n: {"n": n},
                      candidates={name: spy(c) for name, c in variants.items()})
    return tunable, seen


def record_of(tunable, stream, args):
    return clmodes.default_store().get_tune_json(*tunable.tune_key(stream, args))


def test_nan_and_subnormal_inputs_are_measured_on_uniform_values(stream, collector):
    """The memory a dropped launch would have written, as `warm` leaves it: here NaN and
    subnormal values (1e-40) among normal ones."""
    values = np.full(N, 0.5, np.float32)
    values[::3], values[1::7] = 1e-40, np.nan
    x = cla.to_device(stream.queue, values)
    out = cla.zeros(stream.queue, N, np.float32)
    tunable, seen = spied_tunable(x)
    with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, collector):
        tunable(stream, out, x, N)
    assert seen, "no measurement ran"
    tiny = np.finfo(np.float32).tiny
    for got in seen:
        assert np.isfinite(got).all() and (np.abs(got) >= tiny).all()
        assert got.min() >= -1 and got.max() < 1
        np.testing.assert_array_equal(got, seen[0])  # one seeded replacement per tune
    record = record_of(tunable, stream, (out, x, N))
    (replaced,) = record["inputs_replaced"]
    assert replaced.startswith("argument 1 (1024 float32:") and "NaN" in replaced
    np.testing.assert_array_equal(x.get(), values)  # the caller's array is untouched


def test_real_inputs_are_measured_as_they_are_minus_infinity_included(stream, collector):
    """Normal values, zeros and an attention mask's -inf are real data: kept."""
    values = np.random.default_rng(1).random(N, dtype=np.float32) + 1
    values[::5], values[2::9] = 0, -np.inf
    x = cla.to_device(stream.queue, values)
    out = cla.zeros(stream.queue, N, np.float32)
    tunable, seen = spied_tunable(x)
    with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, collector):
        tunable(stream, out, x, N)
    assert seen
    for got in seen:
        np.testing.assert_array_equal(got, values)
    assert "inputs_replaced" not in record_of(tunable, stream, (out, x, N))
