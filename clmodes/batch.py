"""How queued kernels become one program source.

Every unit (one source with one set of defines) is wrapped so that many units live in
one translation unit without colliding:

    #define N 16                      <- the unit's defines
    #define matmul matmul__clm1a2b..  <- every file-scope identifier renamed
    #define helper helper__clm1a2b..
    ...the unit's source...
    #undef helper / #undef matmul / #undef N
    #undef TILE                       <- every macro the unit itself #defines

Renaming with the preprocessor, not by rewriting text, keeps the compiler's view of the
source exact (line numbers aside) and costs nothing to produce. Identifiers are found by
a small scanner over the source at brace depth zero: functions, typedefs, struct/union/
enum tags, enum constants and program-scope variables. Macros are never renamed (they
are `#undef`ed instead), since renaming a name the unit later `#define`s would redefine
the renaming macro.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import re
from collections.abc import Iterable, Sequence

from clmodes.kernel import Kernel

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_LITERAL = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M)
_DIRECTIVE = re.compile(r"^[ \t]*#[^\n]*", re.M)
_ATTRIBUTE = re.compile(r"__attribute__\s*\(\(")
_TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|\S")

# Words that are never the name being declared.
_RESERVED = frozenset(
    """
    auto break case char const constant continue default do double else enum extern float
    for global goto half if inline int kernel local long private register restrict return
    short signed sizeof static struct switch typedef union unsigned void volatile while
    bool size_t ptrdiff_t intptr_t uintptr_t uchar ushort uint ulong read_only write_only
    read_write image1d_t image2d_t image3d_t sampler_t event_t
    __global __local __constant __private __kernel __read_only __write_only __read_write
    __inline __restrict __generic generic __attribute__
    """.split()
)


@dataclasses.dataclass(frozen=True)
class UnitSymbols:
    """What a unit declares at file scope, and the macros it defines."""

    identifiers: tuple[str, ...]
    macros: tuple[str, ...]
    typedefs: tuple[tuple[str, str], ...] = ()  # (name, the type it names) for simple ones


def _blank(match: re.Match[str]) -> str:
    """Replace a comment or literal by spaces, keeping its newlines (and line numbers)."""
    return re.sub(r"[^\n]", " ", match.group(0))


def _strip_attributes(code: str) -> str:
    out, pos = [], 0
    for match in _ATTRIBUTE.finditer(code):
        if match.start() < pos:
            continue
        depth, i = 2, match.end()
        while i < len(code) and depth:
            depth += {"(": 1, ")": -1}.get(code[i], 0)
            i += 1
        out.append(code[pos : match.start()])
        pos = i
    out.append(code[pos:])
    return "".join(out)


def _top_level_statements(code: str) -> Iterable[tuple[list[str], list[list[str]]]]:
    """Yield (tokens at depth 0, token lists of each brace body at depth 1) per statement."""
    tokens = _TOKEN.findall(code)
    head: list[str] = []
    bodies: list[list[str]] = []
    depth = 0
    for token in tokens:
        if token == "{":
            depth += 1
            if depth == 1:
                bodies.append([])
                head.append("{}")
            continue
        if token == "}":
            depth -= 1
            if depth == 0 and _is_function(head):
                yield head, bodies
                head, bodies = [], []
            continue
        if depth == 0:
            if token == ";":
                yield head, bodies
                head, bodies = [], []
            else:
                head.append(token)
        elif depth == 1:
            bodies[-1].append(token)
    if head:
        yield head, bodies


def _is_function(head: list[str]) -> bool:
    """A definition `... name ( params ) {}` whose body just closed."""
    return len(head) >= 4 and head[-1] == "{}" and head[-2] == ")" and "=" not in head


def _is_name(token: str) -> bool:
    return (token[0].isalpha() or token[0] == "_") and token not in _RESERVED


def _declarators(head: list[str]) -> list[str]:
    """The names declared by a depth-0 statement that is not a function."""
    names: list[str] = []
    for i, token in enumerate(head[:-1]):
        if token in ("struct", "union", "enum") and _is_name(head[i + 1]):
            names.append(head[i + 1])
    part: list[str] = []
    stopped, parens = False, 0
    for token in head + [","]:
        parens += {"(": 1, ")": -1}.get(token, 0)
        if token == "," and parens == 0:
            candidates = [t for t in part if _is_name(t)]
            if candidates:
                names.append(candidates[-1])
            part, stopped = [], False
        elif token in ("=", "["):
            stopped = True  # an initializer or array bound follows the declared name
        elif not stopped:
            part.append(token)
    return names


def _simple_typedef(head: list[str]) -> list[tuple[str, str]]:
    """`typedef unsigned int count_t;` -> [("count_t", "unsigned int")]; nothing for
    structs, arrays, pointers or lists of names."""
    if len(head) < 3 or head[0] != "typedef":
        return []
    words = [t for t in head[1:] if t not in ("const", "volatile", "__const")]
    if not all(t[0].isalpha() or t[0] == "_" for t in words) or words[0] in ("struct", "union", "enum"):
        return []
    return [(words[-1], " ".join(words[:-1]))]


def _enum_constants(body: list[str]) -> list[str]:
    names, expect = [], True
    for token in body:
        if expect and _is_name(token):
            names.append(token)
        expect = token == ","
    return names


@functools.lru_cache(maxsize=512)
def scan(source: str) -> UnitSymbols:
    """Find a unit's file-scope identifiers and the macros it defines."""
    code = _COMMENT.sub(_blank, source.replace("\\\n", "  "))
    code = _LITERAL.sub(_blank, code)
    macros = list(dict.fromkeys(_DEFINE.findall(code)))
    code = _strip_attributes(_DIRECTIVE.sub("", code))
    names: list[str] = []
    typedefs: list[tuple[str, str]] = []
    for head, bodies in _top_level_statements(code):
        if "(" in head and ("=" not in head or head.index("(") < head.index("=")):
            before = head[: head.index("(")]
            if before and _is_name(before[-1]):
                names.append(before[-1])
            continue
        names.extend(_declarators(head))
        typedefs.extend(_simple_typedef(head))
        if "enum" in head:
            for body in bodies:
                names.extend(_enum_constants(body))
    macro_set = set(macros)
    identifiers = [n for n in dict.fromkeys(names) if n not in macro_set]
    return UnitSymbols(tuple(identifiers), tuple(macros), tuple(typedefs))


