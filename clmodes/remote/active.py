"""The process's remote: configured once, from Python or from `$CLMODES_REMOTE`.

`configure(url, ...)` installs the read-through tier behind every store of the process
(`clmodes.store.tiers`); without a call, the first local miss makes one from
`$CLMODES_REMOTE` (the factory `clmodes/__init__.py` registers), so a process that never
misses never connects, and one with no remote configured pays one dictionary lookup.

The bounds (`config.Bounds`: a deadline per operation, a budget per process, the largest
entry read) come from `configure(bounds=...)`, else from the environment.

Never fatal to a run: a URL or bound that does not parse, or redis-py missing, is one warning (the
CLI and `configure` raise it as one line instead) and the run goes on local; trusted keys
that do not parse are an error of the trust list, as for a bundle import, which here
means one warning and no key trusted.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import threading
from collections.abc import Iterable
from typing import Any

from clmodes.bundle.compiling import shipped_row
from clmodes.bundle.errors import BundleError
from clmodes.bundle.trust import TrustedKey, trusted_keys
from clmodes.remote import config
from clmodes.remote.config import Bounds, RemoteError
from clmodes.remote.interface import Remote
from clmodes.remote.publishing import Published, SigningKey, publish, publishable
from clmodes.remote.reading import ReadPolicy, RemoteTier
from clmodes.remote.redis_remote import RedisRemote
from clmodes.store import Store, StoreEntries
from clmodes.store import tiers
from clmodes.device import model_of

log = logging.getLogger("clmodes")

_lock = threading.Lock()


@dataclasses.dataclass(frozen=True)
class Settings:
    """How the process reads its remote (what `configure` was given)."""

    trusted_keys: tuple[TrustedKey, ...] = ()
    allow_unsigned: bool = False
    load_check: bool = True
    bounds: Bounds | None = None  # None: `Bounds.from_environment()`


_settings = Settings()


def configure(url: str | Remote | None, *, trusted_keys: Iterable[TrustedKey] = (),
              allow_unsigned: bool = False, load_check: bool = True,
              bounds: Bounds | None = None) -> RemoteTier | None:
    """Read through (and publish to) the remote at `url` (`redis://HOST:PORT/DB`,
    `rediss://...`; a `Remote` object; None: no remote, whatever `$CLMODES_REMOTE` says).
    `trusted_keys` are trusted on top of `$CLMODES_TRUSTED_KEYS` and `trusted-keys/`;
    `allow_unsigned` uses tune results from untrusted signers (a warning; binaries never);
    `load_check=False` skips loading new binaries in a child first; `bounds` limits the
    time and memory the remote may cost (default: `$CLMODES_REMOTE_TIMEOUT_S`,
    `$CLMODES_REMOTE_BUDGET_S`, `$CLMODES_REMOTE_MAX_ENTRY`, else `Bounds()`). Raises
    `RemoteError` (one line) for a URL or bound that does not parse or redis-py missing."""
    global _settings
    with _lock:
        _settings = Settings(tuple(trusted_keys), allow_unsigned, load_check, bounds)
        limits = bounds or Bounds.from_environment()
        tier = None if url is None else _tier(url if isinstance(url, Remote) else
                                              RedisRemote(config.parse(url), limits), _settings,
                                              limits)
        tiers.install(tier)
        return tier


def from_environment() -> RemoteTier | None:
    """The tier `$CLMODES_REMOTE` names, or None (unset, or unusable: one warning)."""
    try:
        url = config.from_environment()
        if url is None:
            return None
        limits = _settings.bounds or Bounds.from_environment()
        return _tier(RedisRemote(url, limits), _settings, limits)
    except RemoteError as error:
        log.warning("%s; running on the local store only", error)
        return None


def _tier(remote: Remote, settings: Settings, bounds: Bounds) -> RemoteTier:
    try:
        trusted = trusted_keys(settings.trusted_keys)
    except BundleError as error:
        log.warning("clmodes remote %s: %s; trusting no key (no binary is read from it)",
                    remote.name, error)
        trusted = {}
    return RemoteTier(remote, ReadPolicy(trusted, settings.allow_unsigned), settings.load_check,
                      bounds.max_entry)


def current() -> RemoteTier | None:
    """The process's remote tier, made from the environment on first use; None if none."""
    tier = tiers.current()
    return tier if isinstance(tier, RemoteTier) else None


def publish_devices(store: Store, exacts: Iterable[str], key: SigningKey) -> Published | None:
    """Publish `store`'s entries for these exact devices (and their models) to the
    process's remote, signed with `key`; None when no remote is configured."""
    tier = current()
    if tier is None:
        return None
    exact_set = set(exacts)
    entries = store.entries()
    mine = publishable(entries, store.remote_tune_keys(), store.remote_batches())
    models = {model_of(e) for e in exact_set}
    mine.tune = [r for r in mine.tune if r.model in models]
    mine.binaries = [r for r in mine.binaries if r.exact in exact_set]
    mine.kernels = [r for r in mine.kernels if r.exact in exact_set]
    # Another machine's kernel cache holds no record's code: publish binaries, as a bundle
    # does, built only for what the remote lacks while it is up, and kept in the store.
    return publish(tier.remote, mine, key, tier.max_entry,
                   functools.partial(shipped_row, store=store))


def publish_entries(entries: StoreEntries, key: SigningKey) -> Published | None:
    """Publish entries that came from elsewhere already verified (a fleet's merged bundle)
    to the process's remote; None when no remote is configured."""
    tier = current()
    if tier is None:
        return None
    return publish(tier.remote, publishable(entries, set(), set()), key, tier.max_entry)


def status(store: Store) -> dict[str, Any] | None:
    """The remote as `clmodes cache info` shows it: where, reachable, what came from it."""
    tier = current()
    if tier is None:
        return None
    took = tier.remote.ping()
    return {"url": tier.remote.name, "reachable": took is not None,
            "round_trip_s": None if took is None else round(took, 6),
            "from_remote": store.remote_counts(), "read_this_process": tier.describe(),
            "trusted_keys": len(tier.policy.trusted)}
