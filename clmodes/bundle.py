"""Cache bundles: store entries for one or more devices in one file, to ship to users.

File layout (all of it covered by one checksum, so that every byte matters):

    CLMODES-BUNDLE\\n            magic
    <n>\\n                       length of the manifest in bytes (decimal)
    <manifest: n bytes of JSON>  schema, clmodes version, creation time, devices, counts,
                                 payload_bytes
    <64 hex digits>\\n           sha256 over the manifest's *bytes* and the payload
    <payload>                    an SQLite database: tune, blobs (binaries, deduplicated
                                 by sha256), binaries, kernels

The checksum covers the manifest as written, not as parsed: JSON that parses to the same
value (a space turned into a tab) is still a changed file.

A checksum over the *file* rather than over the rows inside the database: a flipped byte
in free SQLite pages would otherwise go unnoticed, and "a tampered bundle is rejected"
would hold only for bytes that happen to be live. Everything is checked (magic, sizes,
checksum, schema, integrity, counts, every entry's JSON and every binary's hash) before
the first write, and the import is one transaction: a bad bundle leaves the store exactly
as it was. A bundle is data only: nothing in it is executed or unpickled.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
import os
import sqlite3
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from clmodes._version import __version__
from clmodes.client import client
from clmodes.device import Device, devices, differing_fields, fingerprint_fields, model_of
from clmodes.errors import ClmodesError
from clmodes.store import FORMAT_VERSION, Store, StoreEntries, default_store

MAGIC = b"CLMODES-BUNDLE\n"
SCHEMA = 1
MAX_MANIFEST_BYTES = 4 << 20
MAX_PAYLOAD_BYTES = 16 << 30

_PAYLOAD_SCHEMA = """
CREATE TABLE tune (format INTEGER, model TEXT, tunable TEXT, tune_key TEXT, candidates TEXT,
                   value TEXT, PRIMARY KEY (format, model, tunable, tune_key, candidates));
CREATE TABLE blobs (sha256 TEXT PRIMARY KEY, data BLOB);
CREATE TABLE binaries (exact TEXT, batch TEXT, units TEXT, sha256 TEXT,
                       PRIMARY KEY (exact, batch));
CREATE TABLE kernels (exact TEXT, kernel_key TEXT, batch TEXT, name TEXT, args TEXT,
                      PRIMARY KEY (exact, kernel_key));
