"""`install`: a bundle imported into the local store.

Tune results apply to every device of the same model; program binaries (and their
kernel index) only to the exact device and driver they were built for. An entry already
in the store wins. In order, before anything is written: the bundle is read and verified
in full (signature, checksum, payload, every entry), the trust policy is applied
(`clmodes.bundle.trust`: binaries only from a trusted signer unless `allow_unsigned`),
and every binary that would be added is loaded for its device in a child process
(`clmodes.bundle.loading`): one that crashes, hangs or fails there is refused, with its
kernel index, and the rest import. The import is one transaction: a refused bundle
leaves the store exactly as it was.

Binaries built offline (`clmodes.offline`) are stored under the local device they fit
(`match == "offline"`), re-keyed to its exact fingerprint, so that a run finds them as
it finds any binary; they go through the same load check. One fitted by a newer driver
only (`grade` "newer") is imported only through that check: without it
(`load_check=False`) it is refused."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from typing import Any

from clmodes.bundle.files import read
from clmodes.bundle.loading import check_loads
from clmodes.bundle.matching import DeviceMatch, match_devices
from clmodes.bundle import trust as policy
from clmodes.bundle.trust import TrustedKey, assess, enforce
from clmodes.device import Device
from clmodes.store import FORMAT_VERSION, Store, StoreEntries
from clmodes.runtime import default_store


def install(
    path: str | os.PathLike[str], store: Store | None = None, local: list[Device] | None = None,
    *, trusted_keys: Iterable[TrustedKey] = (), allow_unsigned: bool = False,
    load_check: bool = True,
) -> dict[str, Any]:
    """Import a bundle into the local store: tune results for devices of the same model,
    binaries only for the exact device and driver; local entries win. One transaction.
    `local`: the devices to match against (default: this machine's). `trusted_keys`:
    public keys (files or `PublicKey`s) trusted on top of `$CLMODES_TRUSTED_KEYS` and the
    config dir's `trusted-keys/`. `allow_unsigned`: import binaries that no trusted key
    signed (a warning). `load_check=False` skips loading binaries in a child first."""
    bundle = read(path)
    trust = assess(bundle.signature, policy.trusted_keys(trusted_keys))
    warnings = enforce(bundle.path, trust, len(bundle.entries.binaries), allow_unsigned)
    store = store or default_store()
    matches = match_devices(bundle.manifest, local)
    wanted = applicable(bundle.entries, matches)
    refused = load_refusals(wanted, matches, store) if load_check else {}
    refused.update({key: why for key, why in unchecked_newer(wanted, matches).items()
                    if not load_check or key[0] not in loadable(matches)})
    added = store.add_entries(without(wanted, refused))
    return {"file": str(bundle.path), "store": store.location, "trust": trust.as_dict(),
            "warnings": warnings,
            "refused": [{"exact": e, "batch": b, "reason": r} for (e, b), r in sorted(refused.items())],
            "devices": [device_report(m, bundle.entries, added) for m in matches],
            "added": {kind: len(rows) for kind, rows in added.tables().items()}}


def applicable(entries: StoreEntries, matches: list[DeviceMatch]) -> StoreEntries:
    """The entries that apply here: tune results of this clmodes format for a matching
    model, binaries and kernels for an exactly matching driver."""
    models = {m.model for m in matches if m.match in ("exact", "model")}
    exacts = {m.exact for m in matches if m.match == "exact"}
    offline = offline_targets(matches)
    return StoreEntries(
        tune=[r for r in entries.tune if r.model in models and r.format == FORMAT_VERSION],
        binaries=[r for r in entries.binaries if r.exact in exacts]
        + [dataclasses.replace(r, exact=offline[r.exact]) for r in entries.binaries if r.exact in offline],
        kernels=[r for r in entries.kernels if r.exact in exacts]
        + [dataclasses.replace(r, exact=offline[r.exact]) for r in entries.kernels if r.exact in offline],
    )


def offline_targets(matches: list[DeviceMatch]) -> dict[str, str]:
    """Offline identity -> the exact fingerprint of the local device its binaries fit."""
    return {m.exact: m.local.fingerprint.exact for m in matches
            if m.match == "offline" and m.exact is not None and m.local is not None}


def unchecked_newer(wanted: StoreEntries, matches: list[DeviceMatch]) -> dict[tuple[str, str], str]:
    """Binaries fitted only by a newer driver, each refused unless the load check loads
    it on the device: the check is what grades them in (without it, or for a device
    that cannot be loaded on here, they are refused)."""
    newer = {m.local.fingerprint.exact for m in matches
             if m.match == "offline" and m.grade == "newer" and m.local is not None}
    return {(r.exact, r.batch): "built offline for an older driver; only the load check admits it"
            for r in wanted.binaries if r.exact in newer}


def loadable(matches: list[DeviceMatch]) -> dict[str, object]:
    """Exact fingerprint -> the OpenCL device the load check loads its binaries on: the
    real local devices matched exactly or by an offline build (a recorded device stands
    for a machine elsewhere: nothing here could ever load them)."""
    return {m.local.fingerprint.exact: m.local.cl_device for m in matches
            if m.match in ("exact", "offline")
            and m.exact is not None and m.local is not None and m.local.cl_device is not None}


def load_refusals(wanted: StoreEntries, matches: list[DeviceMatch], store: Store) -> dict[tuple[str, str], str]:
    """The binaries that would be added and fail the child-process load check. Only
    binaries for a real device here are loaded (a recorded device stands for a machine
    elsewhere: nothing here could ever load them), and only those the store lacks."""
    real = loadable(matches)
    new = [r for r in wanted.binaries if r.exact in real and store.get_binary(r.exact, r.batch) is None]
    return check_loads(new, [k for k in wanted.kernels if k.exact in real], real)


def without(entries: StoreEntries, refused: dict[tuple[str, str], str]) -> StoreEntries:
    return dataclasses.replace(
        entries,
        binaries=[r for r in entries.binaries if (r.exact, r.batch) not in refused],
        kernels=[r for r in entries.kernels if (r.exact, r.batch) not in refused],
    )


def device_report(match: DeviceMatch, entries: StoreEntries, added: StoreEntries) -> dict[str, Any]:
    """For one device of the bundle: how it matched, and its entries in the bundle,
    added, and whether they apply here at all."""
    if match.match == "offline" and match.local is not None:
        batches = {r.batch for r in entries.binaries if r.exact == match.exact}
        here = match.local.fingerprint.exact
        return {**match.as_dict(),
                "tune": {"in_bundle": 0, "added": 0, "used": False},
                "binaries": {"in_bundle": len(batches),
                             "added": sum(1 for r in added.binaries if r.exact == here and r.batch in batches),
                             "used": True}}
    return {
        **match.as_dict(),
        "tune": {"in_bundle": sum(1 for r in entries.tune if r.model == match.model),
                 "added": sum(1 for r in added.tune if r.model == match.model),
                 "used": match.match in ("exact", "model")},
        "binaries": {"in_bundle": sum(1 for r in entries.binaries if r.exact == match.exact),
                     "added": sum(1 for r in added.binaries if r.exact == match.exact),
                     "used": match.match == "exact"},
    }
