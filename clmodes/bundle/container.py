"""The bundle file's container: magic, manifest, checksum, payload.

File layout (all of it covered by one checksum, so that every byte matters):

    CLMODES-BUNDLE\\n            magic
    <n>\\n                       length of the manifest in bytes (decimal)
    <manifest: n bytes of JSON>  schema, clmodes version, creation time, devices, counts,
                                 payload_bytes
    <64 hex digits>\\n           sha256 over the manifest's *bytes* and the payload
    <payload>                    an SQLite database: tune, blobs (binaries, deduplicated
                                 by sha256), binaries, kernels (`clmodes.bundle.payload`)
    [signature block]            optional: an ed25519 signature over every byte above
                                 (`clmodes.bundle.signing`)

The checksum covers the manifest as written, not as parsed: JSON that parses to the same
value (a space turned into a tab) is still a changed file.

A checksum over the *file* rather than over the rows inside the database: a flipped byte
in free SQLite pages would otherwise go unnoticed, and "a tampered bundle is rejected"
would hold only for bytes that happen to be live.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import mmap
from pathlib import Path
from typing import Any, BinaryIO

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from clmodes._version import __version__
from clmodes.atomic import write_replacing
from clmodes.bundle.errors import BundleError
from clmodes.bundle.signing import MAX_BLOCK_BYTES, Signature, check_block_shape, signature_block, verify_block

MAGIC = b"CLMODES-BUNDLE\n"
SCHEMA = 1
MAX_MANIFEST_BYTES = 1 << 20  # a manifest of 50 device models is ~20 KB
MAX_MANIFEST_DEPTH = 8  # the deepest real manifest is 4 levels
MAX_PAYLOAD_BYTES = 16 << 30
DIGEST_CHARS = 64  # a sha256 in hex
MAX_SIZE_DIGITS = 20
HEAD_MAX = len(MAGIC) + MAX_SIZE_DIGITS + 1 + MAX_MANIFEST_BYTES + DIGEST_CHARS + 1
CHUNK = 1 << 20  # bytes hashed at a time: reading a bundle holds no copy of its payload


def checksum(header: bytes, payload: bytes) -> str:
    digest = hashlib.sha256(header)
    digest.update(payload)
    return digest.hexdigest()


def write_container(path: Path, manifest: dict[str, Any], payload: bytes,
                    sign: Ed25519PrivateKey | None = None) -> str:
    """Write the file atomically, signed with `sign` if given; return its checksum."""
    header = json.dumps(manifest, sort_keys=True).encode()
    digest = checksum(header, payload)
    data = MAGIC + f"{len(header)}\n".encode() + header + f"{digest}\n".encode() + payload
    if sign is not None:
        data += signature_block(sign, data)
    write_atomically(path, data)
    return digest


def write_atomically(path: Path, data: bytes) -> None:
    """Readers never see half a bundle (`clmodes.atomic`: a failed write leaves no
    temporary file)."""
    _check_target(path)
    try:
        write_replacing(path, data)
    except OSError as error:
        raise BundleError(f"{path}: cannot write ({error.strerror or error})") from error


def _check_target(path: Path) -> None:
    """A target the write can only fail on, refused before anything is written."""
    if path.is_dir():
        raise BundleError(f"{path}: is a directory; name the bundle file to write")
    if not path.parent.is_dir():
        raise BundleError(f"{path}: the folder {path.parent} does not exist")


@dataclasses.dataclass(frozen=True)
class Layout:
    """Where a verified bundle's parts lie in its file."""

    manifest: dict[str, Any]  # with its checksum
    payload_start: int
    payload_size: int
    signature: Signature | None  # None: unsigned


def split(path: Path, data: bytes) -> tuple[dict[str, Any], bytes, Signature | None]:
    """The manifest (with its checksum), payload and signature of a bundle's bytes (see
    `layout`)."""
    found = layout(path, io.BytesIO(data), len(data), memoryview(data))
    return found.manifest, data[found.payload_start:found.payload_start + found.payload_size], found.signature


def split_file(path: Path, handle: BinaryIO, size: int) -> Layout:
    """`layout` of an open bundle file, its signature checked over a read-only map of it
    (the file's pages, not a copy: ed25519 signs the whole message)."""
    if size == 0:
        raise BundleError(f"{path}: not a clmodes bundle (no bundle header)")
    with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        view = memoryview(mapped)
        try:
            return layout(path, handle, size, view)
        finally:
            view.release()  # else a traceback holding it keeps the map from closing


