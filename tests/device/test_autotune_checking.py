"""Candidates are checked against a reference before they can win (`clmodes.tune.checking.reference`).

The candidates here compute `out = 2 * x` (or get it wrong) with a known number of
launches, so which is fastest does not depend on the machine: a candidate's device time
is the sum of its launches'."""

import numpy as np
import pyopencl.array as cla
import pytest

import clmodes
from clmodes import Kernel, ProcessMode, ProcessModeOverride, Tolerance, Tunable, TuningSpace
from clmodes.cli import main as cli
from clmodes.runtime import default_runtime
from support import fresh
from support.tunables import unique

N = 4099  # not a multiple of any work-group's items: a forgotten tail shows
SOURCE = """
__kernel void scaled(__global DT* out, __global const DT* x, int n, float factor, int bump)
{
    int first = get_global_id(0) * ITEMS;
    for (int j = 0; j < ITEMS; ++j) {
        int i = first + j;
        if (i < n) out[i] = (ACC ? out[i] : (DT)0) + (DT)(x[i] * factor) + (i == bump);
    }
}
"""


def scaled(dtype="float", items=1, accumulate=False):
    return Kernel(fresh(SOURCE), "scaled",
                  {"DT": dtype, "ITEMS": items, "ACC": int(accumulate)})


def launcher(kernel, launches=1, factor=2.0, bump=-1, items=1, tail=True):
    """A candidate: `launches` launches of `kernel` (each writes the whole answer, so more
    launches is slower and still right); `tail=False` forgets the last partial block."""
    def run(stream, out, x, n):
        size = -(-n // items) if tail else n // items
        for _ in range(launches):
            stream.launch(kernel, size, None, out.data, x.data, np.int32(n),
                          np.float32(factor), np.int32(bump))
    return run


def three(**extra):
    """Slow and right, medium and right, fast and returning its input."""
    kernel = scaled()
    return Tunable(unique(), key=lambda out, x, n: {"n": n}, candidates={
        "slow": launcher(kernel, 8), "medium": launcher(kernel, 3),
        "fast": launcher(kernel, 1, factor=1.0)}, **extra)


def arrays(stream, dtype=np.float32, seed=0):
    x = cla.to_device(stream.queue, (np.random.default_rng(seed).random(N) * 100).astype(dtype))
    return cla.zeros(stream.queue, N, dtype), x


def record_of(tunable, stream, args):
    return clmodes.default_store().get_tune_json(*tunable.tune_key(stream, args))


def wrong(record):
    """The candidates dropped for their output (others may be dropped as slower)."""
    return {name: why for name, why in record["dropped"].items()
            if record["drop_kinds"].get(name) == "wrong"}


def test_a_fast_wrong_candidate_never_wins_and_tune_show_says_why(stream, collector, capfd):
    tunable = three()
    out, x = arrays(stream)
    with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, collector):
        tunable(stream, out, x, N)
    record = record_of(tunable, stream, (out, x, N))
    assert record["winner"] == "medium"
    reason = record["dropped"]["fast"]
    assert reason.startswith("differs from the reference 'slow': argument 0: max abs error ")
    assert record["check"]["reference"] == "slow" and record["check"]["candidates"] == 3
    stored = clmodes.default_store().measurement_records(*tunable.tune_key(stream, (out, x, N))[:3])
    (fast,) = [value for (name, _), value in stored.items() if name == "fast"]
    assert fast.to_json() == {"dropped": reason, "kind": "wrong", "reference": "slow"}  # persisted: not measured again
    tunable(stream, out, x, N)  # EXECUTE: the winner runs, right
    np.testing.assert_array_equal(out.get(), 2 * x.get())
    assert cli(["tune", "show", tunable.name]) == 0
    shown = capfd.readouterr().out
    assert "fast" in shown and "differs from the reference 'slow'" in shown
    assert "outputs checked against 'slow': 1 dropped as wrong; 3 runs" in shown


