"""One remote entry as bytes: JSON content, raw binary bytes, an ed25519 signature.

    CLMODES-REMOTE-1\\n
    <4 bytes: header length, big-endian> <header: JSON {"signer": B64, "content": {...}}>
    <blob: raw bytes (a program binary; empty for other entries)>
    <64 bytes: ed25519 signature>

The signature is over the magic, the entry's *key* (where it is stored), a NUL, and every
byte after the magic up to the signature: so it covers the key and the content, and an
entry copied under another key (another device, another batch, another model) is a bad
signature, not a valid entry in the wrong place. The signer's public key is inside (as
in a bundle's signature block, `clmodes.bundle.signing`): a flipped byte anywhere is a
bad signature, checked before trust is asked about. Data only: JSON and bytes, never
pickle; the JSON read as bundles read theirs (`bundle.validation.parse_json`: finite
numbers, bounded depth).
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from clmodes.bundle.errors import BundleError
from clmodes.bundle.signing import PublicKey, public_key_of
from clmodes.bundle.validation import parse_json

MAGIC = b"CLMODES-REMOTE-1\n"
LENGTH_BYTES = 4
SIGNATURE_BYTES = 64
MAX_HEADER = 1 << 20


class MalformedEntry(ValueError):
    """An entry refused: why, in one line (the reader names the key)."""


@dataclasses.dataclass(frozen=True)
class Entry:
    key: str
    content: dict[str, Any]
    blob: bytes
    signer: PublicKey


def _signed(key: str, body: bytes) -> bytes:
    return MAGIC + key.encode() + b"\0" + body


def encode(key: str, content: dict[str, Any], blob: bytes, private: Ed25519PrivateKey) -> bytes:
    signer = public_key_of(private)
    header = json.dumps({"signer": base64.b64encode(signer.raw).decode(), "content": content},
                        sort_keys=True, separators=(",", ":")).encode()
    body = len(header).to_bytes(LENGTH_BYTES, "big") + header + blob
    return MAGIC + body + private.sign(_signed(key, body))


def decode(key: str, data: bytes) -> Entry:
    """The entry stored at `key`, its signature verified; `MalformedEntry` otherwise."""
    if not data.startswith(MAGIC):
        raise MalformedEntry("not a clmodes remote entry")
    body, signature = data[len(MAGIC):-SIGNATURE_BYTES], data[-SIGNATURE_BYTES:]
    if len(body) < LENGTH_BYTES:
        raise MalformedEntry("truncated")
    size = int.from_bytes(body[:LENGTH_BYTES], "big")
    if size > MAX_HEADER or LENGTH_BYTES + size > len(body):
        raise MalformedEntry(f"header length {size} does not fit the entry")
    header_bytes = body[LENGTH_BYTES:LENGTH_BYTES + size]
    try:
        header = parse_json(key, header_bytes.decode("utf-8"), "its header")
    except (UnicodeDecodeError, BundleError) as error:
        raise MalformedEntry(str(error).removeprefix(f"{key}: ")) from error
    if not isinstance(header, dict) or set(header) != {"signer", "content"} \
            or not isinstance(header["content"], dict) or not isinstance(header["signer"], str):
        raise MalformedEntry("its header is not {signer, content}")
    try:
        raw = base64.b64decode(header["signer"], validate=True)
    except (ValueError, binascii.Error) as error:
        raise MalformedEntry("its signer is not base64") from error
    if len(raw) != 32:
        raise MalformedEntry("its signer is not an ed25519 key")
    signer = PublicKey(raw, "a remote entry's signature")
    if not signer.verify(signature, _signed(key, body)):
        raise MalformedEntry(f"bad signature (claimed signer {signer.short}): altered after "
                             "signing, stored under another key, or forged")
    return Entry(key, header["content"], bytes(body[LENGTH_BYTES + size:]), signer)
