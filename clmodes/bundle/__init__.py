"""Cache bundles: store entries for one or more devices in one file, to ship to users.

`export` writes the store's entries (all, or one device model's) to a bundle; `install`
imports one (tune results for devices of the same model, binaries for the exact device
and driver; local entries win); `inspect` says what a bundle holds, who signed it and how
it would apply here; `merge` combines bundles made on different machines; `keygen` and
`sign` make and use ed25519 signing keys (`export` and `merge` sign with `sign=KEY`).
Importing binaries needs a signature by a trusted key (`trusted_keys=`, or
`allow_unsigned=True`).

Modules: `container` (the file: magic, manifest, checksum over every byte), `payload`
(the SQLite database of rows, binaries deduplicated), `manifest`, `validation` (every
entry checked before anything is used), `files` (a whole bundle written or read,
streamed), `limits` (the size a bundle may have), `poclbin` (a PoCL binary's files),
`matching` (a bundle's devices against this machine's), `signing` (keys, the signature
block), `trust` (trusted keys, the import policy), `loading` (the import's child-process
load check), and one module per operation (`exporting`, `installing`, `inspecting`,
`merging`). A bundle is hostile data until verified: nothing in it is unpickled, and its
binaries reach a driver in this process only after a trusted signature and a load in a
child process.
"""

from clmodes.bundle.container import MAGIC, MAX_MANIFEST_BYTES, MAX_PAYLOAD_BYTES, SCHEMA
from clmodes.bundle.errors import BundleError
from clmodes.bundle.exporting import export
from clmodes.bundle.files import Bundle, read, sign, write
from clmodes.bundle.inspecting import inspect
from clmodes.bundle.installing import install
from clmodes.bundle.matching import DeviceMatch, match_devices
from clmodes.bundle.merging import merge
from clmodes.bundle.signing import PublicKey, keygen, load_public_key
from clmodes.bundle.trust import trusted_keys, trusted_keys_dir

_write = write  # the name tests use to wrap arbitrary entries in a valid container

__all__ = [
    "MAGIC",
    "MAX_MANIFEST_BYTES",
    "MAX_PAYLOAD_BYTES",
    "SCHEMA",
    "Bundle",
    "BundleError",
    "DeviceMatch",
    "PublicKey",
    "export",
    "inspect",
    "install",
    "keygen",
    "load_public_key",
    "match_devices",
    "merge",
    "read",
    "sign",
    "trusted_keys",
    "trusted_keys_dir",
    "write",
]
