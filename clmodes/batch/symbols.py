"""What a preprocessed unit declares at file scope: the names renaming must make unique.

Read from the preprocessed token stream, so only the active `#if` branch counts, macros
are already expanded (a kernel named by `KERNEL_NAME`, by `fill_##t` pasting or stamped
out by `DEF_SCALE(...)` is an ordinary declaration here), and an included header appears
once per unit with that unit's own defines.

Found at brace depth zero: functions (defined or declared), typedef names, struct/union/
enum tags, enum constants and program-scope variables. Scalar typedefs are kept as
aliases (`typedef float real_arg;`) so that a kernel argument declared `real_arg` takes a
Python float.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator

from clmodes.batch.tokens import Token, significant

# Words that are never the name being declared.
RESERVED = frozenset(
    """
    auto break case char const constant continue default do double else enum extern float
    for global goto half if inline int kernel local long private register restrict return
    short signed sizeof static struct switch typedef union unsigned void volatile while
    bool size_t ptrdiff_t intptr_t uintptr_t uchar ushort uint ulong read_only write_only
    read_write image1d_t image1d_array_t image1d_buffer_t image2d_t image2d_array_t
    image2d_depth_t image3d_t sampler_t event_t queue_t clk_event_t reserve_id_t pipe
    __global __local __constant __private __kernel __read_only __write_only __read_write
    __inline __restrict __generic generic __attribute__ __const __volatile
    """.split()
)

_QUALIFIERS = frozenset(("const", "volatile", "__const", "__volatile", "restrict", "__restrict"))


@dataclasses.dataclass(frozen=True)
class UnitSymbols:
    """A unit's file-scope identifiers and its simple (scalar-like) typedefs."""

    identifiers: tuple[str, ...]
    typedefs: tuple[tuple[str, str], ...] = ()  # (name, the type it names)


def _strip_attributes(words: list[str]) -> list[str]:
    """Drop `__attribute__((...))`: its arguments declare nothing."""
    out: list[str] = []
    i = 0
    while i < len(words):
        if words[i] == "__attribute__":
            depth, i = 0, i + 1
            while i < len(words):
                depth += {"(": 1, ")": -1}.get(words[i], 0)
                i += 1
                if depth == 0:
                    break
            continue
        out.append(words[i])
        i += 1
    return out


def _top_level_statements(words: list[str]) -> Iterator[tuple[list[str], list[list[str]]]]:
    """Yield (words at depth 0, word lists of each brace body at depth 1) per statement."""
    head: list[str] = []
    bodies: list[list[str]] = []
    depth = 0
    for word in words:
        if word == "{":
            depth += 1
            if depth == 1:
                bodies.append([])
                head.append("{}")
            continue
        if word == "}":
            depth -= 1
            if depth == 0 and _is_function(head):
                yield head, bodies
                head, bodies = [], []
            continue
        if depth == 0:
            if word == ";":
                yield head, bodies
                head, bodies = [], []
            else:
                head.append(word)
        elif depth == 1:
            bodies[-1].append(word)
    if head:
        yield head, bodies


def _is_function(head: list[str]) -> bool:
    """A definition `... name ( params ) {}` whose body just closed."""
    return len(head) >= 4 and head[-1] == "{}" and head[-2] == ")" and "=" not in head


def is_name(word: str) -> bool:
    return (word[0].isalpha() or word[0] == "_") and word not in RESERVED


def _declarators(head: list[str]) -> list[str]:
    """The names declared by a depth-0 statement that is not a function."""
    names: list[str] = []
    for i, word in enumerate(head[:-1]):
        if word in ("struct", "union", "enum") and is_name(head[i + 1]):
            names.append(head[i + 1])
    part: list[str] = []
    stopped, parens = False, 0
    for word in head + [","]:
        parens += {"(": 1, ")": -1}.get(word, 0)
        if word == "," and parens == 0:
            candidates = [t for t in part if is_name(t)]
            if candidates:
                names.append(candidates[-1])
            part, stopped = [], False
        elif word in ("=", "["):
            stopped = True  # an initializer or array bound follows the declared name
        elif not stopped:
            part.append(word)
    return names


def _simple_typedef(head: list[str]) -> list[tuple[str, str]]:
    """`typedef unsigned int count_t;` -> [("count_t", "unsigned int")]; nothing for
    structs, arrays, pointers or lists of names."""
    if len(head) < 3 or head[0] != "typedef":
        return []
    words = [t for t in head[1:] if t not in _QUALIFIERS]
    if not all(t[0].isalpha() or t[0] == "_" for t in words) or words[0] in ("struct", "union", "enum"):
        return []
    return [(words[-1], " ".join(words[:-1]))]


def _enum_constants(body: list[str]) -> list[str]:
    names, expect = [], True
    for word in body:
        if expect and is_name(word):
            names.append(word)
        expect = word == ","
    return names


def _function_name(head: list[str]) -> str | None:
    before = head[: head.index("(")]
    return before[-1] if before and is_name(before[-1]) else None


def _words(tokens: Iterable[Token]) -> list[str]:
    """The texts the compiler parses, attributes left out."""
    return _strip_attributes([t.text for t in significant(list(tokens))])


def declared(tokens: Iterable[Token]) -> UnitSymbols:
    """The file-scope identifiers and simple typedefs of a preprocessed unit."""
    words = _words(tokens)
    names: list[str] = []
    typedefs: list[tuple[str, str]] = []
    for head, bodies in _top_level_statements(words):
        if "(" in head and ("=" not in head or head.index("(") < head.index("=")):
            name = _function_name(head)
            if name is not None:
                names.append(name)
            continue
        names.extend(_declarators(head))
        typedefs.extend(_simple_typedef(head))
        if "enum" in head:
            for body in bodies:
                names.extend(_enum_constants(body))
    return UnitSymbols(tuple(dict.fromkeys(names)), tuple(typedefs))


def raw_typedefs(tokens: Iterable[Token]) -> dict[str, str | None]:
    """Typedefs of an *unpreprocessed* source, every `#if` branch at once (directive lines
    are single tokens, so both branches' declarations are seen). A name typedef'd to two
    different types maps to None: which one is active cannot be known without the
    preprocessor, so it must never be guessed."""
    found: dict[str, str | None] = {}
    for head, _ in _top_level_statements(_words(tokens)):
        for name, base in _simple_typedef(head):
            if name in found and found[name] != base:
                found[name] = None
            else:
                found.setdefault(name, base)
    return found


_IMMUTABLE = frozenset(("constant", "__constant", "const", "__const"))


def program_state(tokens: Iterable[Token]) -> list[str]:
    """Program-scope variables a program may change (OpenCL 2.0's `global int count;`):
    one copy shared by several units would be shared state where each had its own. Only
    typedefs, tag declarations, functions and constants are free of it."""
    found: list[str] = []
    for head, _ in _top_level_statements(_words(tokens)):
        if not head or head[0] == "typedef" or _IMMUTABLE.intersection(head):
            continue
        if "(" in head and ("=" not in head or head.index("(") < head.index("=")):
            continue  # a function, defined or declared
        if head[0] in ("struct", "union", "enum") and (head[-1] == "{}" or len(head) == 2):
            continue  # a tag alone: `struct s {...};`, `struct s;`
        found.append(" ".join(head))
    return found
