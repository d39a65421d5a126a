"""`RemoteTier`: the store's read-through (`clmodes.store.tiers`) to a team's remote.

On a local miss: binaries by exact device (the kernel index entries of the missing
kernel keys, then the binaries they name), tune results by key (every model's decision
for it, so that the store's own lookups then answer exactly or graded, through
`clmodes.tune.answers.nearest` as for a bundle's: this module grades nothing). What verifies is
written into the local store with its origin noted ("remote": `tune list`, `cache
info`), local entries winning, so the next process does not ask again.

The remote is hostile data, read as a bundle is read, with the same code:
- each value bounded (`layout`'s limits and `config.Bounds.max_entry`, enforced by the
  `Remote` on the server before it reads), and each binary read and checked one at a
  time, so a reader holds at most one entry of that size at once;
- each entry's signature checked over its key and content (`entry`): a bad one is
  always refused;
- trust as for bundles (`clmodes.bundle.trust`: `trusted_keys=`, `$CLMODES_TRUSTED_KEYS`,
  the config dir's `trusted-keys/`): binaries (code) only from a trusted signer, with
  no flag to lower that; tune results from an untrusted signer are refused, or with
  `allow_unsigned` used with one warning (a decision picks one of the application's own
  candidates, it cannot add code);
- each row validated by `clmodes.bundle.validation` exactly as an import validates it,
  its fields compared with the key it was asked under;
- each new binary loaded for its device in a child process first (`bundle.loading`).
A refused entry is one warning naming its key, and is remembered: the process never
fetches or warns about it again (several kernel index entries name one binary). Nothing
raises out of here, and each kernel key and tune key is asked once per process.

What is read is written at once, even inside a warm's deferral (`Store.add_entries` is
its own transaction): it is another machine's committed result, not this warm's work,
and a workload that fails afterwards has no reason to lose it.
"""

from __future__ import annotations

import dataclasses

import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from clmodes.bundle.loading import check_loads
from clmodes.bundle.signing import PublicKey
from clmodes.bundle.errors import BundleError
from clmodes.bundle.validation import validate_binary, validate_kernel, validate_tune
from clmodes.discovery import devices
from clmodes.remote import layout
from clmodes.remote.config import MAX_ENTRY
from clmodes.remote.entry import MAGIC, Entry, MalformedEntry, decode
from clmodes.remote.interface import Refused, Remote, Value
from clmodes.store import FORMAT_VERSION, BinaryRow, KernelRow, StoreEntries, TuneRow
from clmodes.store.tiers import BINARY, TUNE, TierStore, tune_entry

Row = TypeVar("Row", TuneRow, BinaryRow)

log = logging.getLogger("clmodes")


@dataclasses.dataclass(frozen=True)
class ReadPolicy:
    trusted: dict[str, PublicKey]  # fingerprint -> key (`bundle.trust.trusted_keys`)
    allow_unsigned: bool = False  # tune results from untrusted signers, with a warning


@dataclasses.dataclass
class Tally:
    """What this process read from the remote (`clmodes cache info`, tests)."""

    tune_results: int = 0
    binaries: int = 0
    kernels: int = 0
    refused: int = 0


