"""Which tune entries `clmodes tune show|plot|forget TUNABLE [KEY]` names: a key as `tune
list` prints it, the same JSON written another way, or a part of it only one key holds;
and forgetting them. A one-line `NoTuneEntryError` names what is there instead."""

from __future__ import annotations

import json

from clmodes.store import Store
from clmodes.store.schema import TuneRow
from clmodes.tune.decisions.cache import canonical_key
from clmodes.tune.reporting.report import NoTuneEntryError, selected_rows


def select(store: Store, tunable: str, key: str | None = None,
           model: str | None = None) -> list[TuneRow]:
    """The entries `TUNABLE [KEY]` names on the command line, or `NoTuneEntryError`
    naming the tunable (and the tunables the store has) or the key (and the tunable's
    keys). KEY is the key as `tune list` prints it, the same JSON written another way
    (`{"n": 64}`), or a part of it that only one key contains."""
    rows = selected_rows(store, model, tunable)
    if not rows:
        known = sorted({row.tunable for row in selected_rows(store, model, None)})
        raise NoTuneEntryError(
            f"no tune entries for tunable {tunable!r}"
            + (f" on {model}" if model else "")
            + (f"; tuned here: {', '.join(known)}" if known else "; the store has none"))
    if key is None:
        return rows
    wanted = {key, _canonical(key)}
    exact = [row for row in rows if row.tune_key in wanted]
    if exact:
        return exact
    partial = [row for row in rows if key in row.tune_key]
    distinct = {row.tune_key for row in partial}
    if len(distinct) == 1:
        return partial
    keys = sorted({row.tune_key for row in rows})
    if distinct:
        raise NoTuneEntryError(f"key {key!r} of tunable {tunable!r} is ambiguous: it is part "
                               f"of {len(distinct)} keys ({', '.join(sorted(distinct)[:4])}"
                               f"{', ...' if len(distinct) > 4 else ''})")
    raise NoTuneEntryError(f"tunable {tunable!r} has no key {key!r}; its keys: "
                           + ", ".join(keys[:6]) + (", ..." if len(keys) > 6 else ""))


def forget(store: Store, rows: list[TuneRow]) -> int:
    """Delete these entries (readable or not) so they are tuned again; how many went."""
    return store.forget_tunes([row.key for row in rows])


def _canonical(key: str) -> str:
    try:
        return canonical_key(json.loads(key))
    except (ValueError, TypeError):
        return key
