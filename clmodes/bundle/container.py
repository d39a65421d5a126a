"""The bundle file's container: magic, manifest, checksum, payload.

File layout (all of it covered by one checksum, so that every byte matters):

    CLMODES-BUNDLE\\n            magic
    <n>\\n                       length of the manifest in bytes (decimal)
    <manifest: n bytes of JSON>  schema, clmodes version, creation time, devices, counts,
                                 payload_bytes
    <64 hex digits>\\n           sha256 over the manifest's *bytes* and the payload
    <payload>                    an SQLite database: tune, blobs (binaries, deduplicated
                                 by sha256), binaries, kernels (`clmodes.bundle.payload`)

The checksum covers the manifest as written, not as parsed: JSON that parses to the same
value (a space turned into a tab) is still a changed file.

A checksum over the *file* rather than over the rows inside the database: a flipped byte
in free SQLite pages would otherwise go unnoticed, and "a tampered bundle is rejected"
would hold only for bytes that happen to be live.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from clmodes._version import __version__
from clmodes.atomic import write_replacing
from clmodes.bundle.errors import BundleError

MAGIC = b"CLMODES-BUNDLE\n"
SCHEMA = 1
MAX_MANIFEST_BYTES = 4 << 20
MAX_PAYLOAD_BYTES = 16 << 30
DIGEST_CHARS = 64  # a sha256 in hex


def checksum(header: bytes, payload: bytes) -> str:
    digest = hashlib.sha256(header)
    digest.update(payload)
    return digest.hexdigest()


def write_container(path: Path, manifest: dict[str, Any], payload: bytes) -> str:
    """Write the file atomically (`clmodes.atomic`: readers never see half a bundle, a
    failed write leaves no temporary file); return its checksum."""
    header = json.dumps(manifest, sort_keys=True).encode()
    digest = checksum(header, payload)
    _check_target(path)
    try:
        write_replacing(path, MAGIC + f"{len(header)}\n".encode() + header
                        + f"{digest}\n".encode() + payload)
    except OSError as error:
        raise BundleError(f"{path}: cannot write ({error.strerror or error})") from error
    return digest


def _check_target(path: Path) -> None:
    """A target the write can only fail on, refused before anything is written."""
    if path.is_dir():
        raise BundleError(f"{path}: is a directory; name the bundle file to write")
    if not path.parent.is_dir():
        raise BundleError(f"{path}: the folder {path.parent} does not exist")


def split(path: Path, data: bytes) -> tuple[dict[str, Any], bytes]:
    """The manifest (with its checksum) and payload of a file whose every byte checks out,
    or a one-line `BundleError`."""
    if not data.startswith(MAGIC):
        raise BundleError(f"{path}: not a clmodes bundle (no bundle header)")
    header, rest = read_header(path, data[len(MAGIC):])
    manifest = parse_manifest(path, header)
    digest, newline, payload = rest[:DIGEST_CHARS], rest[DIGEST_CHARS:DIGEST_CHARS + 1], rest[DIGEST_CHARS + 1:]
    if newline != b"\n":
        raise BundleError(f"{path}: truncated bundle (no checksum)")
    check_payload_size(path, manifest, payload)
    if digest.decode("ascii", "replace") != checksum(header, payload):
        raise BundleError(f"{path}: checksum mismatch: the bundle was altered or damaged")
    return {**manifest, "checksum": digest.decode()}, payload


def read_header(path: Path, rest: bytes) -> tuple[bytes, bytes]:
    """The manifest's bytes and what follows them."""
    size_text, newline, rest = rest.partition(b"\n")
    if not newline or not size_text.isdigit() or int(size_text) > MAX_MANIFEST_BYTES:
        raise BundleError(f"{path}: damaged bundle header")
    size = int(size_text)
    if len(rest) < size:
        raise BundleError(f"{path}: truncated bundle (manifest incomplete)")
    return rest[:size], rest[size:]


def parse_manifest(path: Path, header: bytes) -> dict[str, Any]:
    """The manifest as an object. Its schema is checked before the checksum, so that a
    bundle from a newer clmodes is named as such rather than as damaged."""
    try:
        manifest = json.loads(header)
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
    return manifest


def check_payload_size(path: Path, manifest: dict[str, Any], payload: bytes) -> None:
    expected = manifest.get("payload_bytes")
    if not isinstance(expected, int) or not 0 <= expected <= MAX_PAYLOAD_BYTES:
        raise BundleError(f"{path}: damaged bundle manifest (payload size)")
    if len(payload) < expected:
        raise BundleError(f"{path}: truncated bundle ({len(payload)} of {expected} payload bytes)")
    if len(payload) > expected:
        raise BundleError(f"{path}: bundle has {len(payload) - expected} unexpected trailing bytes")
