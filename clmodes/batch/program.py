"""A batch: the units built by one `Program.build`, and how a queue is cut into batches.

`plan()` turns the queued kernels into builds:
- units that can batch, grouped by the build options that still matter once they are
  preprocessed (`compile_options`), cut into batches of at most `max_units` units (the
  size past which one build stops paying on that runtime; `BatchLimits`);
- each unit that cannot batch, alone, from its own text (`PreparedUnit.reason`).
Every batch of a queue is built back to back by the first obtain.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Callable, Iterable

from clmodes.batch.costs import ALL_ENV, too_costly
from clmodes.batch.predefined import CompilerMacros
from clmodes.batch.symbols import raw_typedefs
from clmodes.batch.tokens import tokenize
from clmodes.batch.unit import Ask, PreparedUnit, Unit, prepare, settle
from clmodes.includes import included_files
from clmodes.kernel import Kernel, compile_options

# Bump when the text a batch renders changes: a stored binary of an older rendering is
# then never taken for this one.
RENDERING = "clmodes-batch-3"


@dataclasses.dataclass(frozen=True)
class Batch:
    """Units built together with one `Program.build` and one set of options."""

    units: tuple[PreparedUnit, ...]
    options: tuple[str, ...]
    renamed: bool = True  # False: one unit, built alone from its own text

    @classmethod
    def of(cls, units: Iterable[PreparedUnit], options: tuple[str, ...]) -> "Batch":
        ordered = sorted({u.unit_key: u for u in units}.values(), key=lambda u: u.unit_key)
        return cls(tuple(ordered), options)

    @classmethod
    def alone(cls, unit: PreparedUnit) -> "Batch":
        return cls((unit,), unit.unit.options, renamed=False)

    @property
    def keys(self) -> list[str]:
        return [u.unit_key for u in self.units]

    @property
    def source(self) -> str:
        if not self.renamed:
            return self.units[0].unit.render_alone()
        texts: list[str] = []
        held: set[str] = set()
        for u in self.units:
            if u.text is None:
                continue
            if u.prefix is not None and u.prefix.identity not in held:  # one copy each
                held.add(u.prefix.identity)
                texts.append(u.prefix.text)
            texts.append(u.text)
        return "\n".join(texts)

    @property
    def content_hash(self) -> str:
        """Identity of the batch: its units, options and form (not their order of arrival)."""
        form = "renamed" if self.renamed else "alone"
        parts = "\0".join([RENDERING, form, *self.keys, *self.options])
        return hashlib.sha256(parts.encode()).hexdigest()

    def entry(self, kernel: Kernel) -> str:
        """The kernel's entry point in this batch's program."""
        return kernel.entry_name if self.renamed else kernel.name

    def aliases(self, unit_key: str) -> dict[str, str | None]:
        """A unit's typedefs (name -> type; None where its `#if` branches disagree)."""
        return next((dict(u.aliases) for u in self.units if u.unit_key == unit_key), {})

    def subset(self, keys: set[str]) -> "Batch":
        return Batch(tuple(u for u in self.units if u.unit_key in keys), self.options, self.renamed)

    def without(self, keys: Iterable[str]) -> "Batch":
        dropped = set(keys)
        return Batch(tuple(u for u in self.units if u.unit_key not in dropped), self.options, self.renamed)

    def isolating(self, blamed: Iterable[str]) -> list["Batch"]:
        """After a failed build: each blamed unit alone, the rest together (alone if one).
        The one rule for a local build (`server`) and an offline one (`offline.targets`)."""
        named = set(blamed)
        rest = self.without(named)
        parts = [Batch.alone(u) for u in self.units if u.unit_key in named]
        if len(rest.units) > 1:
            parts.append(rest)
        elif rest.units:
            parts.append(Batch.alone(rest.units[0]))
        return parts

    def halves(self) -> tuple["Batch", "Batch"]:
        mid = len(self.units) // 2
        return (Batch(self.units[:mid], self.options, self.renamed),
                Batch(self.units[mid:], self.options, self.renamed))


def _preprocessed(unit: Unit, alone: bool) -> bool:
    """A unit alone under its build options in the queue builds alone from its own text
    whatever preprocessing says, so it is preprocessed only when it has typedefs (a
    launch converting a Python scalar for `real_t` needs the active branch's, through
    macros and headers: `typedef REAL real_t`, `#include "types.h"`): on a big unit
    without any (clpeak's kernels) preprocessing is a real part of its build (docs/decisions/batch-scouts.md)."""
    return not alone or "#include" in unit.source or bool(_typedefs(unit))


def _prepared(unit: Unit, macros: CompilerMacros | None) -> PreparedUnit:
    if macros is None:
        # No typedef anywhere: argument info names only builtin types, nothing to settle.
        return PreparedUnit(unit, None, "the only unit of its build options in the queue", ())
    return prepare(unit, macros)