"""


class BundleError(ClmodesError):
    """A file that is not a valid bundle; the message names the file and what is wrong."""


# -- writing --------------------------------------------------------------------------


def export(path: str | os.PathLike[str], device: object = None, store: Store | None = None) -> dict[str, Any]:
    """Write the store's entries (all, or one device model's) to a bundle; return its manifest."""
    model = client(device).device.fingerprint.model if device is not None else None
    entries = (store or default_store()).entries(model)
    if not (entries.tune or entries.binaries):
        where = f" for {model}" if model else ""
        raise BundleError(f"nothing to export{where}: the store at "
                          f"{(store or default_store()).location} holds no entries (run `clmodes warm` first)")
    return _write(Path(path), entries)


def merge(out: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]]) -> dict[str, Any]:
    """Combine bundles (made on different machines) into one; every entry kept once."""
    combined = StoreEntries([], [], [])
    seen: set[tuple[str, ...]] = set()
    for path in inputs:
        entries = read(path).entries
        for kind, key_size in (("tune", 5), ("binaries", 2), ("kernels", 2)):
            for row in getattr(entries, kind):
                key = (kind, *map(str, row[:key_size]))
                if key not in seen:
                    seen.add(key)
                    getattr(combined, kind).append(row)
    return _write(Path(out), combined)


def _write(path: Path, entries: StoreEntries) -> dict[str, Any]:
    payload = _payload(entries)
    manifest = {
        "schema": SCHEMA,
        "format": FORMAT_VERSION,
        "clmodes": __version__,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "devices": _describe_devices(entries),
        "counts": {"tune": len(entries.tune), "binaries": len(entries.binaries),
                   "kernels": len(entries.kernels),
                   "blobs": len({row[4] for row in entries.binaries})},
        "payload_bytes": len(payload),
    }
    header = json.dumps(manifest, sort_keys=True).encode()
    digest = _checksum(header, payload)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(temporary, "wb") as handle:
        handle.write(MAGIC + f"{len(header)}\n".encode() + header + f"{digest}\n".encode() + payload)
    os.replace(temporary, path)  # readers never see half a bundle
    return {**manifest, "checksum": digest}


def _payload(entries: StoreEntries) -> bytes:
    with tempfile.TemporaryDirectory(prefix="clmodes-bundle-") as directory:
        file = Path(directory) / "payload.sqlite3"
        connection = sqlite3.connect(file)
        with connection:
            connection.executescript(_PAYLOAD_SCHEMA)
            connection.executemany("INSERT INTO tune VALUES (?, ?, ?, ?, ?, ?)", entries.tune)
            for exact, batch, units, binary, digest in entries.binaries:
                connection.execute("INSERT OR IGNORE INTO blobs VALUES (?, ?)",
                                   (digest, sqlite3.Binary(binary)))
                connection.execute("INSERT INTO binaries VALUES (?, ?, ?, ?)",
                                   (exact, batch, units, digest))
            connection.executemany("INSERT INTO kernels VALUES (?, ?, ?, ?, ?)", entries.kernels)
        connection.execute("VACUUM")
        connection.close()
        return file.read_bytes()


def _describe_devices(entries: StoreEntries) -> list[dict[str, Any]]:
    models: dict[str, dict[str, Any]] = {}

    def entry(model: str) -> dict[str, Any]:
        return models.setdefault(model, {
            "model": model, "vendor": fingerprint_fields(model).get("vendor", "unknown"),
            "tune": 0, "drivers": {},
        })

    for row in entries.tune:
        entry(row[1])["tune"] += 1
    for exact, *_ in entries.binaries:
        driver = entry(model_of(exact))["drivers"].setdefault(exact, {"binaries": 0, "kernels": 0})
        driver["binaries"] += 1
    for exact, *_ in entries.kernels:
        driver = entry(model_of(exact))["drivers"].setdefault(exact, {"binaries": 0, "kernels": 0})
        driver["kernels"] += 1
    return [
        {**m, "drivers": [{"exact": e, **c} for e, c in sorted(m["drivers"].items())]}
        for _, m in sorted(models.items())
    ]


def _checksum(header: bytes, payload: bytes) -> str:
    digest = hashlib.sha256(header)
    digest.update(payload)
    return digest.hexdigest()


# -- reading --------------------------------------------------------------------------


@dataclasses.dataclass
class Bundle:
    """A bundle read and verified in full."""

    path: Path
    manifest: dict[str, Any]
    entries: StoreEntries


def read(path: str | os.PathLike[str]) -> Bundle:
    """Read and verify a bundle completely, or raise a one-line `BundleError`."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise BundleError(f"{path}: cannot read ({error.strerror or error})") from error
    manifest, payload = _split(path, data)
    return Bundle(path, manifest, _entries(path, manifest, payload))


def _split(path: Path, data: bytes) -> tuple[dict[str, Any], bytes]:
    if not data.startswith(MAGIC):
        raise BundleError(f"{path}: not a clmodes bundle (no bundle header)")
    rest = data[len(MAGIC):]
    size_text, newline, rest = rest.partition(b"\n")
    if not newline or not size_text.isdigit() or int(size_text) > MAX_MANIFEST_BYTES:
        raise BundleError(f"{path}: damaged bundle header")
    size = int(size_text)
    if len(rest) < size:
        raise BundleError(f"{path}: truncated bundle (manifest incomplete)")
    try:
        manifest = json.loads(rest[:size])
    except (ValueError, UnicodeDecodeError) as error:
        raise BundleError(f"{path}: damaged bundle manifest ({error})") from error
    if not isinstance(manifest, dict):
        raise BundleError(f"{path}: damaged bundle manifest (not an object)")
    schema = manifest.get("schema")
    if not isinstance(schema, int):
        raise BundleError(f"{path}: damaged bundle manifest (no schema version)")
    if schema > SCHEMA:
        raise BundleError(
            f"{path}: bundle schema {schema} is newer than this clmodes "
            f"({__version__}) reads (schema {SCHEMA}); upgrade clmodes"
        )
    header, rest = rest[:size], rest[size:]
    digest, newline, payload = rest[:64], rest[64:65], rest[65:]
    if newline != b"\n":
        raise BundleError(f"{path}: truncated bundle (no checksum)")
    expected = manifest.get("payload_bytes")
    if not isinstance(expected, int) or not 0 <= expected <= MAX_PAYLOAD_BYTES:
        raise BundleError(f"{path}: damaged bundle manifest (payload size)")
    if len(payload) < expected:
        raise BundleError(f"{path}: truncated bundle ({len(payload)} of {expected} payload bytes)")
    if len(payload) > expected:
        raise BundleError(f"{path}: bundle has {len(payload) - expected} unexpected trailing bytes")
    if digest.decode("ascii", "replace") != _checksum(header, payload):
        raise BundleError(f"{path}: checksum mismatch: the bundle was altered or damaged")
    return {**manifest, "checksum": digest.decode()}, payload


