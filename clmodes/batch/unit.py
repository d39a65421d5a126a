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
import hashlib
import logging
import re
from collections.abc import Callable, Sequence

from clmodes.batch.predefined import CompilerMacros
from clmodes.batch.preprocess import Preprocessed, SharedPrefix, preprocess, scout
from clmodes.batch.rename import join, rename, segments
from clmodes.batch.symbols import declared, program_state, raw_typedefs
from clmodes.batch.tokens import Kind, Token, significant, tokenize
from clmodes.kernel import Kernel, unit_suffix

log = logging.getLogger("clmodes")

_LINE = re.compile(r'^#line (\d+) "([^"\n]*)"', re.M)
TAG = re.compile(r"clmodes-([0-9a-f]{12})")


def macro_name(define: str) -> str:
    """`MAP` of a function-like define `MAP(x)`; a plain define's own name."""
    return define.split("(", 1)[0]


@dataclasses.dataclass(frozen=True)
class Unit:
    """One source with one set of defines and options: what a batch wraps and renames."""

    source: str
    defines: tuple[tuple[str, str | None], ...]
    options: tuple[str, ...]
    unit_key: str
    includes: str | None = None  # `Kernel.includes`: an edited header preprocesses again

    @classmethod
    def of(cls, kernel: Kernel) -> "Unit":
        return cls(kernel.source, kernel.defines, kernel.options, kernel.unit_key, kernel.includes)

    @property
    def suffix(self) -> str:
        return unit_suffix(self.unit_key)

    @property
    def tag(self) -> str:
        """The file name its `#line` directives give it inside a batch."""
        return f"clmodes-{self.unit_key[:12]}"

    def define_lines(self, only: frozenset[str] | None = None) -> list[str]:
        """Its defines (those whose macro name is in `only`, if given) as `-D` would make
        them (`-D FOO` defines FOO as 1)."""
        return [f"#define {name} {'1' if value is None else value}" for name, value in self.defines
                if only is None or macro_name(name) in only]

    def render_alone(self) -> str:
        """The source as plain pyopencl would build it (defines first, user's line numbers)."""
        return "\n".join([*self.define_lines(), "#line 1", self.source]) + "\n"


@dataclasses.dataclass(frozen=True)
class PrefixBlock:
    """The output of a shared include prefix, renamed with a suffix of its own: a batch
    holds it once, before the first of its units that continue from it, where each unit
    held its own copy (pyopencl's complex kernels: `pyopencl-complex.h` compiled once
    per batch, not once per kernel)."""

    identity: str  # digest of the prefix's output: equal outputs are one block
    text: str


@dataclasses.dataclass(frozen=True)
class PreparedUnit:
    """A unit ready for a batch (`text`, after `prefix` where it has one), or to build
    alone (`reason` says why)."""

    unit: Unit
    text: str | None
    reason: str | None
    aliases: tuple[tuple[str, str | None], ...]  # typedef name -> type (None: ambiguous)
    # What only the compiler can answer, when that is all that kept it from batching.
    unknown: frozenset[str] = frozenset()
    prefix: PrefixBlock | None = None

    @property
    def unit_key(self) -> str:
        return self.unit.unit_key

    @property
    def batchable(self) -> bool:
        return self.text is not None


@dataclasses.dataclass(frozen=True)
class _Shape:
    """A preprocessed, renamable unit text, shared by every unit it serves."""

    parts: list[str]  # `rename.segments`, with `_PLACEHOLDER` for the unit's tag
    resets: tuple[str, ...]
    identifiers: frozenset[str]  # every name renamed, the prefix's included
    typedefs: tuple[tuple[str, str], ...]
    prefix: "_PrefixShape | None" = None  # the text is only what follows it

    @property
    def block(self) -> "PrefixBlock | None":
        """The prefix's one copy that the rendered text follows, if any."""
        return self.prefix.block if self.prefix else None

    def render(self, unit: Unit, framed: tuple[list[str], list[str]] = ([], [])) -> str:
        before, after = framed
        prefix = self.prefix
        foreign, foreign_suffix = (prefix.identifiers, prefix.suffix) if prefix else ((), "")
        body = join(self.parts, unit.suffix, foreign, foreign_suffix)
        body = body.replace(_PLACEHOLDER, unit.tag).rstrip("\n")
        # The prefix's pragma state, which the unit's resets undid after the last unit.
        pragmas = prefix.pragmas if prefix else ()
        return "\n".join([*pragmas, *before, f'#line 1 "{unit.tag}"', body, *self.resets,
                          *after]) + "\n"


_PLACEHOLDER = "clmodes-@unit@"
_PRAGMA = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+OPENCL\b.*$", re.M)


