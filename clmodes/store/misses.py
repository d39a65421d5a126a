"""Why the store had nothing for a kernel or a tune key: the reason a miss reports.

Asked only when a miss is listened for (`clmodes.execution.misses`): each answer is a few
queries over the index, not something a launch path pays. A kernel's reason compares it
with what the store holds under the same name (the `kernel_identity` table records, for
each kernel persisted here, the parts its key is made of, so "its define N changed (4 ->
8)" can be said instead of "another identity"); a key's compares it with the decisions
stored for its tunable. The table is local to a store: bundles never carry it.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from clmodes.device import Device, differing_fields, fingerprint_fields, model_of
from clmodes.execution import misses
from clmodes.execution.misses import Miss, MissKind
from clmodes.kernel import Kernel
from clmodes.store.schema import FORMAT_VERSION
from clmodes.store.transactions import Database

Descriptor = dict[str, Any]
"""The parts of a kernel's identity: name, source digest, defines, options, includes."""

SHOWN = 3  # models or keys named in a reason


def put_identities(db: Database, exact: str, kernels: list[tuple[str, str, Descriptor]]) -> None:
    for key, name, descriptor in kernels:
        db.write("INSERT OR REPLACE INTO kernel_identity VALUES (?, ?, ?, ?)",
                 (exact, key, name, json.dumps(descriptor, sort_keys=True)))


def why_kernel_missed(db: Database, exact: str, key: str, name: str,
                      descriptor: Descriptor) -> str:
    if not db.query("SELECT 1 FROM kernels LIMIT 1"):
        return "the store holds no binaries (nothing was warmed or imported into it)"
    namesakes = db.query("SELECT kernel_key FROM kernels WHERE exact=? AND name=?", (exact, name))
    if namesakes:
        return (f"no binary of it as it is now; the stored {name!r} differs in "
                f"{_changes(db, exact, namesakes, descriptor)}")
    elsewhere = [e for (e,) in db.query("SELECT exact FROM kernels WHERE kernel_key=?", (key,))]
    if elsewhere:
        return _stored_elsewhere(exact, elsewhere[0])
    models = sorted({model_of(e) for (e,) in db.query("SELECT DISTINCT exact FROM kernels")})
    if model_of(exact) in models:
        return "no entry for this kernel on this device (others of its were stored)"
    return f"no entry for this device model (binaries are stored for {_some(models)})"


def _stored_elsewhere(exact: str, other: str) -> str:
    fields = differing_fields(exact, other)
    if model_of(other) == model_of(exact):
        theirs = fingerprint_fields(other)
        named = [theirs[f] if theirs[f].startswith(f) else f"{f} {theirs[f]}" for f in fields]
        return "stored for another driver (" + ", ".join(named) + ")"
    return f"stored for another device model ({model_of(other)})"


def _changes(db: Database, exact: str, namesakes: list[tuple[Any, ...]],
             descriptor: Descriptor) -> str:
    """What differs between the kernel and the newest recorded namesake."""
    keys = [k for (k,) in namesakes]
    marks = ",".join("?" * len(keys))
    rows = db.query(f"SELECT identity FROM kernel_identity WHERE exact=? AND kernel_key IN ({marks})",  # noqa: S608
                    (exact, *keys))
    for (text,) in rows[-1:]:
        try:
            stored = json.loads(text)
        except ValueError:
            break
        if isinstance(stored, dict):
            return describe_changes(stored, descriptor) or "nothing it records"
    return "its source, defines, options or included files"


def describe_changes(stored: Descriptor, now: Descriptor) -> str:
    """"define N (4 -> 8); an included file" — each part that differs, named."""
    changes = []
    old, new = stored.get("defines") or {}, now.get("defines") or {}
    for name in sorted(set(old) | set(new)):
        if old.get(name) != new.get(name):
            changes.append(f"define {name} ({old.get(name, 'unset')} -> {new.get(name, 'unset')})")
    if stored.get("source") != now.get("source"):
        changes.append(f"its source text ({_short(stored.get('source'))} -> "
                       f"{_short(now.get('source'))})")
    if stored.get("options") != now.get("options"):
        changes.append(f"build options ({' '.join(stored.get('options') or []) or 'none'} -> "
                       f"{' '.join(now.get('options') or []) or 'none'})")
    if stored.get("includes") != now.get("includes"):
        changes.append("a file it includes")
    return "; ".join(changes)


