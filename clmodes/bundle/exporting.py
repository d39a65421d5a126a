"""`export`: the store's entries, all or one device model's (or those used since a
moment), written to a bundle."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Any

from clmodes.bundle.compiling import compiled
from clmodes.bundle.errors import BundleError
from clmodes.bundle.files import SigningKey, write
from clmodes.runtime import client
from clmodes.store import Store
from clmodes.runtime import default_store


def export(path: str | os.PathLike[str], device: object = None, store: Store | None = None,
           *, sign: SigningKey | None = None,
           since: float | datetime | None = None) -> dict[str, Any]:
    """Write the store's entries (all, or one device model's) to a bundle, signed with the
    private key `sign` (a key file or an `Ed25519PrivateKey`) if given; return its manifest.
    `since` (a POSIX time or a datetime): only the entries used or created at or after it
    (a binary with its kernel index), so a team ships what its workloads use now."""
    model = client(device).device.fingerprint.model if device is not None else None
    store = store or default_store()
    moment = since.timestamp() if isinstance(since, datetime) else since
    entries = store.entries(model, since=moment)
    if not (entries.tune or entries.binaries):
        where = f" for {model}" if model else ""
        when = (f" used since {datetime.fromtimestamp(moment).isoformat(timespec='seconds')}"
                if moment is not None else "")
        raise BundleError(f"nothing to export{where}: the store at "
                          f"{store.location} holds no entries{when} (run `clmodes warm` first)")
    return write(Path(path), compiled(entries, store), sign)
