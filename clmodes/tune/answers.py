"""Answering a key from another device model's decision (`tune.nearest` grades them).

Asked when neither memory nor the store has a decision for this model: the nearest
answer that still holds for the code as it is now (its winner a candidate, its kernels
those the candidates launch) is stored under this model, marked with its grade and the
models it came from, so `tune list` shows it and later processes take it from the store
directly (and the next warm verifies it, `tune.verify`). Nothing is measured or counted:
an answer is not a tune. A measured decision for this model is never replaced by one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from clmodes.runtime import default_store
from clmodes.tune.cache import TuneKey
from clmodes.tune.nearest import nearest

log = logging.getLogger("clmodes")


def graded_winner(key: TuneKey, current: Callable[[dict[str, Any]], bool],
                  describe: str) -> str | None:
    """The winner of the nearest current answer for `key`, stored graded; None if the
    store holds no decision for this key on another model that still holds."""
    store = default_store()
    stored = store.tunes_on_models(key.tunable, key.key, key.candidates)
    stored.pop(key.model, None)
    stored = {m: r for m, r in stored.items() if r.get("grade", "exact") == "exact"}
    for answer in nearest(key.model, stored):
        if not current(answer.record):
            continue
        record = store.put_tune(*key, answer.as_record())
        log.info("%s: no decision for %s; answered %r, graded %s from %s", describe, key.model,
                 record["winner"], answer.grade.value, ", ".join(answer.sources))
        return str(record["winner"])
    return None
