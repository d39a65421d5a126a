"""Cache bundles: store entries for one or more devices in one file, to ship to users.

`export` writes the store's entries (all, or one device model's) to a bundle; `install`
imports one (tune results for devices of the same model, binaries for the exact device
and driver; local entries win); `inspect` says what a bundle holds and how it would
apply here; `merge` combines bundles made on different machines.

Modules: `container` (the file: magic, manifest, checksum over every byte), `payload`
(the SQLite database of rows, binaries deduplicated), `manifest`, `validation` (every
entry checked before anything is used), `files` (a whole bundle written or read),
`matching` (a bundle's devices against this machine's), and one module per operation
(`exporting`, `installing`, `inspecting`, `merging`). A bundle is data only: nothing in
it is executed or unpickled.
"""

from clmodes.bundle.container import MAGIC, MAX_MANIFEST_BYTES, MAX_PAYLOAD_BYTES, SCHEMA
from clmodes.bundle.errors import BundleError
from clmodes.bundle.exporting import export
from clmodes.bundle.files import Bundle, read, write
from clmodes.bundle.inspecting import inspect
from clmodes.bundle.installing import install
from clmodes.bundle.matching import DeviceMatch, match_devices
from clmodes.bundle.merging import merge

_write = write  # the name tests use to wrap arbitrary entries in a valid container

__all__ = [
    "MAGIC",
    "MAX_MANIFEST_BYTES",
    "MAX_PAYLOAD_BYTES",
    "SCHEMA",
    "Bundle",
    "BundleError",
    "DeviceMatch",
    "export",
    "inspect",
    "install",
    "match_devices",
    "merge",
    "read",
    "write",
]
