"""`Kernel`: the identity of one OpenCL kernel (source, entry name, defines, options, and
the content of every file its source includes).

Identity is a value, not an object: two `Kernel`s built from equal parts are the same
kernel, obtained once per device. `-D` options are folded into the defines so that
`Kernel(src, "k", options=["-DN=4"])` and `Kernel(src, "k", defines={"N": 4})` are one
kernel, and so that only options that cannot be written as `#define`s split batches.
What the source includes is identity too (`includes`): a header edited under an unchanged
source is another kernel, so a store never serves the binary of the old text.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import re
import shlex
from collections.abc import Iterable, Mapping
from typing import Union

from clmodes.includes import included_digest

DefineValue = Union[str, int, float, bool, None]

# `-D N=4`, and function-like `-D 'MAP(x)=((x)*2)'` as compilers accept it.
_MACRO_NAME = re.compile(r"[A-Za-z_]\w*(\(\s*(?:[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)?\s*\))?")


def _define_text(value: DefineValue) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def split_options(options: Iterable[str] | str) -> tuple[dict[str, str | None], tuple[str, ...]]:
    """Separate `-D NAME[=VALUE]` options (returned as defines) from the rest."""
    tokens = shlex.split(options) if isinstance(options, str) else list(options)
    defines: dict[str, str | None] = {}
    rest: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == "-D" and i + 1 < len(tokens):
            token, i = "-D" + tokens[i + 1], i + 1
        if token.startswith("-D") and len(token) > 2:
            name, sep, value = token[2:].partition("=")
            defines[name] = value if sep else None
        else:
            rest.append(token)
        i += 1
    return defines, tuple(rest)


@dataclasses.dataclass(frozen=True, init=False)
class Kernel:
    """One kernel: `Kernel(source, name, defines=None, options=())`."""

    source: str
    name: str
    defines: tuple[tuple[str, str | None], ...]
    options: tuple[str, ...]
    # A digest of the files the source includes, as they were when the kernel was made
    # (None: it includes nothing).
    includes: str | None = dataclasses.field(repr=False)

    def __init__(
        self,
        source: str,
        name: str,
        defines: Mapping[str, DefineValue] | None = None,
        options: Iterable[str] | str = (),
    ) -> None:
        if not isinstance(source, str) or not source.strip():
            raise ValueError(f"kernel {name!r}: source must be a non-empty string")
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"kernel name must be a C identifier, not {name!r}")
        option_defines, rest = split_options(options)
        merged = {**option_defines, **{k: _define_text(v) for k, v in (defines or {}).items()}}
        for define in merged:
            if not _MACRO_NAME.fullmatch(define):
                raise ValueError(f"kernel {name!r}: define {define!r} is not a C identifier "
                                 "(or a function-like macro such as 'MAP(x)')")
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "defines", tuple(sorted(merged.items())))
        object.__setattr__(self, "options", rest)
        includes = included_digest(source, rest, merged)
        object.__setattr__(self, "includes", includes)

    # The digests are computed at first read, not in `__init__`: a library defines
    # hundreds of kernels at import (kernels_cl: 228, two digests each) and a process
    # launches a few of them (docs/decisions/start-and-launch-floors.md).
    @functools.cached_property
    def unit_key(self) -> str:
        """The unit's digest: source, defines, options and included files' content.
        Without includes it is what it was before they counted: stores stay valid."""
        return _digest([self.source, self.defines, self.options]
                       + ([self.includes] if self.includes else []))

    @functools.cached_property
    def key(self) -> str:
        """The kernel's identity: its unit and its entry name."""
        return _digest([self.unit_key, self.name])

    def __hash__(self) -> int:
        return hash(self.key)

    @property
    def entry_name(self) -> str:
        """The entry point's name once renamed inside a batch."""
        return self.name + unit_suffix(self.unit_key)

    def descriptor(self) -> dict[str, object]:
        """The parts its key is made of, as data: what a miss compares to name the part
        that changed (a define's value, the source, options, included files)."""
        return {"name": self.name, "source": _digest([self.source])[:16],
                "defines": dict(self.defines), "options": list(self.options),
                "includes": self.includes}

    def with_defines(self, **defines: DefineValue) -> "Kernel":
        """The same kernel with more (or other) defines: a variant for a tunable."""
        merged: dict[str, DefineValue] = dict(self.defines)
        merged.update(defines)
        return Kernel(self.source, self.name, merged, self.options)


def unit_suffix(unit_key: str) -> str:
    """What batching appends to a unit's file-scope names (defined here, once)."""
    return f"__clm{unit_key[:12]}"


# A name as `unit_suffix` renamed it: drivers report renamed typedef and argument names.
RENAMED = re.compile(r"__clm[0-9a-f]{12}\b")


def _digest(parts: object) -> str:
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def compile_options(options: tuple[str, ...]) -> tuple[str, ...]:
    """What still matters to building a preprocessed unit: its includes are resolved, so
    `-I` no longer splits batches."""
    kept: list[str] = []
    skip = False
    for option in options:
        if skip:
            skip = False
        elif option == "-I":
            skip = True
        elif not option.startswith("-I"):
            kept.append(option)
    return tuple(kept)