@dataclasses.dataclass(frozen=True)
class _PrefixShape:
    """A shared prefix's output, renamed once, and what its units' texts need of it."""

    block: PrefixBlock
    suffix: str
    identifiers: frozenset[str]  # what it declares: renamed with its suffix in the units
    words: frozenset[str]  # every identifier it reads or declares
    typedefs: tuple[tuple[str, str], ...]
    pragmas: tuple[str, ...]  # its `#pragma OPENCL` lines, in order


def _self_contained(tokens: list[Token]) -> bool:
    """Can one copy of this prefix output serve several units? It ends between
    declarations, defines no kernel (a kernel's entry name carries its unit's suffix) and
    no state a program may change (`symbols.program_state`)."""
    depth, last = 0, ""
    for token in significant(tokens):
        depth += {"{": 1, "(": 1, "[": 1, "}": -1, ")": -1, "]": -1}.get(token.text, 0)
        if depth < 0 or token.text in ("kernel", "__kernel"):
            return False
        last = token.text
    return depth == 0 and last in ("", ";", "}") and not program_state(tokens)


@functools.lru_cache(maxsize=64)
def _prefix_shape(text: str) -> _PrefixShape | None:
    identity = hashlib.sha256(text.encode()).hexdigest()
    tokens = tokenize(_tag_lines(text, f"clmodes-{identity[:12]}"))
    if not _self_contained(tokens):
        return None
    symbols = declared(tokens)
    identifiers = frozenset(symbols.identifiers)
    suffix = unit_suffix(identity)
    block = PrefixBlock(identity, rename(tokens, identifiers, suffix))
    words = frozenset(t.text for t in tokens if t.kind is Kind.IDENT)
    return _PrefixShape(block, suffix, identifiers, words, symbols.typedefs,
                        tuple(_PRAGMA.findall(text)))


def _resets(result: Preprocessed) -> tuple[str, ...]:
    resets = [f"#pragma OPENCL EXTENSION {name} : disable" for name in result.extensions]
    if result.fp_contract:
        resets.append("#pragma OPENCL FP_CONTRACT DEFAULT")
    return tuple(resets)


def _shape_of(result: Preprocessed, symbolic: frozenset[str] = frozenset()) -> _Shape:
    """The unit's renamable text: after its shared prefix's one copy where that can
    serve it (`_shared_shape`), else the whole of it."""
    if result.shared is not None:
        shared = _shared_shape(result, result.shared, symbolic)
        if shared is not None:
            return shared
    tokens = tokenize(_tag_lines(result.text or "", _PLACEHOLDER))
    symbols = declared(tokens)
    identifiers = frozenset(symbols.identifiers)
    return _Shape(segments(tokens, identifiers), _resets(result), identifiers, symbols.typedefs)


def _shared_shape(result: Preprocessed, shared: SharedPrefix,
                  symbolic: frozenset[str]) -> _Shape | None:
    """The rest of the unit after one copy of its prefix, or None where that copy could
    not be the unit's own: the rest declares a name the prefix declares too (a header's
    prototype, defined by the unit), or the prefix reads a define left symbolic (each
    variant's value is framed around its own text, not the shared prefix)."""
    prefix = _prefix_shape(shared.text)
    if prefix is None or prefix.words & symbolic:
        return None
    tokens = tokenize(_tag_lines(shared.rest, _PLACEHOLDER))
    symbols = declared(tokens)
    own = frozenset(symbols.identifiers)
    if own & prefix.identifiers:
        return None
    names = own | prefix.identifiers
    return _Shape(segments(tokens, names), _resets(result), names,
                  prefix.typedefs + symbols.typedefs, prefix)


@functools.lru_cache(maxsize=512)
def _symbolic_shape(
    source: str, names: frozenset[str], real: tuple[tuple[str, str | None], ...],
    options: tuple[str, ...], macros: CompilerMacros, includes: str | None = None,
) -> tuple[_Shape, frozenset[str]] | frozenset[str] | None:
    """One preprocessing for every variant of a source that differs only in defines its
    directives never read (`names`): they stay `#define`s in front of the unit (and
    `#undef`s after it), which the compiler expands exactly as it expands `-D`s; the
    defines that are read (`real`) are preprocessed with their values. Returns the shape,
    or the further names the directives read (try again with those real), or None."""
    result = preprocess(source, real, options, macros, symbolic=names, includes=includes)
    if result.text is None:
        return result.reads or None
    shape = _shape_of(result, names)
    if shape.identifiers & names:
        return None
    return shape, result.macros


# Per source: the define names its directives read, learnt once (a tunable's variants
# share them), so later variants preprocess once per distinct value of those.
_reads: dict[tuple[str, tuple[str, ...], CompilerMacros], frozenset[str]] = {}


