"""A team's shared cache: a remote tier behind the local store, read-through and signed.

`$CLMODES_REMOTE=redis://HOST:PORT/DB` (or `rediss://` for TLS; `configure(url)` from
Python) puts a remote behind every store of the process: a local miss reads through it
(binaries by exact device, tune results by key, graded as bundles' are), and what
verifies is kept locally with its origin, "remote". `warm` and `fleet warm` publish what
they persisted when a signing key is given (`--sign KEY`, `$CLMODES_SIGNING_KEY`).
Reads follow the bundle trust policy. The remote is hostile data and may be down: see
docs/remote.md.

Modules: `config` (the URL, the bounds in time and memory, the environment), `interface` (`Remote`: get
and put of signed entries), `redis_remote` (the Redis implementation, bounded), `layout`
(entry names and limits), `entry` (an entry as bytes, its signature), `reading` (the
read-through tier), `publishing`, and `active` (the process's remote).
"""

from clmodes.remote.active import (configure, current, from_environment, publish_devices,
                                    publish_entries, status)
from clmodes.remote.config import Bounds, RemoteError
from clmodes.remote.interface import Refused, Remote
from clmodes.remote.publishing import Published
from clmodes.remote.reading import RemoteTier

__all__ = ["Bounds", "Published", "Refused", "Remote", "RemoteError", "RemoteTier", "configure",
           "current", "from_environment", "publish_devices", "publish_entries", "status"]
