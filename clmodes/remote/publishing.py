"""Publishing: the store's entries for some devices, signed, onto the remote.

What `warm` and `fleet warm` call when a signing key is given (`--sign KEY`,
`$CLMODES_SIGNING_KEY`): every tune decision of the warmed device models and every
binary and kernel index entry of the warmed exact devices, except what this store read
from the remote (`Store.remote_tune_keys`: republishing another's entry under one's own
signature would vouch for a signer never checked) and graded answers (a guess for this
model, not a measurement: readers grade for themselves). Binaries go first, then the
kernel index naming them, then decisions, so a reader that finds an index entry finds
its binary. Idempotent: what the remote holds is not sent again (`present`), and a
write never replaces (`SET NX`): two publishers of one entry agree on the first.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from clmodes.bundle.signing import load_private_key
from clmodes.remote import layout
from clmodes.remote.entry import encode
from clmodes.remote.interface import Remote
from clmodes.remote.reading import content_of
from clmodes.store import FORMAT_VERSION, StoreEntries, TuneRow

log = logging.getLogger("clmodes")

SigningKey = str | os.PathLike[str] | Ed25519PrivateKey


@dataclasses.dataclass
class Published:
    """What one publish sent and found already there."""

    remote: str
    written: int = 0
    present: int = 0
    available: bool = True

    def as_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)


def private_key(key: SigningKey) -> Ed25519PrivateKey:
    return key if isinstance(key, Ed25519PrivateKey) else load_private_key(key)


def publishable(entries: StoreEntries, from_remote_tunes: set[tuple[str, str, str, str]],
                from_remote_batches: set[tuple[str, str]]) -> StoreEntries:
    """The entries this machine vouches for: measured or built, not read from the remote,
    not graded answers."""
    def measured(value: str) -> bool:
        try:
            record = json.loads(value)
        except ValueError:
            return False
        return isinstance(record, dict) and record.get("grade", "exact") == "exact"

    binaries = [r for r in entries.binaries if (r.exact, r.batch) not in from_remote_batches]
    return StoreEntries(
        tune=[r for r in entries.tune if r.format == FORMAT_VERSION and measured(r.value)
              and (r.model, r.tunable, r.tune_key, r.candidates) not in from_remote_tunes],
        binaries=binaries,
        kernels=[r for r in entries.kernels if (r.exact, r.batch) not in from_remote_batches],
    )


def publish(remote: Remote, entries: StoreEntries, key: SigningKey) -> Published:
    """Sign and write `entries` (already `publishable`) that the remote lacks."""
    private = private_key(key)
    report = Published(remote.name)
    binaries = {layout.binary_key(r.exact, r.batch): r for r in entries.binaries}
    kernels = {layout.kernel_key(r.exact, r.kernel_key): r for r in entries.kernels}
    listed: dict[tuple[str, str], list[str]] = {}
    for kernel in entries.kernels:
        listed.setdefault((kernel.exact, kernel.batch), []).append(kernel.kernel_key)
    there = remote.present(list(binaries))
    report.present += len(there)
    report.written += remote.put({  # each lists its kernels: a reader takes them all
        name: encode(name, {**content_of(row), "kernel_keys": sorted(listed.get(
            (row.exact, row.batch), []))}, row.binary, private)
        for name, row in binaries.items() if name not in there})
    there = remote.present(list(kernels))
    report.present += len(there)
    report.written += remote.put({name: encode(name, content_of(row), b"", private)
                                  for name, row in kernels.items() if name not in there})
    by_group: dict[str, list[TuneRow]] = {}
    for row in entries.tune:
        group = layout.tune_key(row.format, row.tunable, row.tune_key, row.candidates)
        by_group.setdefault(group, []).append(row)
    for group, rows in by_group.items():
        there_fields = remote.group_fields(group)
        report.present += sum(1 for r in rows if r.model in there_fields)
        report.written += remote.put_group(group, {
            r.model: encode(layout.field_key(group, r.model), content_of(r), b"", private)
            for r in rows if r.model not in there_fields})
    report.available = remote.available
    if report.available:
        log.info("clmodes remote %s: published %d entries (%d already there)", remote.name,
                 report.written, report.present)
    else:
        log.info("clmodes remote %s: unavailable; published %d entries before it failed",
                 remote.name, report.written)
    return report

