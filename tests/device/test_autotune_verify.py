"""Verify once on the target (`clmodes.tune.answers.verify`), on real OpenCL, deterministically: a
graded answer's winner is raced once here against its runner-up, one of them a kernel
slowed by a 20000-step loop, and kept or re-tuned; EXECUTE times nothing unless
CLMODES_VERIFY=first-use."""

from __future__ import annotations

import numpy as np
import pytest

import clmodes
from clmodes import ProcessMode, ProcessModeOverride, Tunable
from clmodes.runtime import default_runtime
from clmodes.store import FORMAT_VERSION
from support.tunables import buffers, keys, slow_and_fast_candidates, unique

N = 4096


def _family(model: str) -> str:
    fields = model.split(" | ")
    fields[2] = "999CU"  # the same device name with other compute units
    return " | ".join(fields)


@pytest.fixture
def graded(stream):
    """A tunable whose only decision is stored under another model of this one's family,
    made from a real tune here so that its kernel identities are real; `answer(winner)`
    files it with that winner first and the other candidate as its runner-up."""
    tunable = Tunable(unique(), key=lambda out, x, n: {"n": n},
                      candidates=slow_and_fast_candidates())
    out, x = buffers(stream, N)
    tunable(stream, out, x, N)
    key = tunable.tune_key(stream, (out, x, N))
    store = clmodes.default_store()
    measured = store.get_tune_json(*key)
    assert measured["winner"] != "slow"
    fast = measured["winner"]

    def answer(winner: str) -> tuple:
        other = "slow" if winner == fast else fast
        record = {**measured, "winner": winner,
                  "measurements": {winner: {"median_s": 1e-6}, other: {"median_s": 2e-6}}}
        store.forget_tunes([(FORMAT_VERSION, *key)])
        store.put_tune_json(_family(key.model), *key[1:], record)
        default_runtime().tunes.forget()
        return tunable, key, out, x

    answer.fast = fast
    return answer


def _call(tunable, stream, out, x, mode, collector):
    with ProcessModeOverride(mode, collector):
        tunable(stream, out, x, N)


def test_a_right_answer_is_verified_once_and_kept(stream, collector, graded):
    tunable, key, out, x = graded(graded.fast)
    store = clmodes.default_store()
    _call(tunable, stream, out, x, ProcessMode.EXECUTE, collector)  # answered, not timed
    np.testing.assert_allclose(out.get(), 2 * x.get())
    assert store.get_tune_json(*key)["grade"] == "family" and "verified" not in store.get_tune_json(*key)
    _call(tunable, stream, out, x, ProcessMode.COMPILE_AND_AUTOTUNE, collector)  # a warm
    verified = store.get_tune_json(*key)["verified"]
    assert verified["outcome"] == "kept" and verified["was"] == "family"
    assert verified["winner"] == graded.fast and verified["runner_up"] == "slow"
    assert verified["winner_s"] < verified["runner_up_s"]
    assert store.get_tune_json(*key)["grade"] == "family" and keys(collector) == 0
    # once: a later warm (a fresh cache) leaves it as it is
    default_runtime().tunes.forget()
    _call(tunable, stream, out, x, ProcessMode.COMPILE_AND_AUTOTUNE, collector)
    assert store.get_tune_json(*key)["verified"] == verified


def test_a_slow_answer_is_re_tuned_here(stream, collector, graded):
    tunable, key, out, x = graded("slow")
    store = clmodes.default_store()
    _call(tunable, stream, out, x, ProcessMode.EXECUTE, collector)
    assert tunable.winner(stream, out, x, N) == "slow" and keys(collector) == 0
    np.testing.assert_allclose(out.get(), 2 * x.get())
    _call(tunable, stream, out, x, ProcessMode.COMPILE_AND_AUTOTUNE, collector)
    record = store.get_tune_json(*key)
    assert record["verified"]["outcome"] == "re-tuned" and record["verified"]["was"] == "family"
    assert record["verified"]["runner_up_s"] * 1.1 < record["verified"]["winner_s"]
    assert record.get("grade", "exact") == "exact" and record["winner"] == graded.fast
    assert record["measured_here"] >= 1 and keys(collector) == 1
    assert tunable.winner(stream, out, x, N) == graded.fast  # memory follows


def test_execute_times_only_under_first_use(stream, collector, graded, monkeypatch):
    tunable, key, out, x = graded("slow")
    monkeypatch.setenv("CLMODES_VERIFY", "first-use")
    _call(tunable, stream, out, x, ProcessMode.EXECUTE, collector)
    record = clmodes.default_store().get_tune_json(*key)
    assert record["verified"]["outcome"] == "re-tuned" and record["winner"] == graded.fast
    np.testing.assert_allclose(out.get(), 2 * x.get())


def test_a_bad_verify_policy_is_one_line(stream, collector, graded, monkeypatch):
    tunable, key, out, x = graded(graded.fast)
    monkeypatch.setenv("CLMODES_VERIFY", "always")
    with pytest.raises(ValueError, match=r"\$CLMODES_VERIFY must be 'first-use' or 'off', not 'always'"):
        _call(tunable, stream, out, x, ProcessMode.EXECUTE, collector)
