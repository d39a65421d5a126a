"""The names of entries on the remote, and the limits a reader holds them to.

    clmodes:1:kernel:<sha256(exact)[:32]>:<kernel key>   -> a kernel index entry
    clmodes:1:binary:<sha256(exact)[:32]>:<batch hash>   -> a program binary entry
    clmodes:1:tune:<sha256(format, tunable, key, candidates)> -> hash: model -> decision

Binaries and the kernel index are per exact device and driver, as in the store, so a
reader asks exactly for its own; a tune key's decisions are one hash because graded
matching (`clmodes.tune.answers.nearest`) needs every model's, and a reader asks by the key, not
by a model. The exact fingerprint is hashed into the name (it is long and holds spaces);
the entry inside repeats it in full and the signature covers both, so a renamed entry
never verifies. `1` is the layout's version: a changed layout is new names, never a
reinterpretation of old values.
"""

from __future__ import annotations

import hashlib
import json

PREFIX = "clmodes:1"
MAX_TUNE_ENTRY = 1 << 20  # a tune decision is a few KiB of JSON
MAX_KERNEL_ENTRY = 1 << 20  # a kernel index row: names and argument info
# A program binary's entry: `config.Bounds.max_entry` (256 MiB unless set lower).
MAX_MODELS = 256  # decisions read for one tune key
MAX_KERNELS = 4096  # kernel keys one binary entry may list


def _device(exact: str) -> str:
    return hashlib.sha256(exact.encode()).hexdigest()[:32]


def kernel_key(exact: str, kernel: str) -> str:
    return f"{PREFIX}:kernel:{_device(exact)}:{kernel}"


def binary_key(exact: str, batch: str) -> str:
    return f"{PREFIX}:binary:{_device(exact)}:{batch}"


def tune_key(format_version: int, tunable: str, key: str, candidates: str) -> str:
    named = json.dumps([format_version, tunable, key, candidates], separators=(",", ":"))
    return f"{PREFIX}:tune:{hashlib.sha256(named.encode()).hexdigest()}"


def field_key(group: str, field: str) -> str:
    """What a group's field is signed as: the group and the field, so that a decision
    moved to another key or another model never verifies."""
    return f"{group}#{field}"
