"""Nearest-device answers on real OpenCL (`clmodes.tune.answers.nearest`, `tune.answers.answering`): a
decision stored only under a synthetic model of this device's vendor answers the real
device, graded, with nothing tuned and the result right."""

from __future__ import annotations

import json

import numpy as np
import pytest

import clmodes
from clmodes import ProcessMode, ProcessModeOverride
from clmodes.runtime import default_runtime
from clmodes.store import FORMAT_VERSION
from clmodes.tune.reporting import report
from support import fresh
from support.tunables import SOURCE, buffers, keys, make_tunable, unique


def _synthetic(model: str, kind: str) -> str:
    """This model with other compute units (family), another name (vendor), or another
    vendor (across)."""
    fields = model.split(" | ")
    if kind == "family":
        fields[2] = "999CU"
    elif kind == "vendor":
        fields[1] = "Synthetic Device 9000"
    else:
        fields[0] = "Elsewhere"
    return " | ".join(fields)


def _move(store, key, to_model: str, winner: str) -> None:
    """Re-file the decision under another model, with another winner (so that taking it
    shows), and forget this model's."""
    record = store.get_tune_json(*key)
    measured = record["measurements"]
    record["winner"] = winner  # as if measured fastest there
    fastest = min(m["median_s"] for m in measured.values())
    record["measurements"] = {winner: {**measured[winner], "median_s": fastest / 2},
                              **{n: m for n, m in measured.items() if n != winner}}
    store.put_tune_json(to_model, *key[1:], record)
    store.forget_tunes([(FORMAT_VERSION, *key)])
    default_runtime().tunes.forget()


@pytest.mark.parametrize("kind", ["family", "vendor", "across"])
def test_a_synthetic_models_decision_answers_graded(stream, collector, kind):
    tunable = make_tunable(unique(), fresh(SOURCE))
    out, x = buffers(stream)
    tunable(stream, out, x, 4096)
    key = tunable.tune_key(stream, (out, x, 4096))
    store = clmodes.default_store()
    measured = list(store.get_tune_json(*key)["measurements"])
    if len(measured) < 2:
        pytest.skip("fewer than two candidates measured")
    loser = measured[-1]  # the slowest: never this device's own winner
    other = _synthetic(key.model, kind)
    _move(store, key, other, loser)
    assert store.get_tune_json(*key) is None

    out.fill(0)
    with ProcessModeOverride(ProcessMode.EXECUTE, collector):
        tunable(stream, out, x, 4096)
    assert keys(collector) == 0
    np.testing.assert_allclose(out.get(), 2 * x.get())
    assert tunable.winner(stream, out, x, 4096) == loser
    answered = store.get_tune_json(*key)
    assert answered["grade"] == kind and answered["graded_from"] == [other]
    assert answered["measured_here"] == 0
    (entry,) = [e for e in report.tuned_keys(store, key.model, key.tunable)]
    assert entry.summary()["grade"] == kind
    assert json.dumps(entry.summary())  # what `tune list --json` prints


def test_binaries_stay_exact_and_a_measured_decision_wins(stream, collector):
    """A decision measured on this model is used, never a graded one over it."""
    tunable = make_tunable(unique(), fresh(SOURCE))
    out, x = buffers(stream)
    tunable(stream, out, x, 4096)
    key = tunable.tune_key(stream, (out, x, 4096))
    store = clmodes.default_store()
    mine = store.get_tune_json(*key)["winner"]
    other = next(n for n in tunable.candidates if n != mine)
    record = {**store.get_tune_json(*key), "winner": other}
    store.put_tune_json(_synthetic(key.model, "family"), *key[1:], record)
    default_runtime().tunes.forget()
    with ProcessModeOverride(ProcessMode.EXECUTE, collector):
        tunable(stream, out, x, 4096)
    assert tunable.winner(stream, out, x, 4096) == mine and keys(collector) == 0
    assert store.get_tune_json(*key).get("grade", "exact") == "exact"
