"""Answering a key from another device model's decision (`tune.answers.nearest` grades them).

Asked when neither memory nor the store has a decision for this model: the nearest
answer that still holds for the code as it is now (its winner a candidate, its kernels
those the candidates launch) is stored under this model, marked with its grade and the
models it came from, so `tune list` shows it and later processes take it from the store
directly (and the next warm verifies it, `tune.answers.verify`). Nothing is measured or counted:
an answer is not a tune. A measured decision for this model is never replaced by one.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable

from clmodes.records.tune import TuneRecord
from clmodes.runtime import Runtime
from clmodes.tune.decisions.cache import TuneKey
from clmodes.tune.answers.nearest import nearest
from clmodes.tune.answers.verify import Verdict

log = logging.getLogger("clmodes")


def graded_answer(runtime: Runtime, key: TuneKey, current: Callable[[TuneRecord], bool],
                  describe: str) -> TuneRecord | None:
    """The nearest current answer for `key`, stored graded (the record now stored); None
    if the store holds no decision for this key on another model that still holds."""
    store = runtime.store
    stored = store.tune_records_on_models(key.tunable, key.key, key.candidates)
    stored.pop(key.model, None)
    stored = {m: r for m, r in stored.items() if r.grade == "exact"}
    for answer in nearest(key.model, stored):
        if not current(answer.record):
            continue
        record = store.put_tune_record(*key, answer.as_record())
        log.info("%s: no decision for %s; answered %r, graded %s from %s", describe, key.model,
                 record.winner, answer.grade.value, ", ".join(answer.sources))
        return record
    return None


def settle(runtime: Runtime, key: TuneKey, record: TuneRecord, verdict: Verdict,
           retune: Callable[[], TuneRecord], describe: str) -> str:
    """Rewrite an answer timed here (`tune.answers.verify`): kept and marked verified, or tuned
    here in full (`retune`), the new record saying what it replaced; the winner."""
    store = runtime.store
    if verdict.kept:
        store.replace_tune_record(*key, dataclasses.replace(record, verified=verdict.as_json()))
        log.info("%s: %r (%s) verified here: %.3g s, runner-up %r %s", describe,
                 verdict.winner, verdict.was, verdict.winner_s, verdict.runner_up,
                 "-" if verdict.runner_up_s is None else f"{verdict.runner_up_s:.3g} s")
        return verdict.winner
    entry = dataclasses.replace(retune(), verified=verdict.as_json())
    store.replace_tune_record(*key, entry)
    runtime.tunes.replace(key, entry.winner)
    log.info("%s: %r (%s) re-tuned here: runner-up %r was faster (%s s vs %s s); now %r",
             describe, verdict.winner, verdict.was, verdict.runner_up, verdict.runner_up_s,
             verdict.winner_s, entry.winner)
    return entry.winner
