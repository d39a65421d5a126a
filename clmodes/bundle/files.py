"""A bundle file as a whole: entries written to one (signed or not), or read from one
and verified (signature, checksum, payload, every entry)."""

from __future__ import annotations

import dataclasses
import os
import stat
from pathlib import Path
from typing import Any, BinaryIO, TypeAlias

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from clmodes.bundle import payload
from clmodes.bundle.container import (CHUNK, MAX_PAYLOAD_BYTES, split_file, unsigned_part, write_atomically,
                                      write_container)
from clmodes.bundle.errors import BundleError
from clmodes.bundle.limits import check_size, max_size, read_bounded
from clmodes.bundle.manifest import build_manifest
from clmodes.bundle.signing import Signature, load_private_key, public_key_of, signature_block
from clmodes.bundle.validation import validate
from clmodes.store import StoreEntries

SigningKey: TypeAlias = str | os.PathLike[str] | Ed25519PrivateKey  # an alias even where cryptography is missing (Any)


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
    return read_bounded(path, min(MAX_PAYLOAD_BYTES, max_size()), "bundle")


def read(path: str | os.PathLike[str]) -> Bundle:
    """Read and verify a bundle completely, or raise a one-line `BundleError`. Refused by
    its size before anything is read (`clmodes.bundle.limits`); then streamed: the
    checksum is computed over the file in chunks, the signature checked over a map of
    it and the payload copied to its scratch database, so that refusing a bundle never
    holds a copy of it (its rows, once accepted, are read into memory)."""
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise BundleError(f"{path}: not a regular file")
            check_size(path, info.st_size)
            found = split_file(path, handle, info.st_size)
            manifest = found.manifest
            entries = payload.decode(path, lambda out: copy_range(handle, found.payload_start,
                                                                  found.payload_size, out),
                                     manifest["counts"] if isinstance(manifest.get("counts"), dict) else None)
    except OSError as error:
        raise BundleError(f"{path}: cannot read bundle ({error.strerror or error})") from error
    validate(path, manifest, entries)
    return Bundle(path, manifest, entries, found.signature)


def copy_range(source: BinaryIO, start: int, size: int, out: BinaryIO) -> None:
    source.seek(start)
    while size > 0:
        chunk = source.read(min(CHUNK, size))
        if not chunk:
            raise BundleError(f"{source.name}: the bundle changed while it was read")
        out.write(chunk)
        size -= len(chunk)


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
