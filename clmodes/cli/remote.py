"""The remote as the command sets it up: `$CLMODES_REMOTE` with the verb's trust flags.

The library makes the remote from the environment by itself at the first miss, with
one warning for a URL that does not parse or redis-py missing (a run is never failed by
its cache). The command is stricter where a person typed something: such a remote is a
one-line error naming what is wrong (the URL, or the `[remote]` extra), exit 2, and the
verb's `--trust KEY.pub` and `--allow-unsigned` apply to what it reads.
"""

from __future__ import annotations

import argparse

from clmodes import remote
from clmodes.remote.config import from_environment


def configure_remote(args: argparse.Namespace) -> None:
    """Configure the process's remote from `$CLMODES_REMOTE` (nothing if unset)."""
    url = from_environment()  # RemoteError: one line
    if url is None:
        return
    remote.configure(url.url, trusted_keys=getattr(args, "trust", []) or [],
                     allow_unsigned=bool(getattr(args, "allow_unsigned", False)))
