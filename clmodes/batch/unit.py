"""A unit (one source with one set of defines and options) and how it enters a batch.

`prepare()` decides, once per unit and device, between two forms:
- *batched*: preprocessed alone (`preprocess`), then every file-scope identifier renamed
  on the token stream (`rename`) with the unit's suffix, framed by a `#line 1
  "clmodes-<key>"` tag (so a failed batch's log names the failing units) and followed by
  resets of the file-scope pragma state it changed (`OPENCL EXTENSION ... : disable`,
  `OPENCL FP_CONTRACT DEFAULT`), so the next unit starts as it would alone;
- *alone*: its original text behind its `#define`s and a `#line 1`, built in a program of
  its own, exactly what plain pyopencl would build. Used when preprocessing cannot prove
  the batched form computes the same thing; the reason is logged at debug level.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import re

from clmodes.batch.predefined import CompilerMacros
from clmodes.batch.preprocess import preprocess
from clmodes.batch.rename import rename
from clmodes.batch.symbols import declared, raw_typedefs
from clmodes.batch.tokens import tokenize
from clmodes.kernel import Kernel, unit_suffix

log = logging.getLogger("clmodes")

_LINE = re.compile(r'^#line (\d+) "([^"\n]*)"', re.M)
TAG = re.compile(r"clmodes-([0-9a-f]{12})")


@dataclasses.dataclass(frozen=True)
class Unit:
    """One source with one set of defines and options: what a batch wraps and renames."""

    source: str
    defines: tuple[tuple[str, str | None], ...]
    options: tuple[str, ...]
    unit_key: str

    @classmethod
    def of(cls, kernel: Kernel) -> "Unit":
        return cls(kernel.source, kernel.defines, kernel.options, kernel.unit_key)

    @property
    def suffix(self) -> str:
        return unit_suffix(self.unit_key)

    @property
    def tag(self) -> str:
        """The file name its `#line` directives give it inside a batch."""
        return f"clmodes-{self.unit_key[:12]}"

    def render_alone(self) -> str:
        """The source as plain pyopencl would build it (defines first, user's line numbers)."""
        lines = [f"#define {name}" + ("" if value is None else f" {value}")
                 for name, value in self.defines]
        return "\n".join([*lines, "#line 1", self.source]) + "\n"


@dataclasses.dataclass(frozen=True)
class PreparedUnit:
    """A unit ready for a batch (`text`), or to build alone (`reason` says why)."""

    unit: Unit
    text: str | None
    reason: str | None
    aliases: tuple[tuple[str, str | None], ...]  # typedef name -> type (None: ambiguous)

    @property
    def unit_key(self) -> str:
        return self.unit.unit_key

    @property
    def batchable(self) -> bool:
        return self.text is not None


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


@functools.lru_cache(maxsize=2048)
def prepare(unit: Unit, macros: CompilerMacros) -> PreparedUnit:
    """The unit's batched form for a device with these predefined macros, or why not."""
    result = preprocess(unit.source, unit.defines, unit.options, macros)
    if result.text is None:
        log.debug("unit %s builds alone: %s", unit.tag, result.reason)
        aliases = raw_typedefs(tokenize(unit.render_alone()))
        return PreparedUnit(unit, None, result.reason, tuple(aliases.items()))
    tokens = tokenize(_tag_lines(result.text, unit.tag))
    symbols = declared(tokens)
    body = rename(tokens, frozenset(symbols.identifiers), unit.suffix)
    resets = [f"#pragma OPENCL EXTENSION {name} : disable" for name in result.extensions]
    if result.fp_contract:
        resets.append("#pragma OPENCL FP_CONTRACT DEFAULT")
    text = "\n".join([f'#line 1 "{unit.tag}"', body.rstrip("\n"), *resets]) + "\n"
    return PreparedUnit(unit, text, None, symbols.typedefs)


def _tag_lines(text: str, tag: str) -> str:
    """Name every file of the unit after the unit: `#line 7 "clmodes-<key>"` for its own
    source, `#line 3 "clmodes-<key>/scale.h"` for a header."""
    def retag(match: re.Match[str]) -> str:
        path = match.group(2)
        name = tag if path == "<unit>" else f"{tag}/{path.rsplit('/', 1)[-1]}"
        return f'#line {match.group(1)} "{name}"'
    return _LINE.sub(retag, text)


def failing_units(build_log: str, keys: list[str]) -> list[str]:
    """The unit keys a failed batch's log blames for an error (by their `#line` tags)."""
    prefixes = {key[:12]: key for key in keys}
    blamed: dict[str, None] = {}
    for line in build_log.splitlines():
        match = TAG.search(line)
        if match and "error" in line.lower() and match.group(1) in prefixes:
            blamed[prefixes[match.group(1)]] = None
    return list(blamed)