def _entries(path: Path, manifest: dict[str, Any], payload: bytes) -> StoreEntries:
    with tempfile.TemporaryDirectory(prefix="clmodes-bundle-") as directory:
        file = Path(directory) / "payload.sqlite3"
        file.write_bytes(payload)
        try:
            connection = sqlite3.connect(f"file:{file}?mode=ro", uri=True)
            try:
                entries = _rows(connection)
            finally:
                connection.close()
        except sqlite3.Error as error:
            raise BundleError(f"{path}: bundle payload is not readable ({error})") from error
    _validate(path, manifest, entries)
    return entries


def _rows(connection: sqlite3.Connection) -> StoreEntries:
    if connection.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
        raise sqlite3.DatabaseError("integrity check failed")
    blobs = dict(connection.execute("SELECT sha256, data FROM blobs"))
    binaries = []
    for exact, batch, units, digest in connection.execute(
        "SELECT exact, batch, units, sha256 FROM binaries ORDER BY exact, batch"
    ):
        data = blobs.get(digest)
        binaries.append((exact, batch, units, bytes(data) if data is not None else b"", digest))
    return StoreEntries(
        tune=connection.execute("SELECT * FROM tune ORDER BY model, tunable, tune_key").fetchall(),
        binaries=binaries,
        kernels=connection.execute("SELECT * FROM kernels ORDER BY exact, kernel_key").fetchall(),
    )


def _validate(path: Path, manifest: dict[str, Any], entries: StoreEntries) -> None:
    """Every entry must parse and every count must match before anything is used."""
    counts = manifest.get("counts", {})
    for kind in ("tune", "binaries", "kernels"):
        if counts.get(kind) != len(getattr(entries, kind)):
            raise BundleError(f"{path}: manifest says {counts.get(kind)} {kind} entries, "
                              f"the bundle holds {len(getattr(entries, kind))}")
    for fmt, model, tunable, key, candidates, value in entries.tune:
        record = _json(path, value, f"tune entry {tunable!r} {key}")
        if not isinstance(record, dict) or not isinstance(record.get("winner"), str):
            raise BundleError(f"{path}: tune entry {tunable!r} {key} has no winner")
        if not all(isinstance(v, str) for v in (model, tunable, key, candidates)) or \
                not isinstance(fmt, int):
            raise BundleError(f"{path}: tune entry {tunable!r} has malformed key fields")
    for exact, batch, units, binary, digest in entries.binaries:
        if not binary or hashlib.sha256(binary).hexdigest() != digest:
            raise BundleError(f"{path}: program binary {str(batch)[:12]} fails its checksum")
        if not isinstance(_json(path, units, f"binary {str(batch)[:12]} units"), list):
            raise BundleError(f"{path}: binary {str(batch)[:12]} has malformed units")
    batches = {(row[0], row[1]) for row in entries.binaries}
    for exact, key, batch, name, args in entries.kernels:
        _json(path, args, f"kernel {name!r} argument info")
        if (exact, batch) not in batches:
            raise BundleError(f"{path}: kernel {name!r} refers to a binary the bundle lacks")


def _json(path: Path, text: object, what: str) -> Any:
    try:
        return json.loads(text) if isinstance(text, str) else None
    except ValueError as error:
        raise BundleError(f"{path}: {what} does not parse ({error})") from error


# -- matching and installing ------------------------------------------------------------


