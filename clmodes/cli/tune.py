"""`clmodes tune list|show|plot|forget`: what the store's tune entries decided, and why.

The verbs read the store through `clmodes.tune.reporting.report` only (typed entries, never the
records' JSON), build a payload, and hand it to `tune_render` (text), `plot` (an image)
or `--json`. `--device` narrows every verb to that device's model; without it, entries
of every model the store holds are shown (imported ones for devices not here included).
"""

from __future__ import annotations

import argparse
import platform
from pathlib import Path

from clmodes.cli.devices import select_device
from clmodes.cli.errors import UsageError
from clmodes.cli.render import emit
from clmodes.cli.tune_render import forget_text, list_text, plot_text, show_text
from clmodes.runtime import default_runtime, default_store
from clmodes.tune.reporting import report, selecting


def _model(args: argparse.Namespace) -> str | None:
    device = select_device(args)
    return device.fingerprint.model if device else None


def run_list(args: argparse.Namespace) -> int:
    """One row per tuned key (of one device model, of one tunable)."""
    store = default_store()
    entries = report.tuned_keys(store, _model(args), args.tunable)
    emit(args.json, {"store": store.location, "host": platform.node(), "unit": report.UNIT,
                     "tunable": args.tunable, "entries": [e.summary() for e in entries]},
         list_text)
    return 0


def _selected(args: argparse.Namespace) -> list[report.TunedKey]:
    store = default_store()
    return report.entries_of(store, selecting.select(store, args.tunable, args.key, _model(args)))


def run_show(args: argparse.Namespace) -> int:
    """Every candidate of the selected keys, fastest first, and the dropped ones."""
    entries = _selected(args)
    emit(args.json, {"store": default_store().location, "unit": report.UNIT,
                     "keys": [e.details() for e in entries]}, show_text)
    return 0


def run_plot(args: argparse.Namespace) -> int:
    """Draw one entry's candidates to a PNG or SVG file."""
    from clmodes.cli.plot import write_plot  # matplotlib is imported only by this verb

    path = Path(args.out)
    entries = _selected(args)
    if len(entries) != 1:
        where = sorted({f"{e.key} on {e.model}" for e in entries})
        raise UsageError(
            f"tune plot draws one entry; tunable {args.tunable!r} selects {len(entries)} "
            f"({'; '.join(where[:3])}{'; ...' if len(where) > 3 else ''}): give KEY or --device")
    details = entries[0].details()
    write_plot(details, path)
    emit(args.json, {"file": str(path), "tunable": details["tunable"], "key": details["key"],
                     "model": details["model"], "winner": details["winner"]}, plot_text)
    return 0


def run_forget(args: argparse.Namespace) -> int:
    """Delete the selected entries so the next call of those keys tunes them again."""
    store = default_store()
    rows = selecting.select(store, args.tunable, args.key, _model(args))
    deleted = selecting.forget(store, rows)
    default_runtime().tunes.forget()  # this process's memory, were a tune to follow
    emit(args.json, {"store": store.location, "deleted": deleted,
                     "entries": [{"model": r.model, "tunable": r.tunable, "key": r.tune_key}
                                 for r in rows]}, forget_text)
    return 0
