"""Ed25519 keys and the bundle's signature block.

A bundle's signature is a block *appended* after the payload:

    <the unsigned bundle: every byte of it>
    CLMODES-SIGNATURE\\n
    {"algorithm": "ed25519", "public_key": B64, "fingerprint": HEX, "signature": B64}\\n

The signature is over exactly the bytes before the block, and the block itself must be
byte for byte the one signing writes for its key and signature (one spelling: a `\n` or
`\r\n` appended, or JSON whitespace, is refused), so it covers every byte of the
bundle (magic, manifest as written, checksum, payload) and signing an existing file
never rewrites it: `bundle sign` replaces the block, an unsigned reader of an old
version sees the same container. The block carries the signer's public key, so that a
signature is checked *before* trust is asked about: a flipped byte anywhere (the bundle,
the key, the signature) is a bad signature, which is always refused, and cannot turn a
signed bundle into one "signed by someone else". Removing the block gives an unsigned
bundle, which the trust policy treats as such (`clmodes.bundle.trust`).

Keys: the private key is PKCS#8 PEM (mode 0600), the public key one OpenSSH line
(`ssh-ed25519 AAAA... clmodes`), the form people already paste into config files; a
PEM public key is read too. A key's fingerprint is the sha256 of its 32 raw bytes in
hex; it is shown by its first 16 digits.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import hashlib
import json
import os
from pathlib import Path

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from clmodes.bundle.errors import BundleError
from clmodes.bundle.limits import read_bounded

SIGNATURE_MAGIC = b"CLMODES-SIGNATURE\n"
MAX_BLOCK_BYTES = 1024  # a block is ~250 bytes; anything longer is not one
ALGORITHM = "ed25519"
SHORT = 16  # fingerprint digits shown
MAX_KEY_FILE_BYTES = 16 << 10


def fingerprint_of(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


@dataclasses.dataclass(frozen=True)
class PublicKey:
    """A signer's public key: its raw 32 bytes and where it came from (a file, a signature)."""

    raw: bytes
    source: str = ""

    @property
    def fingerprint(self) -> str:
        return fingerprint_of(self.raw)

    @property
    def short(self) -> str:
        return self.fingerprint[:SHORT]

    def verify(self, signature: bytes, data: bytes | memoryview) -> bool:
        try:
            Ed25519PublicKey.from_public_bytes(self.raw).verify(signature, data)
        except (InvalidSignature, ValueError):
            return False
        return True

    def openssh(self) -> str:
        key = Ed25519PublicKey.from_public_bytes(self.raw)
        return key.public_bytes(serialization.Encoding.OpenSSH,
                                serialization.PublicFormat.OpenSSH).decode() + " clmodes"


@dataclasses.dataclass(frozen=True)
class Signature:
    """A signature block that verified: who signed (`key`) and how far it covers."""

    key: PublicKey
    covers: int  # bytes of the file it covers: everything before the block


# -- keys ------------------------------------------------------------------------------


def keygen(path: str | os.PathLike[str]) -> PublicKey:
    """Write a new private key at `path` (mode 0600) and its public key at `path`.pub.
    Refuses to overwrite either: losing a signing key strands every user who trusts it."""
    path = Path(path)
    public_path = public_path_of(path)
    for target in (path, public_path):
        if target.exists() or target.is_symlink():
            raise BundleError(f"{target}: exists; keygen never overwrites a key")
    if not path.parent.is_dir():
        raise BundleError(f"{path}: the folder {path.parent} does not exist")
    private = Ed25519PrivateKey.generate()
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    public = PublicKey(private.public_key().public_bytes(serialization.Encoding.Raw,
                                                         serialization.PublicFormat.Raw),
                       str(public_path))
    _create(path, pem, 0o600)
    try:
        _create(public_path, (public.openssh() + "\n").encode(), 0o644)
    except BaseException:
        path.unlink()
        raise
    return public


def public_path_of(path: Path) -> Path:
    return path.with_name(path.name + ".pub")


def _create(path: Path, data: bytes, mode: int) -> None:
    """Write a new file (O_EXCL: never onto an existing one, nor through a link)."""
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except OSError as error:
        raise BundleError(f"{path}: cannot write ({error.strerror or error})") from error
    with os.fdopen(handle, "wb") as out:
        out.write(data)


def load_private_key(path: str | os.PathLike[str]) -> Ed25519PrivateKey:
    path = Path(path)
    data = read_bounded(path, MAX_KEY_FILE_BYTES, "private key")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm) as error:
        hint = " (that is the public key; sign with the private one)" if b"ssh-ed25519" in data else ""
        raise BundleError(f"{path}: not an unencrypted ed25519 private key{hint}") from error
    if not isinstance(key, Ed25519PrivateKey):
        raise BundleError(f"{path}: not an ed25519 private key")
    return key


