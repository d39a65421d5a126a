"""The bundle's manifest: what a bundle holds, readable without opening the payload
(`clmodes bundle inspect`, and matching its devices against this machine)."""

from __future__ import annotations

import datetime
from typing import Any

from clmodes._version import __version__
from clmodes.bundle.container import SCHEMA
from clmodes.device import fingerprint_fields, model_of
from clmodes.store import FORMAT_VERSION, StoreEntries


def entry_counts(entries: StoreEntries) -> dict[str, int]:
    """Rows per table, and distinct binaries (`blobs`)."""
    counts = {kind: len(rows) for kind, rows in entries.tables().items()}
    return {**counts, "blobs": len({row.sha256 for row in entries.binaries})}


def build_manifest(entries: StoreEntries, payload: bytes) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "format": FORMAT_VERSION,
        "clmodes": __version__,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "devices": describe_devices(entries),
        "counts": entry_counts(entries),
        "payload_bytes": len(payload),
    }


def describe_devices(entries: StoreEntries) -> list[dict[str, Any]]:
    """Per device model (sorted): its vendor, tune results, and per driver (exact
    fingerprint) its binaries and kernels."""
    models: dict[str, dict[str, Any]] = {}

    def entry(model: str) -> dict[str, Any]:
        return models.setdefault(model, {
            "model": model, "vendor": fingerprint_fields(model).get("vendor", "unknown"),
            "tune": 0, "drivers": {},
        })

    def driver(exact: str) -> dict[str, int]:
        return entry(model_of(exact))["drivers"].setdefault(exact, {"binaries": 0, "kernels": 0})

    for tune in entries.tune:
        entry(tune.model)["tune"] += 1
    for binary in entries.binaries:
        driver(binary.exact)["binaries"] += 1
    for kernel in entries.kernels:
        driver(kernel.exact)["kernels"] += 1
    return [
        {**m, "drivers": [{"exact": e, **c} for e, c in sorted(m["drivers"].items())]}
        for _, m in sorted(models.items())
    ]