class RemoteTier:
    def __init__(self, remote: Remote, policy: ReadPolicy, load_check: bool = True,
                 max_entry: int = MAX_ENTRY) -> None:
        self.remote = remote
        self.policy = policy
        self.load_check = load_check
        self.max_entry = max_entry  # a binary entry's limit (`config.Bounds.max_entry`)
        self.tally = Tally()
        self._asked: set[tuple[str, ...]] = set()
        self._refused: set[str] = set()  # entry keys refused in this process
        self._listed: dict[str, list[str]] = {}  # batch -> the kernel keys its entry lists
        self._lock = threading.Lock()
        self._warned: set[tuple[str, str]] = set()

    def _first_ask(self, keys: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
        with self._lock:
            new = [k for k in keys if k not in self._asked]
            self._asked.update(new)
            return new

    def _refuse(self, key: str, why: str) -> None:
        with self._lock:
            self.tally.refused += 1
            self._refused.add(key)
        log.warning("clmodes remote %s: entry %s refused: %s", self.remote.name, key, why)

    def _unrefused(self, keys: list[str]) -> list[str]:
        """The keys not refused already in this process (never fetched, or warned, twice)."""
        with self._lock:
            return [k for k in keys if k not in self._refused]

    def _entry(self, key: str, value: Value) -> Entry | None:
        if isinstance(value, Refused):
            self._refuse(key, value.why)
            return None
        try:
            return decode(key, value)
        except MalformedEntry as error:
            self._refuse(key, str(error))
            return None

    def _trusted(self, entry: Entry, code: bool) -> bool:
        """Does the trust policy let this entry in? (binaries: `code`)"""
        if entry.signer.fingerprint in self.policy.trusted:
            return True
        who = f"signed by {entry.signer.short}, a key this machine does not trust"
        if code or not self.policy.allow_unsigned:
            # One warning per signer and kind: a team's remote holds many entries of one
            # untrusted publisher, and a line per entry would bury the run's output.
            what = "program binaries are code" if code else "tune results need a trusted signer"
            with self._lock:
                self.tally.refused += 1
                self._refused.add(entry.key)
            if self._first_warning((entry.signer.fingerprint, what)):
                log.warning("clmodes remote %s: refusing entries %s (%s; trust the "
                            "publisher's KEY.pub with --trust, $CLMODES_TRUSTED_KEYS or "
                            "trusted-keys/); first refused: %s", self.remote.name, who, what,
                            entry.key)
            else:
                log.debug("clmodes remote %s: entry %s refused: %s", self.remote.name,
                          entry.key, who)
            return False
        if self._first_warning((entry.signer.fingerprint, "allowed")):
            log.warning("clmodes remote %s: using tune results %s (--allow-unsigned)",
                        self.remote.name, who)
        return True

    def _first_warning(self, about: tuple[str, str]) -> bool:
        with self._lock:
            first = about not in self._warned
            self._warned.add(about)
            return first

    # -- tune results -------------------------------------------------------------------

    def tunes(self, store: TierStore, tunable: str, key: str, candidates: str) -> None:
        if not self.remote.available or not self._first_ask([("tune", tunable, key, candidates)]):
            return
        group = layout.tune_key(FORMAT_VERSION, tunable, key, candidates)
        found = self.remote.get_group(group, min(layout.MAX_TUNE_ENTRY, self.max_entry),
                                      layout.MAX_MODELS)
        rows: list[tuple[TuneRow, Entry]] = []
        fresh = set(self._unrefused([layout.field_key(group, m) for m in found]))
        for model, value in sorted(found.items()):
            if layout.field_key(group, model) not in fresh:
                continue
            entry = self._entry(layout.field_key(group, model), value)
            if entry is None:
                continue
            row = self._tune_row(entry, model, (tunable, key, candidates))
            if row is not None and self._trusted(entry, code=False):
                rows.append((row, entry))
        if rows:
            self._add(store, StoreEntries([r for r, _ in rows], [], []),
                      {(TUNE, r.model, tune_entry(tunable, key, candidates)): e
                       for r, e in rows})

    def _tune_row(self, entry: Entry, model: str, asked: tuple[str, str, str]) -> TuneRow | None:
        content = entry.content
        expected = {"format": FORMAT_VERSION, "model": model, "tunable": asked[0],
                    "tune_key": asked[1], "candidates": asked[2]}
        if set(content) != {*expected, "value"} or any(content[k] != v for k, v in expected.items()) \
                or not isinstance(content["value"], str):
            self._refuse(entry.key, "its content is not the decision it is stored as")
            return None
        return self._validated(entry.key, TuneRow(FORMAT_VERSION, model, *asked, content["value"]),
                               validate_tune)

    # -- binaries -----------------------------------------------------------------------

    def binaries(self, store: TierStore, exact: str, kernel_keys: list[str]) -> None:
        if not self.remote.available:
            return
        wanted = [k[2] for k in self._first_ask([("kernel", exact, k) for k in kernel_keys])]
        if not wanted:
            return
        kernels = self._kernel_rows(exact, wanted)
        batches = {layout.binary_key(exact, r.batch): r.batch for r, _ in kernels}
        held = {b for b in batches.values() if store.get_binary(exact, b) is not None}
        binaries: list[tuple[BinaryRow, Entry]] = []
        # One at a time: each is up to the entry limit, and a refused one is dropped
        # before the next is read.
        for name in self._unrefused([n for n, b in batches.items() if b not in held]):
            for key, value in self.remote.get([name], self.max_entry, MAGIC).items():
                entry = self._entry(key, value)
                if entry is None or not self._trusted(entry, code=True):
                    continue
                binary = self._binary_row(entry, exact, batches[key])
                if binary is not None:
                    binaries.append((binary, entry))
        # Every kernel a new binary holds, not only those asked for now: a program is
        # loaded once per process with the argument info its rows give then (some drivers,
        # Intel's, drop it from programs made from binaries), so a row read later would
        # come too late for a kernel of the same program.
        have = {r.kernel_key for r, _ in kernels}
        more = [k for r, _ in binaries for k in self._listed[r.batch] if k not in have]
        kernels += self._kernel_rows(exact, [k[2] for k in self._first_ask(
            [("kernel", exact, k) for k in more])])
        usable = held | {r.batch for r, _ in binaries}
        # An index entry whose binary is not there (evicted, refused above) is a miss,
        # not a fault of the entry: dropped without a warning of its own.
        kernels = [(r, e) for r, e in kernels if r.batch in usable
                   and self._kernel_valid(r, e, exact, usable)]
        refused = self._load_refusals(exact, [r for r, _ in binaries], [r for r, _ in kernels])
        binaries = [(r, e) for r, e in binaries if (exact, r.batch) not in refused]
        kernels = [(r, e) for r, e in kernels if (exact, r.batch) not in refused]
        if kernels:
            self._add(store, StoreEntries([], [r for r, _ in binaries], [r for r, _ in kernels]),
                      {(BINARY, exact, r.batch): e for r, e in binaries})

    def _kernel_rows(self, exact: str, kernel_keys: list[str]) -> list[tuple[KernelRow, Entry]]:
        """The verified, trusted kernel index entries of these keys the remote holds."""
        names = {layout.kernel_key(exact, k): k for k in kernel_keys}
        kernels: list[tuple[KernelRow, Entry]] = []
        limit = min(layout.MAX_KERNEL_ENTRY, self.max_entry)
        for name, value in self.remote.get(self._unrefused(list(names)), limit, MAGIC).items():
            entry = self._entry(name, value)
            if entry is None or not self._trusted(entry, code=True):
                continue
            kernel = self._kernel_row(entry, exact, names[name])
            if kernel is not None:
                kernels.append((kernel, entry))
        return kernels

    def _kernel_row(self, entry: Entry, exact: str, kernel_key: str) -> KernelRow | None:
        content = entry.content
        fields = {"exact", "kernel_key", "batch", "name", "args"}
        if set(content) != fields or not all(isinstance(content[f], str) for f in fields) \
                or content["exact"] != exact or content["kernel_key"] != kernel_key:
            self._refuse(entry.key, "its content is not the kernel index entry it is stored as")
            return None
        return KernelRow(exact, kernel_key, content["batch"], content["name"], content["args"])

    def _kernel_valid(self, row: KernelRow, entry: Entry, exact: str, usable: set[str]) -> bool:
        try:
            validate_kernel(entry.key, row, {(exact, b) for b in usable})
        except BundleError as error:
            self._refuse(entry.key, str(error).removeprefix(f"{entry.key}: "))
            return False
        return True

    def _binary_row(self, entry: Entry, exact: str, batch: str) -> BinaryRow | None:
        content = entry.content
        fields = {"exact", "batch", "units", "sha256"}
        listed = content.get("kernel_keys")
        if set(content) != {*fields, "kernel_keys"} \
                or not all(isinstance(content[f], str) for f in fields) \
                or content["exact"] != exact or content["batch"] != batch \
                or not isinstance(listed, list) or len(listed) > layout.MAX_KERNELS \
                or not all(isinstance(k, str) and len(k) <= 256 for k in listed):
            self._refuse(entry.key, "its content is not the binary it is stored as")
            return None
        with self._lock:
            self._listed[batch] = list(listed)
        return self._validated(entry.key, BinaryRow(exact, batch, content["units"],
                                                    bytes(entry.blob), content["sha256"]),
                               validate_binary)

    def _validated(self, key: str, row: Row, validate: Callable[[str, Row], None]) -> Row | None:
        """`row` if it passes the bundle import's own check, else refused (one line)."""
        try:
            validate(key, row)
        except BundleError as error:
            self._refuse(key, str(error).removeprefix(f"{key}: "))
            return None
        return row

    def _load_refusals(self, exact: str, binaries: list[BinaryRow],
                       kernels: list[KernelRow]) -> dict[tuple[str, str], str]:
        """The binaries that fail the child-process load check on this exact device (as
        a bundle import's do); none is loaded when the device is not here."""
        if not self.load_check or not binaries:
            return {}
        device = next((d for d in devices() if d.fingerprint.exact == exact), None)
        if device is None or device.cl_device is None:
            return {}
        refused = check_loads(binaries, kernels, {exact: device.cl_device})
        for (_, batch), why in refused.items():
            self._refuse(layout.binary_key(exact, batch), f"it fails to load here ({why})")
        return refused

    # -- into the store -----------------------------------------------------------------

    def _add(self, store: TierStore, entries: StoreEntries,
             origins: dict[tuple[str, str, str], Entry]) -> None:
        try:
            added = store.add_entries(entries)
            kept = {(TUNE, r.model, tune_entry(r.tunable, r.tune_key, r.candidates))
                    for r in added.tune} | {(BINARY, r.exact, r.batch) for r in added.binaries}
            store.note_remote([(*where, entry.signer.fingerprint)
                               for where, entry in origins.items() if where in kept])
        except Exception as error:  # noqa: BLE001 - the store's fault, never the run's
            log.warning("clmodes remote %s: could not keep what it read in the local store "
                        "(%s)", self.remote.name, str(error).splitlines()[0] if str(error) else error)
            return
        with self._lock:
            self.tally.tune_results += len(added.tune)
            self.tally.binaries += len(added.binaries)
            self.tally.kernels += len(added.kernels)
        if added.tune or added.binaries or added.kernels:
            log.info("clmodes remote %s: read %d tune results, %d binaries, %d kernels into "
                     "the local store", self.remote.name, len(added.tune), len(added.binaries),
                     len(added.kernels))

    def describe(self) -> dict[str, Any]:
        with self._lock:
            return dataclasses.asdict(self.tally)


def content_of(row: Any) -> dict[str, Any]:
    """A row's fields as an entry's content (publishing writes what reading expects)."""
    return {field.name: getattr(row, field.name) for field in dataclasses.fields(row)
            if field.name != "binary"}