def test_reference_names_the_candidate_the_others_must_match(stream):
    """Naming the wrong one as the reference makes the right ones the outliers."""
    tunable = three(reference="fast")
    out, x = arrays(stream)
    tunable(stream, out, x, N)
    record = record_of(tunable, stream, (out, x, N))
    assert record["winner"] == "fast" and record["check"]["reference"] == "fast"
    assert set(wrong(record)) == {"slow", "medium"}
    assert record["dropped"]["slow"].startswith("differs from the reference 'fast'")


def test_integers_must_agree_bit_for_bit(stream):
    kernel = scaled("int")
    tunable = Tunable(unique(), key=lambda out, x, n: {"n": n}, candidates={
        "right": launcher(kernel, 2), "one off": launcher(kernel, 1, bump=3)})
    out, x = arrays(stream, np.int32)
    tunable(stream, out, x, N)
    record = record_of(tunable, stream, (out, x, N))
    assert record["winner"] == "right"
    expected = int(x.get()[3]) * 2
    assert record["dropped"]["one off"] == (
        "differs from the reference 'right': argument 0: 1 of 4099 elements differ, the "
        f"first at index 3 ({expected + 1} vs {expected})")


def test_floats_agree_within_rounding_and_not_beyond(stream):
    """2x computed as x * 0.2 * 10 rounds differently (a reordering's error); 2.002x is
    0.1% off: wrong by default, right within a tolerance of 1%."""
    kernel = scaled()
    fifth = launcher(kernel, 1, factor=0.2)

    def rounded(stream, out, x, n):  # two launches: out = x * 0.2, then out * 10
        fifth(stream, out, x, n)
        stream.launch(kernel, n, None, out.data, out.data, np.int32(n), np.float32(10),
                      np.int32(-1))

    candidates = {"reference": launcher(kernel, 4), "off": launcher(kernel, 1, factor=2.002)}
    candidates["rounded"] = rounded
    out, x = arrays(stream)
    rounded(stream, out, x, N)
    assert not np.array_equal(out.get(), 2 * x.get())  # it does round otherwise
    np.testing.assert_allclose(out.get(), 2 * x.get(), rtol=1e-6)
    strict = Tunable(unique(), key=lambda out, x, n: {"n": n}, candidates=candidates,
                     reference="reference")
    strict(stream, out, x, N)
    record = record_of(strict, stream, (out, x, N))
    assert list(wrong(record)) == ["off"] and "rounded" not in record["dropped"]
    assert "max abs error" in record["dropped"]["off"]
    lenient = Tunable(unique(), key=lambda out, x, n: {"n": n}, candidates=candidates,
                      reference="reference", tolerance=Tolerance(rtol=1e-2))
    lenient(stream, out, x, N)
    accepted = record_of(lenient, stream, (out, x, N))
    # Within 1% it is a candidate like the others (measured, free to win on speed alone).
    assert "off" not in accepted["dropped"] and "off" in accepted["measurements"]


def test_a_space_config_that_forgets_the_tail_is_dropped(stream):
    kernels = {items: scaled(items=items) for items in (1, 4, 16)}

    def launch(stream, config, out, x, n):
        items = config["ITEMS"]
        launcher(kernels[items], items=items, tail=items != 16)(stream, out, x, n)

    tunable = Tunable(unique(), key=lambda out, x, n: {"n": n},
                      space=TuningSpace({"ITEMS": [1, 4, 16]}), launch=launch)
    out, x = arrays(stream)
    tunable(stream, out, x, N)
    record = record_of(tunable, stream, (out, x, N))
    assert set(wrong(record)) == {"ITEMS=16"}
    assert record["dropped"]["ITEMS=16"].startswith("differs from the reference")
    assert "3 of 4099 values differ" in record["dropped"]["ITEMS=16"]  # the tail, unwritten
    np.testing.assert_array_equal(out.get(), 2 * x.get())


def test_check_false_opts_out(stream):
    tunable = three(check=False)
    out, x = arrays(stream)
    tunable(stream, out, x, N)
    record = record_of(tunable, stream, (out, x, N))
    assert record["winner"] == "fast" and "check" not in record and not wrong(record)