def load_public_key(path: str | os.PathLike[str]) -> PublicKey:
    """An OpenSSH `ssh-ed25519 ...` line or a PEM public key."""
    path = Path(path)
    data = read_bounded(path, MAX_KEY_FILE_BYTES, "public key").strip()
    # Typed `object`: the loaders' union of key types grows with cryptography's releases
    # (a newer release added post-quantum key types to one loader and not the other, which
    # failed mypy), and only the isinstance check below matters.
    key: object
    try:
        if data.startswith(b"-----BEGIN PUBLIC KEY"):
            key = serialization.load_pem_public_key(data)
        else:
            key = serialization.load_ssh_public_key(data)
    except (ValueError, TypeError, UnsupportedAlgorithm, binascii.Error) as error:
        hint = " (that is a private key: trust its .pub)" if b"PRIVATE KEY" in data else ""
        raise BundleError(f"{path}: not an ed25519 public key{hint}") from error
    if not isinstance(key, Ed25519PublicKey):
        raise BundleError(f"{path}: not an ed25519 public key")
    return PublicKey(key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw),
                     str(path))


def public_key_of(private: Ed25519PrivateKey, source: str = "") -> PublicKey:
    return PublicKey(private.public_key().public_bytes(serialization.Encoding.Raw,
                                                       serialization.PublicFormat.Raw), source)


# -- the block -------------------------------------------------------------------------


def signature_block(private: Ed25519PrivateKey, data: bytes) -> bytes:
    """The block that signs `data` (an unsigned bundle's every byte)."""
    return block_of(public_key_of(private), private.sign(data))


def block_of(public: PublicKey, signature: bytes) -> bytes:
    """The one byte string that is the block of this key and signature."""
    fields = {
        "algorithm": ALGORITHM,
        "public_key": base64.b64encode(public.raw).decode(),
        "fingerprint": public.fingerprint,
        "signature": base64.b64encode(signature).decode(),
    }
    return SIGNATURE_MAGIC + json.dumps(fields, sort_keys=True).encode() + b"\n"


def check_block_shape(path: Path, block: bytes) -> None:
    """What follows the payload is nothing or a block of a block's shape (checked before
    the checksum is streamed: a bundle with a tail is refused without reading it)."""
    if not block:
        return
    if not block.startswith(SIGNATURE_MAGIC):
        shown = f"{len(block)}" if len(block) <= MAX_BLOCK_BYTES else f"more than {MAX_BLOCK_BYTES}"
        raise BundleError(f"{path}: bundle has {shown} unexpected trailing bytes")
    if len(block) > MAX_BLOCK_BYTES or not block.endswith(b"\n"):
        raise BundleError(f"{path}: damaged signature block")


def verify_block(path: Path, block: bytes, signed: bytes | memoryview) -> Signature | None:
    """The signature over `signed` (every byte before it) in `block`: None if there is
    no block (an unsigned bundle), a `BundleError` if the block is damaged or does not
    verify (never "unsigned": a bad signature is always refused)."""
    if not block:
        return None
    check_block_shape(path, block)
    key, signature = _parse_block(path, block[len(SIGNATURE_MAGIC):-1])
    if block != block_of(key, signature):
        # JSON and base64 read more than one spelling of the same block (whitespace,
        # a trailing newline, unused base64 bits): the file must be the one signed.
        raise BundleError(f"{path}: damaged signature block (not byte for byte as signing "
                          "writes it: trailing or changed bytes)")
    if not key.verify(signature, signed):
        raise BundleError(f"{path}: bad signature (claimed signer {key.short}): the bundle "
                          "was altered after signing, or the signature is forged")
    return Signature(key, len(signed))


def _parse_block(path: Path, text: bytes) -> tuple[PublicKey, bytes]:
    try:
        fields = json.loads(text)
        if not isinstance(fields, dict) or set(fields) != {"algorithm", "public_key",
                                                          "fingerprint", "signature"}:
            raise ValueError("unexpected fields")
        if fields["algorithm"] != ALGORITHM:
            raise ValueError(f"algorithm {str(fields['algorithm'])[:20]!r}")
        raw = base64.b64decode(fields["public_key"], validate=True)
        signature = base64.b64decode(fields["signature"], validate=True)
        if len(raw) != 32 or len(signature) != 64:
            raise ValueError("wrong key or signature length")
    except (ValueError, TypeError, UnicodeDecodeError, binascii.Error) as error:
        raise BundleError(f"{path}: damaged signature block ({error})") from error
    key = PublicKey(raw, "the bundle's signature")
    if fields["fingerprint"] != key.fingerprint:
        raise BundleError(f"{path}: bad signature (its fingerprint does not match its key)")
    return key, signature