def _typedefs(unit: Unit) -> dict[str, str | None]:
    """The unit's typedefs in any branch; a text without the word `typedef` has none
    without being tokenized: tokenizing a big unit (clpeak's kernels) is a real part of
    its build, for nothing."""
    text = unit.render_alone()
    return raw_typedefs(tokenize(text)) if "typedef" in text else {}


def _too_costly(unit: Unit, cost_s: float, fixed_s: float) -> PreparedUnit:
    """A unit whose preparation costs more than batching it saves (`batch.costs`): built
    alone from its own text, never preprocessed. Its typedefs are read from its text and
    its headers' unpreprocessed (`raw_typedefs`: a name typedef'd differently in two
    branches is left unknown, never guessed)."""
    files, _size = included_files(unit.source, unit.options, dict(unit.defines))
    aliases = merged_typedefs([unit.render_alone(), *(_read_text(path) for path in files)])
    reason = (f"preparing it would cost about {cost_s:.2f} s, batching saves at most "
              f"{fixed_s:.2f} s (${ALL_ENV}=1 batches it anyway)")
    return PreparedUnit(unit, None, reason, tuple(aliases.items()))


def merged_typedefs(texts: list[str]) -> dict[str, str | None]:
    """`raw_typedefs` of the texts, each read once per process (`_text_typedefs`), merged
    by its rule: a name typedef'd to two different types, in one text or in two, is None.

    Why per text: the ten units of John the Ripper share 21 headers, and tokenizing each
    unit's text with all its headers joined took 0.45 of its first process's 0.5 s of
    preparation (all of batching's overhead over plain builds there). Read per file, a
    header starts a statement, as the compiler sees it once macros expand: joined, a
    header ending in a macro call without `;` (John's opencl_keccak.h) swallowed the next
    header's first typedef (`uint8_t`)."""
    found: dict[str, str | None] = {}
    for text in texts:
        for name, base in _text_typedefs(text).items():
            if base is None or (name in found and found[name] != base):
                found[name] = None
            else:
                found.setdefault(name, base)
    return found


@functools.lru_cache(maxsize=128)
def _text_typedefs(text: str) -> dict[str, str | None]:
    """One text's typedefs (no tokens without the word `typedef`). Callers never mutate
    the dict it returns: it is the cache's."""
    return raw_typedefs(tokenize(text)) if "typedef" in text else {}


def _read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def plan(
    kernels: Iterable[Kernel],
    macros_for: Callable[[tuple[str, ...]], CompilerMacros],
    max_units: int,
    ask: Ask | None = None,
    fixed_s: float | None = None,
) -> list[Batch]:
    """The builds that obtain `kernels`: batches of at most `max_units`, then the units
    that must build alone. `ask`: the device's compiler, for the predefined names some
    units read (`compiler_probe`): one probe per options and round serves the whole
    queue, and each unit is prepared once, with the last answers (`settle`). `fixed_s`:
    one build's fixed cost on the device (`limits.build_fixed_s`); a unit whose
    preparation would cost more than that builds alone unprepared (`batch.costs`; None:
    every unit that can batch is prepared)."""
    units = {k.unit_key: Unit.of(k) for k in kernels}
    groups: dict[tuple[str, ...], list[PreparedUnit]] = {}
    alone: list[Batch] = []
    ordered = sorted(units.values(), key=lambda u: u.unit_key)
    costly = too_costly(ordered, fixed_s) if fixed_s is not None else {}
    sharing: dict[tuple[str, ...], int] = {}
    for unit in ordered:
        options = compile_options(unit.options)
        sharing[options] = sharing.get(options, 0) + 1
    preprocessed = [u for u in ordered if u.unit_key not in costly
                    and _preprocessed(u, sharing[compile_options(u.options)] == 1)]
    # Every unit prepared once, with the compiler's last answers (`settle`).
    settled = settle(preprocessed, macros_for, ask)
    prepared_units = {
        u.unit_key: _too_costly(u, costly[u.unit_key], fixed_s or 0.0) if u.unit_key in costly
        else _prepared(u, settled.get(u.unit_key)) for u in ordered}
    for unit in ordered:
        prepared = prepared_units[unit.unit_key]
        if prepared.batchable:
            groups.setdefault(compile_options(unit.options), []).append(prepared)
        else:
            alone.append(Batch.alone(prepared))
    batches: list[Batch] = []
    for options, members in groups.items():
        if len(members) == 1:  # one unit gains nothing from renaming: build its own text
            alone.append(Batch.alone(members[0]))
            continue
        for start in range(0, len(members), max_units):
            chunk = members[start : start + max_units]
            batches.append(Batch.of(chunk, options) if len(chunk) > 1 else Batch.alone(chunk[0]))
    return batches + alone