def layout(path: Path, handle: BinaryIO, size: int, view: memoryview) -> Layout:
    """Where the parts of a bundle whose every byte checks out lie, or a one-line
    `BundleError`. Cheapest first, and nothing held but the header: the layout (magic,
    manifest, sizes, a signature block of the right shape), then the checksum streamed
    over the file, then the signature (verified here, so that nothing, not `inspect`
    either, reads a bundle whose signature is bad)."""
    head = read_at(handle, 0, min(size, HEAD_MAX))
    if not head.startswith(MAGIC):
        raise BundleError(f"{path}: not a clmodes bundle (no bundle header)")
    header, digest_at = read_header(path, head, len(MAGIC))
    manifest = parse_manifest(path, header)
    digest = head[digest_at:digest_at + DIGEST_CHARS]
    if head[digest_at + DIGEST_CHARS:digest_at + DIGEST_CHARS + 1] != b"\n":
        raise BundleError(f"{path}: truncated bundle (no checksum)")
    start = digest_at + DIGEST_CHARS + 1
    end = start + payload_size(path, manifest, size - start)
    block = read_at(handle, end, min(size - end, MAX_BLOCK_BYTES + 1))
    check_block_shape(path, block)
    if digest.decode("ascii", "replace") != streamed_checksum(header, handle, start, end):
        raise BundleError(f"{path}: checksum mismatch: the bundle was altered or damaged")
    signed = view[:end]
    try:
        signature = verify_block(path, block, signed)
    finally:
        signed.release()
    return Layout({**manifest, "checksum": digest.decode()}, start, end - start, signature)


def read_at(handle: BinaryIO, offset: int, count: int) -> bytes:
    handle.seek(offset)
    return handle.read(count)


def streamed_checksum(header: bytes, handle: BinaryIO, start: int, end: int) -> str:
    digest = hashlib.sha256(header)
    handle.seek(start)
    left = end - start
    while left > 0:
        chunk = handle.read(min(CHUNK, left))
        if not chunk:
            break
        digest.update(chunk)
        left -= len(chunk)
    return digest.hexdigest()


def unsigned_part(path: Path, data: bytes) -> bytes:
    """The bytes a signature covers: the file without its signature block (if any)."""
    _, payload, signature = split(path, data)
    return data[:signature.covers] if signature else data


def read_header(path: Path, head: bytes, offset: int) -> tuple[bytes, int]:
    """The manifest's bytes and the offset that follows them."""
    newline = head.find(b"\n", offset, offset + MAX_SIZE_DIGITS + 1)
    size_text = head[offset:newline] if newline >= 0 else b""
    if not size_text.isdigit() or int(size_text) > MAX_MANIFEST_BYTES:
        raise BundleError(f"{path}: damaged bundle header")
    begin = newline + 1
    header = head[begin:begin + int(size_text)]
    if len(header) < int(size_text):
        raise BundleError(f"{path}: truncated bundle (manifest incomplete)")
    return header, begin + len(header)


def parse_manifest(path: Path, header: bytes) -> dict[str, Any]:
    """The manifest as an object. Its schema is checked before the checksum, so that a
    bundle from a newer clmodes is named as such rather than as damaged."""
    try:
        manifest = json.loads(header, parse_constant=_refuse_constant)
    except RecursionError as error:
        raise BundleError(f"{path}: damaged bundle manifest (nested too deeply)") from error
    except (ValueError, UnicodeDecodeError) as error:
        raise BundleError(f"{path}: damaged bundle manifest ({error})") from error
    if not isinstance(manifest, dict):
        raise BundleError(f"{path}: damaged bundle manifest (not an object)")
    if depth(manifest) > MAX_MANIFEST_DEPTH:
        raise BundleError(f"{path}: damaged bundle manifest (nested more than "
                          f"{MAX_MANIFEST_DEPTH} levels)")
    schema = manifest.get("schema")
    if not isinstance(schema, int):
        raise BundleError(f"{path}: damaged bundle manifest (no schema version)")
    if schema > SCHEMA:
        raise BundleError(
            f"{path}: bundle schema {schema} is newer than this clmodes "
            f"({__version__}) reads (schema {SCHEMA}); upgrade clmodes"
        )
    return manifest


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a bundle may hold")


def depth(value: Any) -> int:
    """How deeply JSON containers nest (iterative: a hostile value cannot overflow it)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def payload_size(path: Path, manifest: dict[str, Any], available: int) -> int:
    """The payload's length as the manifest states it; what follows is the signature."""
    expected = manifest.get("payload_bytes")
    if type(expected) is not int or not 0 <= expected <= MAX_PAYLOAD_BYTES:
        raise BundleError(f"{path}: damaged bundle manifest (payload size)")
    if available < expected:
        raise BundleError(f"{path}: truncated bundle ({available} of {expected} payload bytes)")
    return expected
