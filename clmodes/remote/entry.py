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
    #: The raw bytes after the header: a view into the buffer the entry was read into,
    #: copied (`bytes(entry.blob)`) only once the entry is trusted, so an entry refused
    #: for its signer costs no second copy of a program binary.
    blob: memoryview
    signer: PublicKey


def _signed(key: str, body: bytes) -> bytes:
    return MAGIC + key.encode() + b"\0" + body


def encode(key: str, content: dict[str, Any], blob: bytes, private: Ed25519PrivateKey) -> bytes:
    signer = public_key_of(private)
    header = json.dumps({"signer": base64.b64encode(signer.raw).decode(), "content": content},
                        sort_keys=True, separators=(",", ":")).encode()
    body = len(header).to_bytes(LENGTH_BYTES, "big") + header + blob
    return MAGIC + body + private.sign(_signed(key, body))


def decode(key: str, data: bytes | bytearray) -> Entry:
    """The entry stored at `key`, its signature verified; `MalformedEntry` otherwise.

    A bytearray (what `RedisRemote.get` reads into) is verified in place: the message
    signed is the value with the key inserted after the magic and the signature cut off,
    and building it as a new bytes object would double a large entry's memory. So `data`
    is consumed: a bytearray passed here no longer holds the value."""
    if not data.startswith(MAGIC):
        raise MalformedEntry("not a clmodes remote entry")
    if len(data) < len(MAGIC) + LENGTH_BYTES + SIGNATURE_BYTES:
        raise MalformedEntry("truncated")
    start = len(MAGIC) + LENGTH_BYTES
    size = int.from_bytes(data[len(MAGIC):start], "big")
    if size > MAX_HEADER or start + size > len(data) - SIGNATURE_BYTES:
        raise MalformedEntry(f"header length {size} does not fit the entry")
    signer, content = _header(key, bytes(data[start:start + size]))
    signature = bytes(data[-SIGNATURE_BYTES:])
    message = data if isinstance(data, bytearray) else bytearray(data)
    del message[-SIGNATURE_BYTES:]
    message[len(MAGIC):len(MAGIC)] = key.encode() + b"\0"
    if not signer.verify(signature, memoryview(message)):
        raise MalformedEntry(f"bad signature (claimed signer {signer.short}): altered after "
                             "signing, stored under another key, or forged")
    blob = memoryview(message)[len(MAGIC) + len(key.encode()) + 1 + LENGTH_BYTES + size:]
    return Entry(key, content, blob, signer)


def _header(key: str, header_bytes: bytes) -> tuple[PublicKey, dict[str, Any]]:
    """The signer the header claims and the content, once the header is the JSON an
    entry's is (checked before the signature: the signature names no signer itself)."""
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
    return PublicKey(raw, "a remote entry's signature"), header["content"]