def _short(digest: object) -> str:
    """A source digest as a line names it: 12 hex digits, enough to tell texts apart."""
    return str(digest)[:12] if digest else "unknown"


def report_kernel_misses(db: Database, device: Device, kernels: list[Kernel]) -> None:
    """Report each kernel about to be built from source as a miss, its reason asked of
    the store only if someone listens (`clmodes.execution.misses`); raises
    `StrictMissError` at the first one under `CLMODES_STRICT=1`."""
    exact = device.fingerprint.exact
    for kernel in kernels:
        misses.report(functools.partial(_kernel_miss, db, exact, device.label, kernel))


def _kernel_miss(db: Database, exact: str, label: str, kernel: Kernel) -> Miss:
    why = why_kernel_missed(db, exact, kernel.key, kernel.name, kernel.descriptor())
    return Miss(MissKind.KERNEL, kernel.name, label, why)


def why_tune_missed(db: Database, model: str, tunable: str, key: str, candidates: str,
                    bucketed: tuple[str, ...] = ()) -> str:
    """`bucketed`: the key fields the tunable buckets, so that a key stored for the same
    other sizes but another range of a bucketed one is named as another shape bucket."""
    rows = db.query("SELECT format, model, tune_key, candidates FROM tune WHERE tunable=?",
                    (tunable,))
    if not rows:
        return "no decision is stored for this tunable (nothing was warmed or imported)"
    mine = [r for r in rows if r[1] == model]
    if not mine:
        return f"no decision for this device model (decisions are stored for {_some(sorted({r[1] for r in rows}))})"
    same_key = [r for r in mine if r[2] == key]
    if not same_key:
        keys = sorted({r[2] for r in mine})
        bucket = _other_bucket(key, keys, bucketed)
        if bucket:
            return bucket
        return (f"another shape: decisions are stored for {len(keys)} other key(s) of it on "
                f"this model ({_some(keys)})")
    if all(r[0] != FORMAT_VERSION for r in same_key):
        return (f"stored in another clmodes store format ({same_key[0][0]}; this clmodes "
                f"reads {FORMAT_VERSION})")
    if all(r[3] != candidates for r in same_key):
        return "its candidates or space changed since the decision was stored"
    return "its stored decision does not hold for the code as it is now"


def _other_bucket(key: str, stored: list[str], bucketed: tuple[str, ...]) -> str | None:
    """"another shape bucket (M 65..128 here; decisions are stored for M 33..64)" when a
    stored key has every unbucketed field of this one, else None. Named by the stored
    keys nearest this one (fewest bucketed fields differing), and only what differs."""
    mine = _parsed(key)
    if not bucketed or mine is None:
        return None
    fixed = {f: v for f, v in mine.items() if f not in bucketed}
    differing = []
    for other in map(_parsed, stored):
        if other is not None and {f: v for f, v in other.items() if f not in bucketed} == fixed:
            differing.append((other, [f for f in bucketed if other.get(f) != mine.get(f)]))
    if not differing:
        return None
    fewest = min(len(fields) for _, fields in differing)
    nearest = [(other, fields) for other, fields in differing if len(fields) == fewest]
    fields = sorted({f for _, fs in nearest for f in fs}, key=bucketed.index)
    here = " ".join(f"{f} {mine.get(f)}" for f in fields)
    there = _some(sorted({" ".join(f"{f} {o.get(f)}" for f in fields) for o, _ in nearest}))
    return f"another shape bucket ({here} here; decisions are stored for {there})"


def _parsed(key: str) -> dict[str, Any] | None:
    try:
        value = json.loads(key)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _some(items: list[str]) -> str:
    shown = ", ".join(items[:SHOWN])
    return shown + (f" and {len(items) - SHOWN} more" if len(items) > SHOWN else "")