@dataclasses.dataclass
class DeviceMatch:
    """How one device of a bundle matches this machine."""

    model: str
    exact: str | None  # one driver of the model in the bundle (None: tune results only)
    match: str  # "exact" | "model" | "none"
    local: Device | None
    differs: list[str]

    def as_dict(self) -> dict[str, Any]:
        return {"model": self.model, "exact": self.exact, "match": self.match,
                "local_device": self.local.label if self.local else None, "differs": self.differs}


def match_devices(manifest: dict[str, Any], local: list[Device] | None = None) -> list[DeviceMatch]:
    """Per device (and driver) in a bundle: exact, same model, or no match with the
    fields that differed from the closest local device."""
    local = devices() if local is None else local
    matches = []
    for device in manifest.get("devices", []):
        model = device["model"]
        same_model = [d for d in local if d.fingerprint.model == model]
        drivers = [d["exact"] for d in device.get("drivers", [])] or [None]
        for exact in drivers:
            matches.append(_match_one(model, exact, same_model, local))
    return matches


def _match_one(model: str, exact: str | None, same_model: list[Device], local: list[Device]) -> DeviceMatch:
    if same_model:
        exact_hit = next((d for d in same_model if d.fingerprint.exact == exact), None)
        if exact_hit is not None:
            return DeviceMatch(model, exact, "exact", exact_hit, [])
        near = same_model[0]
        differs = differing_fields(exact, near.fingerprint.exact) if exact else []
        return DeviceMatch(model, exact, "model", near, differs)
    if not local:
        return DeviceMatch(model, exact, "none", None, ["no OpenCL device here"])
    closest = max(local, key=lambda d: 5 - len(differing_fields(model, d.fingerprint.model)))
    return DeviceMatch(model, exact, "none", None, differing_fields(model, closest.fingerprint.model))


def inspect(path: str | os.PathLike[str], local: list[Device] | None = None) -> dict[str, Any]:
    """What a bundle holds and how it would apply on this machine (writes nothing)."""
    bundle = read(path)
    return {"file": str(bundle.path), "manifest": bundle.manifest,
            "matches": [m.as_dict() for m in match_devices(bundle.manifest, local)],
            "roofline": _rooflines(bundle.entries)}


def _rooflines(entries: StoreEntries) -> list[dict[str, Any]]:
    """Per tuned key whose record has one: the winner's roofline fraction (`Tunable` cost)."""
    found = []
    for _, model, tunable, key, _, value in entries.tune:
        record = json.loads(value)
        if isinstance(record.get("roofline"), (int, float)):
            found.append({"model": model, "tunable": tunable, "key": key,
                          "winner": record["winner"], "roofline": record["roofline"]})
    return found


def install(
    path: str | os.PathLike[str], store: Store | None = None, local: list[Device] | None = None
) -> dict[str, Any]:
    """Import a bundle into the local store: tune results for devices of the same model,
    binaries only for the exact device and driver; local entries win. One transaction.
    `local`: the devices to match against (default: this machine's)."""
    bundle = read(path)
    store = store or default_store()
    matches = match_devices(bundle.manifest, local)
    models = {m.model for m in matches if m.match != "none"}
    exacts = {m.exact for m in matches if m.match == "exact"}
    chosen = StoreEntries(
        tune=[r for r in bundle.entries.tune if r[1] in models and r[0] == FORMAT_VERSION],
        binaries=[r for r in bundle.entries.binaries if r[0] in exacts],
        kernels=[r for r in bundle.entries.kernels if r[0] in exacts],
    )
    added = store.add_entries(chosen)
    report = []
    for m in matches:
        tune_rows = [r for r in bundle.entries.tune if r[1] == m.model]
        binary_rows = [r for r in bundle.entries.binaries if r[0] == m.exact]
        report.append({
            **m.as_dict(),
            "tune": {"in_bundle": len(tune_rows),
                     "added": sum(1 for r in added.tune if r[1] == m.model),
                     "used": m.match != "none"},
            "binaries": {"in_bundle": len(binary_rows),
                         "added": sum(1 for r in added.binaries if r[0] == m.exact),
                         "used": m.match == "exact"},
        })
    return {"file": str(bundle.path), "store": store.location, "devices": report,
            "added": {"tune": len(added.tune), "binaries": len(added.binaries),
                      "kernels": len(added.kernels)}}
