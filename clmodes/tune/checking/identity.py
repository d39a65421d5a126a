"""A candidate's identity: the kernels it launches, so a tune entry never outlives its code.

Tune entries used to be keyed by candidate *names*: edit a kernel body and a fresh
process reused the old winner, measuring nothing, so CI's "a warmed workload tunes
nothing" passed on a stale result. A candidate's identity is now a digest of the keys of
the kernels it launches for a key's arguments (`Kernel.key`: source, entry name, defines,
options, and the content of the files the source includes), read while the tune gathers
them. Each measurement is stored under it, and a stored decision is used only while
every candidate it measured still launches the same kernels: finding that costs one pass
over the candidates with launches dropped before they are even queued
(`Stream.identifying`), once per key per process, and never compiles a loser's kernels.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable, Mapping

from clmodes.measure import identify
from clmodes.stream import Stream

log = logging.getLogger("clmodes")

Candidate = Callable[..., object]
NOTHING = "nothing-launched"


def identity_of(kernel_keys: Iterable[str]) -> str:
    """The identity of a candidate that launched these kernels (order and repeats do not
    matter: a candidate that launches a kernel twice is the same code)."""
    keys = sorted(set(kernel_keys))
    if not keys:
        return NOTHING
    return hashlib.sha256("\n".join(keys).encode()).hexdigest()[:20]


def current_identity(candidate: Candidate, stream: Stream, args: tuple[object, ...]) -> str | None:
    """Which kernels `candidate` launches now (nothing queued or run); None if it raises."""
    try:
        return identity_of(identify(stream, lambda: candidate(stream, *args)))
    except Exception as error:  # noqa: BLE001 - a candidate that cannot run is not current
        log.debug("identifying a candidate failed: %s", error)
        return None


def stale_candidates(
    recorded: Mapping[str, str | None],
    candidate: Callable[[str], Candidate | None],
    stream: Stream,
    args: tuple[object, ...],
) -> list[str]:
    """The names among `recorded` (name -> identity when measured) that are no longer
    candidates or no longer launch what they launched when measured."""
    stale = []
    for name, identity in recorded.items():
        run = candidate(name)
        if run is None or identity is None or current_identity(run, stream, args) != identity:
            stale.append(name)
    return stale


def decision_problem(winner: str, identities: Mapping[str, str] | None,
                     lookup: Callable[[str], Candidate | None], stream: Stream,
                     args: tuple[object, ...]) -> str | None:
    """Why a stored decision does not hold for the code as it is now (None: it holds):
    its winner is gone, it records no identities, or candidates launch other kernels."""
    if lookup(winner) is None:
        return f"its winner {winner!r} is not a candidate"
    if identities is None or winner not in identities:
        return "it records no kernel identities (made by an older clmodes)"
    stale = stale_candidates(identities, lookup, stream, args)
    if stale:
        return f"{len(stale)} candidate(s) launch other kernels now (e.g. {stale[0]!r})"
    return None