def _symbolic(unit: Unit, macros: CompilerMacros) -> PreparedUnit | None:
    values = {macro_name(name): value for name, value in unit.defines}
    predefined = macros.as_dict()
    if any(macros.maybe_predefined(n) or n in predefined for n in values):
        return None
    memo = (unit.source, unit.options, macros)
    read = _reads.get(memo, frozenset())
    for _ in range(4):  # each round defines for real what the last one found read
        names = frozenset(values) - read
        if not names:
            return None
        real = tuple((n, v) for n, v in unit.defines if macro_name(n) in read)
        found = _symbolic_shape(unit.source, names, real, unit.options, macros, unit.includes)
        if found is None:
            return None
        if isinstance(found, frozenset):
            read = _reads[memo] = read | found
            continue
        return _framed(unit, found, names, macros)
    return None


def _framed(unit: Unit, found: tuple[_Shape, frozenset[str]], names: frozenset[str],
            macros: CompilerMacros) -> PreparedUnit | None:
    """The shared shape with the unit's symbolic defines in front and `#undef`s after."""
    shape, own_macros = found
    symbolic = [(n, v) for n, v in unit.defines if macro_name(n) in names]
    # A define whose value names one of the unit's macros or renamed identifiers must be
    # expanded before renaming: only a full preprocessing does that.
    used = {t.text for _, v in symbolic if v for t in tokenize(v) if t.kind is Kind.IDENT}
    if used & (own_macros | shape.identifiers):
        return None
    framed = (unit.define_lines(names), [f"#undef {macro_name(n)}" for n, _ in symbolic])
    aliases = dict(shape.typedefs)
    for name, value in symbolic:  # `-D REAL=float` with `typedef REAL real_t;`
        if value and name not in aliases and re.fullmatch(r"[A-Za-z_][\w ]*", value):
            aliases[name] = value.strip()
    return PreparedUnit(unit, shape.render(unit, framed), None, tuple(aliases.items()),
                        prefix=shape.block)


@functools.lru_cache(maxsize=2048)
def prepare(unit: Unit, macros: CompilerMacros) -> PreparedUnit:
    """The unit's batched form for a device with these predefined macros, or why not."""
    if unit.defines:
        symbolic = _symbolic(unit, macros)
        if symbolic is not None:
            return symbolic
    result = preprocess(unit.source, unit.defines, unit.options, macros, includes=unit.includes)
    if result.text is None:
        log.debug("unit %s builds alone: %s", unit.tag, result.reason)
        aliases = raw_typedefs(tokenize(unit.render_alone()))
        return PreparedUnit(unit, None, result.reason, tuple(aliases.items()), result.unknown)
    shape = _shape_of(result)
    return PreparedUnit(unit, shape.render(unit), None, shape.typedefs,
                        prefix=shape.block)


Ask = Callable[[tuple[str, ...], frozenset[str]], "CompilerMacros | None"]


def _wanted(unit: Unit, macros: CompilerMacros) -> frozenset[str]:
    return scout(unit.source, unit.defines, unit.options, macros, unit.includes)


def settle(units: Sequence[Unit], macros_for: Callable[[tuple[str, ...]], CompilerMacros],
           ask: Ask | None, rounds: int = 3) -> dict[str, CompilerMacros]:
    """Per unit key, the macros to prepare the unit with: its options' macros, with the
    compiler's answers (`ask`: options, names -> macros with their answers, or None) for
    what its conditionals read that only the compiler knows, asked once per options and
    round for every unit wanting some; each answer may open a branch that reads more,
    hence a few rounds. The rounds run on `scout`s, never on `prepare`: preparing a unit
    in full before each round (and throwing the text away) was most of a first obtain of
    John the Ripper's kernels, three preprocessings of their large headers per unit."""
    macros = {u.unit_key: macros_for(u.options) for u in units}
    if ask is None:
        return macros
    wanted = {u.unit_key: _wanted(u, macros[u.unit_key]) for u in units}
    for _ in range(rounds):
        wanting: dict[tuple[str, ...], set[str]] = {}
        for u in units:
            if wanted[u.unit_key]:
                wanting.setdefault(u.options, set()).update(wanted[u.unit_key])
        progressed = False
        for options, names in wanting.items():
            answered = ask(options, frozenset(names))
            if answered is None:
                continue
            for u in units:
                if u.options == options and wanted[u.unit_key]:
                    macros[u.unit_key] = answered
                    again = _wanted(u, answered)
                    progressed = progressed or again != wanted[u.unit_key]
                    if again != wanted[u.unit_key]:
                        log.debug("unit %s: the compiler answered %s%s", u.tag,
                                  ", ".join(sorted(wanted[u.unit_key] - again)),
                                  f"; it still asks {sorted(again)}" if again else "")
                    wanted[u.unit_key] = again
        if not progressed:
            break
    return macros


def prepare_asking(unit: Unit, macros: CompilerMacros, ask: Ask | None,
                   rounds: int = 3) -> PreparedUnit:
    """`prepare`, with the compiler's answers for what the unit's conditionals read that
    only it knows (`settle`): prepared once, with the last answers."""
    settled = settle([unit], lambda _options: macros, ask, rounds)
    return prepare(unit, settled[unit.unit_key])


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