@dataclasses.dataclass(frozen=True)
class Unit:
    """One source with one set of defines: the thing a batch wraps and renames."""

    source: str
    defines: tuple[tuple[str, str | None], ...]
    unit_key: str

    @classmethod
    def of(cls, kernel: Kernel) -> "Unit":
        return cls(kernel.source, kernel.defines, kernel.unit_key)

    @property
    def suffix(self) -> str:
        return f"__clm{self.unit_key[:12]}"

    def render(self) -> str:
        symbols = scan(self.source)
        lines = [f"/* clmodes unit {self.unit_key[:12]} */"]
        for name, value in self.defines:
            lines.append(f"#define {name}" + ("" if value is None else f" {value}"))
        lines.extend(f"#define {n} {n}{self.suffix}" for n in symbols.identifiers)
        lines.append("#line 1")  # build logs then point at the user's own line numbers
        lines.append(self.source)
        undefs = [n for n, _ in self.defines] + list(symbols.identifiers) + list(symbols.macros)
        lines.extend(f"#undef {n}" for n in dict.fromkeys(undefs))
        return "\n".join(lines) + "\n"


@dataclasses.dataclass(frozen=True)
class Batch:
    """Units built together with one `Program.build` and one set of options."""

    units: tuple[Unit, ...]
    options: tuple[str, ...]

    @classmethod
    def of(cls, units: Iterable[Unit], options: Sequence[str]) -> "Batch":
        ordered = sorted({u.unit_key: u for u in units}.values(), key=lambda u: u.unit_key)
        return cls(tuple(ordered), tuple(options))

    @property
    def source(self) -> str:
        return "\n".join(unit.render() for unit in self.units)

    @property
    def content_hash(self) -> str:
        """Identity of the batch: its units and options (not their order of arrival)."""
        parts = "\0".join([*(u.unit_key for u in self.units), *self.options])
        return hashlib.sha256(parts.encode()).hexdigest()

    def halves(self) -> tuple["Batch", "Batch"]:
        mid = len(self.units) // 2
        return Batch(self.units[:mid], self.options), Batch(self.units[mid:], self.options)


def group_into_batches(kernels: Iterable[Kernel]) -> list[Batch]:
    """One batch per distinct set of non-define options."""
    groups: dict[tuple[str, ...], list[Unit]] = {}
    for kernel in kernels:
        groups.setdefault(kernel.options, []).append(Unit.of(kernel))
    return [Batch.of(units, options) for options, units in groups.items()]
