"""`clmodes cache info|clear`: the store, as the command shows and empties it."""

from __future__ import annotations

import argparse

from clmodes import remote
from clmodes.runtime import default_store
from clmodes.cli.remote import configure_remote
from clmodes.cli.devices import select_device
from clmodes.cli.errors import refuse_read_only
from clmodes.cli.render import cache_clear_text, cache_info_text, emit


def run_cache_info(args: argparse.Namespace) -> int:
    """Where the store is, what it holds per device model and driver, and the remote
    behind it (where, reachable, what came from it), if one is configured."""
    configure_remote(args)
    store = default_store()
    emit(args.json, {**store.info(), "remote": remote.status(store)}, cache_info_text)
    return 0


def run_cache_clear(args: argparse.Namespace) -> int:
    """Delete every entry, or (with `--device`) only that device model's."""
    device = select_device(args)
    store = default_store()
    refuse_read_only(store, "nothing cleared")
    model = device.fingerprint.model if device else None
    deleted = store.clear(model)
    report = {"store": store.location, "device": model, "deleted": deleted}
    emit(args.json, report, cache_clear_text)
    return 0
