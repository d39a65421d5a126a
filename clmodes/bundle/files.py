"""A bundle file as a whole: entries written to one (signed or not), or read from one
and verified (signature, checksum, payload, every entry)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from clmodes.bundle import payload
from clmodes.bundle.container import MAX_PAYLOAD_BYTES, split, unsigned_part, write_atomically, write_container
from clmodes.bundle.userfiles import read_bounded
from clmodes.bundle.manifest import build_manifest
from clmodes.bundle.signing import Signature, load_private_key, public_key_of, signature_block
from clmodes.bundle.validation import validate
from clmodes.store import StoreEntries

SigningKey = str | os.PathLike[str] | Ed25519PrivateKey


@dataclasses.dataclass
class Bundle:
    """A bundle read and verified in full."""

    path: Path
    manifest: dict[str, Any]
    entries: StoreEntries
    signature: Signature | None  # None: unsigned


def private_key(sign: SigningKey | None) -> Ed25519PrivateKey | None:
    if sign is None or isinstance(sign, Ed25519PrivateKey):
        return sign
    return load_private_key(sign)


def write(path: Path, entries: StoreEntries, sign: SigningKey | None = None) -> dict[str, Any]:
    """Write `entries` to a bundle at `path`, signed with the private key `sign` if given;
    return its manifest (with its checksum). The key is loaded before anything is
    written: a wrong key file leaves no bundle behind."""
    key = private_key(sign)
    data = payload.encode(entries)
    manifest = build_manifest(entries, data)
    digest = write_container(path, manifest, data, key)
    return {**manifest, "checksum": digest}


def read_bytes(path: Path) -> bytes:
    return read_bounded(path, MAX_PAYLOAD_BYTES, "bundle")


def read(path: str | os.PathLike[str]) -> Bundle:
    """Read and verify a bundle completely, or raise a one-line `BundleError`."""
    path = Path(path)
    manifest, body, signature = split(path, read_bytes(path))
    entries = payload.decode(path, body, manifest.get("counts") if isinstance(
        manifest.get("counts"), dict) else None)
    validate(path, manifest, entries)
    return Bundle(path, manifest, entries, signature)


def sign(path: str | os.PathLike[str], key: SigningKey, out: str | os.PathLike[str] | None = None) -> Signature:
    """Sign a bundle (replacing any signature it had), in place or into `out`. The bundle
    is verified in full first: signing vouches for what is inside."""
    path = Path(path)
    private = private_key(key)
    assert private is not None
    read(path)
    data = unsigned_part(path, read_bytes(path))
    write_atomically(Path(out) if out is not None else path, data + signature_block(private, data))
    return Signature(public_key_of(private), len(data))