def test_replaced_inputs_and_accumulating_outputs_are_no_disagreement(stream, collector):
    """Under COMPILE_AND_AUTOTUNE the inputs are unwritten memory (here NaN): every
    candidate is checked on the same replaced values, from the same initial output
    (`out += 2x` would otherwise see the others' sums)."""
    kernels = {items: scaled(items=items, accumulate=True) for items in (1, 4, 16)}
    tunable = Tunable(unique(), key=lambda out, x, n: {"n": n}, candidates={
        f"items {items}": launcher(kernel, 1, items=items) for items, kernel in kernels.items()})
    x = cla.to_device(stream.queue, np.full(N, np.nan, np.float32))
    out = cla.to_device(stream.queue, np.full(N, np.nan, np.float32))
    with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, collector):
        tunable(stream, out, x, N)
    record = record_of(tunable, stream, (out, x, N))
    assert len(record["inputs_replaced"]) == 2
    assert not wrong(record), record["dropped"]
    assert record["check"]["candidates"] == 3


def test_bad_check_arguments_are_refused_with_the_name_at_fault():
    kernel = scaled()
    candidates = {"a": launcher(kernel), "b": launcher(kernel, 2)}
    with pytest.raises(ValueError, match=r"reference='c' is not one of its candidates"):
        Tunable("t", key=len, candidates=candidates, reference="c")
    with pytest.raises(ValueError, match=r"check= must be True, False or argument positions"):
        Tunable("t", key=len, candidates=candidates, check="yes")
    with pytest.raises(ValueError, match=r"rtol must be a finite number >= 0"):
        Tolerance(rtol=-1)


def test_a_wrong_verdict_is_stored_and_stands_until_the_kernels_change(stream):
    """The decision deleted (as a stale one is), the memory cache forgotten: the next
    tune reuses the stored verdict and runs no check at all, until the wrong
    candidate's kernel changes."""
    name, right = unique(), scaled()

    def make(fast_kernel):
        return Tunable(name, key=lambda out, x, n: {"n": n}, candidates={
            "slow": launcher(right, 8), "medium": launcher(right, 3),
            "fast": launcher(fast_kernel, 1, factor=1.0)})

    def retune(tunable):
        key = tunable.tune_key(stream, (out, x, N))
        clmodes.default_store().drop_stale_tune(*key, clmodes.default_store().tune_record(*key))
        default_runtime().tunes.forget()
        tunable(stream, out, x, N)
        return record_of(tunable, stream, (out, x, N))

    out, x = arrays(stream)
    wrong_kernel = scaled()
    make(wrong_kernel)(stream, out, x, N)
    record = retune(make(wrong_kernel))
    assert record["check"]["candidates"] == 0 and record["winner"] == "medium"
    assert record["dropped"]["fast"].startswith("differs from the reference 'slow'")
    record = retune(make(scaled()))  # another source text: another kernel
    assert record["check"]["candidates"] == 2 and "fast" in wrong(record)  # the reference, fast


def test_a_space_reference_outside_what_the_search_measures_is_run_for_the_check(stream):
    """`reference=` a config (as a dict) that the budget never lets the search measure:
    it is gathered in `warm`'s compile-only pass, run once for its output, not raced."""
    from clmodes.tune import Budget

    kernels = {items: scaled(items=items) for items in (1, 4, 16)}

    def launch(stream, config, out, x, n):
        items = config["ITEMS"]
        factor = 1.0 if items == 4 else 2.0  # ITEMS=4 is wrong
        launcher(kernels[items], factor=factor, items=items)(stream, out, x, n)

    tunable = Tunable(unique(), key=lambda out, x, n: {"n": n},
                      space=TuningSpace({"ITEMS": [1, 4, 16]}), launch=launch,
                      start=[{"ITEMS": 4}, {"ITEMS": 1}], budget=Budget(configs=2),
                      reference={"ITEMS": 16})
    out, x = arrays(stream)
    clmodes.warm(lambda: tunable(stream, out, x, N))
    record = record_of(tunable, stream, (out, x, N))
    assert record["check"] == {**record["check"], "reference": "ITEMS=16", "candidates": 3}
    assert record["winner"] == "ITEMS=1" and "ITEMS=16" not in record["measurements"]
    assert wrong(record)["ITEMS=4"].startswith("differs from the reference 'ITEMS=16'")
