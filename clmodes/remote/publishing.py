"""Publishing: the store's entries for some devices, signed, onto the remote.

What `warm` and `fleet warm` call when a signing key is given (`--sign KEY`,
`$CLMODES_SIGNING_KEY`): every tune decision of the warmed device models and every
binary and kernel index entry of the warmed exact devices, except what this store read
from the remote (`Store.remote_tune_keys`: republishing another's entry under one's own
signature would vouch for a signer never checked) and graded answers (a guess for this
model, not a measurement: readers grade for themselves). Binaries go first, then the
kernel index naming them, then decisions, so a reader that finds an index entry finds
its binary. Idempotent: what the remote holds and verifies is not sent again, and a
write never replaces a valid entry (`SET NX`): two publishers of one entry agree on the
first. The trap of first-write-wins alone: junk written first at an entry's key (a
truncated write, a stray client, an attacker) would block that entry for good, every
reader warning and rebuilding. So what is there is read back (bounded, one at a time)
and checked: a value that does not verify is replaced, by a compare-and-set on the bad
value (`Remote.replace`), with one warning line for the publish.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import os
from collections.abc import Callable
from typing import TypeAlias

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from clmodes.bundle.signing import load_private_key
from clmodes.remote import layout
from clmodes.remote.config import MAX_ENTRY
from clmodes.remote.entry import MAGIC, MalformedEntry, decode, encode
from clmodes.remote.interface import Refused, Remote, Value
from clmodes.remote.reading import content_of
from clmodes.store import FORMAT_VERSION, BinaryRow, StoreEntries, TuneRow

log = logging.getLogger("clmodes")

SigningKey: TypeAlias = str | os.PathLike[str] | Ed25519PrivateKey  # an alias even where cryptography is missing (Any)
GROUP_FIELDS = 4096  # the most fields of a tune key's group a publisher checks


@dataclasses.dataclass
class Published:
    """What one publish sent and found already there."""

    remote: str
    written: int = 0
    present: int = 0
    replaced: int = 0  # entries that did not verify, replaced (counted in `written` too)
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


Ship: TypeAlias = Callable[[BinaryRow], BinaryRow | None]  # a row as sent; None: left out
Make: TypeAlias = Callable[[], bytes | None]  # an entry's bytes, made when sent; None: left out


def publish(remote: Remote, entries: StoreEntries, key: SigningKey,
            max_entry: int = MAX_ENTRY, ship: Ship | None = None) -> Published:
    """Sign and write `entries` (already `publishable`) that the remote lacks, and
    replace those it holds that do not verify. `ship`: each binary row as it is sent
    (`bundle.compiling.shipped_row` builds a source record), called only for a binary the
    remote lacks and only while it is up: on PoCL that build is seconds of code
    generation, and a remote already down (its budget spent by this process's reads) or
    holding the entry has no use for it. A binary it leaves out takes its kernel index
    entries with it."""
    private = private_key(key)
    report = Published(remote.name)
    if not remote.available:  # spent or failed already: nothing is made, nothing waits
        report.available = False
        log.info("clmodes remote %s: unavailable; nothing published", remote.name)
        return report
    bad: list[str] = []
    left_out: set[tuple[str, str]] = set()
    listed: dict[tuple[str, str], list[str]] = {}
    for kernel in entries.kernels:
        listed.setdefault((kernel.exact, kernel.batch), []).append(kernel.kernel_key)

    def binary_entry(name: str, row: BinaryRow) -> bytes | None:
        sent = row if ship is None else ship(row)
        if sent is None:
            left_out.add((row.exact, row.batch))
            return None
        # Each lists its kernels: a reader takes them all.
        return encode(name, {**content_of(sent), "kernel_keys": sorted(
            listed.get((row.exact, row.batch), []))}, sent.binary, private)

    _strings(remote, {name: functools.partial(binary_entry, name, row) for name, row in (
        (layout.binary_key(r.exact, r.batch), r) for r in entries.binaries)}, max_entry, report, bad)
    kernels = {layout.kernel_key(r.exact, r.kernel_key): r for r in entries.kernels
               if (r.exact, r.batch) not in left_out}
    _strings(remote, {name: functools.partial(encode, name, content_of(row), b"", private)
                      for name, row in kernels.items()},
             min(layout.MAX_KERNEL_ENTRY, max_entry), report, bad)
    by_group: dict[str, list[TuneRow]] = {}
    for row in entries.tune:
        group = layout.tune_key(row.format, row.tunable, row.tune_key, row.candidates)
        by_group.setdefault(group, []).append(row)
    for group, rows in by_group.items():
        _group(remote, group, {r.model: functools.partial(
            encode, layout.field_key(group, r.model), content_of(r), b"", private)
            for r in rows}, min(layout.MAX_TUNE_ENTRY, max_entry), report, bad)
    report.replaced = len(bad)
    report.available = remote.available
    if bad:
        log.warning("clmodes remote %s: replaced %d entries that did not verify: %s%s",
                    remote.name, len(bad), "; ".join(bad[:3]), " ..." if len(bad) > 3 else "")
    if report.available:
        log.info("clmodes remote %s: published %d entries (%d already there)", remote.name,
                 report.written, report.present)
    else:
        log.info("clmodes remote %s: unavailable; published %d entries before it failed",
                 remote.name, report.written)
    return report


def _made(remote: Remote, made: dict[str, Make], names: list[str]) -> dict[str, bytes]:
    """The entries of `names`, made one by one while the remote is up: once it fails (its
    budget spent), making the rest (signing, building records) would be work for
    nothing, and time the publish's budget never counted."""
    values: dict[str, bytes] = {}
    for name in names:
        if not remote.available:
            break
        value = made[name]()
        if value is not None:
            values[name] = value
    return values


def _strings(remote: Remote, made: dict[str, Make], limit: int,
             report: Published, bad: list[str]) -> None:
    """Write the entries the remote lacks; check, one at a time (each may be a binary
    up to the limit), those it holds, and replace the ones that do not verify."""
    if not made or not remote.available:
        return
    there = remote.present(list(made))
    missing = _made(remote, made, [name for name in made if name not in there])
    if missing:
        report.written += remote.put(missing)
    for name in there:
        if not remote.available:
            return
        found = remote.get([name], limit, MAGIC).get(name)
        if found is None:  # gone meanwhile (evicted): first write wins again
            report.written += remote.put(_made(remote, made, [name]))
        else:
            _check(remote, name, name, None, found, made[name], report, bad)


def _group(remote: Remote, group: str, made: dict[str, Make], limit: int,
           report: Published, bad: list[str]) -> None:
    """`_strings` for one tune key's decisions (a hash whose fields are device models)."""
    if not remote.available:
        return
    there = remote.get_group(group, limit, GROUP_FIELDS)
    missing = _made(remote, made, [model for model in made if model not in there])
    if missing:
        report.written += remote.put_group(group, missing)
    for model in [m for m in made if m in there]:
        _check(remote, group, layout.field_key(group, model), model, there[model],
               made[model], report, bad)


def _check(remote: Remote, key: str, signed_as: str, field: str | None, found: Value,
           make: Make, report: Published, bad: list[str]) -> None:
    """Count an entry that verifies as present; replace one that does not, by a
    compare-and-set on what was found (a good entry written meanwhile is kept)."""
    why = found.why if isinstance(found, Refused) else _fault(signed_as, bytes(found))
    if why is None:
        report.present += 1
        return
    value = make() if remote.available else None
    if value is None:  # left out (a record that does not build), or the remote failed
        return
    if remote.replace(key, value, found, field):
        bad.append(f"{signed_as[:120]} ({why[:120]})")
        report.written += 1
    else:
        report.present += 1  # replaced meanwhile by another publisher, or not comparable


def _fault(key: str, value: bytes) -> str | None:
    """Why the value at `key` is not a valid entry, or None (whoever signed it: first
    write wins among valid entries, and readers apply their own trust)."""
    try:
        decode(key, value)
    except MalformedEntry as error:
        return str(error)
    return None
