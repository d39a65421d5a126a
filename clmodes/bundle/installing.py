"""`install`: a bundle imported into the local store.

Tune results apply to every device of the same model; program binaries (and their
kernel index) only to the exact device and driver they were built for. An entry already
in the store wins. The bundle is verified in full first, and the import is one
transaction: a bad bundle leaves the store exactly as it was."""

from __future__ import annotations

import os
from typing import Any

from clmodes.bundle.files import read
from clmodes.bundle.matching import DeviceMatch, match_devices
from clmodes.device import Device
from clmodes.store import FORMAT_VERSION, Store, StoreEntries
from clmodes.runtime import default_store


def install(
    path: str | os.PathLike[str], store: Store | None = None, local: list[Device] | None = None
) -> dict[str, Any]:
    """Import a bundle into the local store: tune results for devices of the same model,
    binaries only for the exact device and driver; local entries win. One transaction.
    `local`: the devices to match against (default: this machine's)."""
    bundle = read(path)
    store = store or default_store()
    matches = match_devices(bundle.manifest, local)
    added = store.add_entries(applicable(bundle.entries, matches))
    return {"file": str(bundle.path), "store": store.location,
            "devices": [device_report(m, bundle.entries, added) for m in matches],
            "added": {kind: len(rows) for kind, rows in added.tables().items()}}


def applicable(entries: StoreEntries, matches: list[DeviceMatch]) -> StoreEntries:
    """The entries that apply here: tune results of this clmodes format for a matching
    model, binaries and kernels for an exactly matching driver."""
    models = {m.model for m in matches if m.match != "none"}
    exacts = {m.exact for m in matches if m.match == "exact"}
    return StoreEntries(
        tune=[r for r in entries.tune if r.model in models and r.format == FORMAT_VERSION],
        binaries=[r for r in entries.binaries if r.exact in exacts],
        kernels=[r for r in entries.kernels if r.exact in exacts],
    )


def device_report(match: DeviceMatch, entries: StoreEntries, added: StoreEntries) -> dict[str, Any]:
    """For one device of the bundle: how it matched, and its entries in the bundle,
    added, and whether they apply here at all."""
    return {
        **match.as_dict(),
        "tune": {"in_bundle": sum(1 for r in entries.tune if r.model == match.model),
                 "added": sum(1 for r in added.tune if r.model == match.model),
                 "used": match.match != "none"},
        "binaries": {"in_bundle": sum(1 for r in entries.binaries if r.exact == match.exact),
                     "added": sum(1 for r in added.binaries if r.exact == match.exact),
                     "used": match.match == "exact"},
    }
