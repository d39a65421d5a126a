"""`clmodes cache info|clear|prune`: the store, as the command shows, empties and caps it."""

from __future__ import annotations

import argparse

from clmodes import remote, settings
from clmodes.runtime import default_store
from clmodes.cli.remote import configure_remote
from clmodes.cli.devices import select_device
from clmodes.cli.errors import UsageError, refuse_read_only
from clmodes.cli.render import cache_clear_text, cache_info_text, cache_prune_text, emit
from clmodes.sizes import SizeError, parse_size


def run_cache_info(args: argparse.Namespace) -> int:
    """Where the store is, what it holds per device model and driver, its size and the
    cap `$CLMODES_CACHE_MAX_SIZE` sets (a value that is not a size is shown as such), and
    the remote behind it (where, reachable, what came from it), if one is configured."""
    configure_remote(args)
    store = default_store()
    info = {**store.info(), "remote": remote.status(store)}
    info["max_size"] = None
    try:
        info["max_size"] = settings.CACHE_MAX_SIZE.get()
    except settings.SettingError as error:
        info["max_size_error"] = str(error)
    emit(args.json, info, cache_info_text)
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


def run_cache_prune(args: argparse.Namespace) -> int:
    """Evict least recently used entries until the store is under `--max-size`."""
    try:
        max_size = parse_size(args.max_size)
    except SizeError as error:
        raise UsageError(f"--max-size {error}") from None
    store = default_store()
    refuse_read_only(store, "nothing pruned")
    emit(args.json, store.prune(max_size).as_dict(), cache_prune_text)
    return 0
