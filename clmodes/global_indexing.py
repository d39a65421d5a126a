"""Which pointer arguments of a kernel every work-item indexes with `get_global_id(0)`.

Why: a buffer smaller than a launch reaches is not refused by any runtime: the kernel
writes past it and the process dies (PoCL: SIGSEGV or SIGABRT from the heap, Intel:
SIGSEGV). A buffer smaller than (global items x element size) is not wrong in itself,
though: a kernel guards with `if (i < n)`, uses fewer items, or indexes otherwise. What
is knowable without running the kernel: in the kernel's own source, a statement that
every work-item reaches (straight-line code at the top of the body, before any branch)
and that indexes pointer `p` with `get_global_id(0)` makes every item `i` of a launch
touch `p[i]`, so `p` needs `global_size[0]` elements. Only that form is recognized, and
anything clmodes cannot read for certain (a macro, an `#include`, a branch, a call it
does not know, `?:`, `&&`, `||`, `sizeof`, `&p[i]`, a narrow index type, a second
definition of the kernel) ends the analysis with fewer arguments, never more: a missed
case stays unchecked, a legitimate program is never refused (docs/decisions/launch-checks.md).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|->|\+\+|--|&&|\|\||[-+*/%&|^!<>=]=|<<=|>>=|<<|>>|\S")
_CONTROL = frozenset(
    "if else for while do switch case default return goto break continue sizeof".split())
_ASSIGNING = frozenset("= += -= *= /= %= &= |= ^= <<= >>= ++ --".split())
_SKIPPING = frozenset("? && || # { } ;".split())
# Index types as wide as any launch clmodes checks (at most 2**31 items).
_INDEX_TYPES = frozenset("int uint long ulong size_t unsigned".split())
_TYPE_WORDS = frozenset(
    "const int uint long ulong size_t unsigned char uchar short ushort float double half"
    " bool".split())
_BUILTINS = frozenset(
    "get_global_id get_local_id get_group_id get_global_size get_local_size"
    " get_num_groups get_work_dim get_global_offset".split())


def indexed_pointers(source: str, name: str, macros: Iterable[str] = ()) -> frozenset[int]:
    """The indices of the `__global` pointer arguments of kernel `name` that every
    work-item indexes with `get_global_id(0)` (the module doc); `macros`: names defined
    outside the source (`-D`), which the analysis never trusts."""
    return _indexed(source, name, frozenset(macros))


@functools.lru_cache(maxsize=256)
def _indexed(source: str, name: str, macros: frozenset[str]) -> frozenset[int]:
    if "#include" in source:
        return frozenset()  # a header's macros are out of sight
    text = _COMMENT.sub(" ", source)
    defined = set(re.findall(r"^\s*#\s*define\s+([A-Za-z_]\w*)", text, re.M)) | macros
    heads = list(re.finditer(
        r"\b(?:__kernel|kernel)\b[^;{}]*?\bvoid\s+" + re.escape(name) + r"\s*\(", text))
    if len(heads) != 1:
        return frozenset()
    params, body = _signature_and_body(text, heads[0].end())
    if params is None or body is None:
        return frozenset()
    pointers = {p: i for i, (p, is_pointer) in enumerate(params) if is_pointer}
    names = {p for p, _ in params}
    if defined & (names | _BUILTINS | _TYPE_WORDS):
        return frozenset()
    found = _straight_line_accesses(body, pointers, names | _BUILTINS | _TYPE_WORDS, defined)
    return frozenset(pointers[p] for p in found)


def _signature_and_body(
    text: str, start: int,
) -> tuple[list[tuple[str, bool]] | None, list[str] | None]:
    """The parameters (each name, and whether it is a `__global` pointer) and the body's
    tokens of the kernel whose parameter list opens at `start`."""
    depth, i = 1, start
    while i < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    if depth:
        return None, None
    params: list[tuple[str, bool]] = []
    for param in text[start:i - 1].split(","):
        words = re.findall(r"[A-Za-z_]\w*|\*|\[", param)
        if not words or words == ["void"]:
            continue
        if not words[-1].isidentifier():
            return None, None  # an unnamed or array parameter: not read for certain
        pointer = words.count("*") == 1 and ("__global" in words or "global" in words)
        params.append((words[-1], pointer))
    brace = text.find("{", i)
    if brace < 0 or text[i:brace].strip() and not text[i:brace].strip().startswith("__attribute__"):
        return None, None
    body = _TOKEN.findall(text[brace + 1:_matching_brace(text, brace)])
    return params, body


def _matching_brace(text: str, brace: int) -> int:
    depth = 0
    for i in range(brace, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return i
    return len(text)


def _statements(tokens: list[str]) -> Iterable[list[str]]:
    """The body's leading statements, up to the first brace or preprocessor line."""
    current: list[str] = []
    for token in tokens:
        if token in ("{", "}", "#"):
            return
        if token == ";":
            yield current
            current = []
        else:
            current.append(token)


def _straight_line_accesses(body: list[str], pointers: dict[str, int], known: set[str],
                            defined: set[str]) -> set[str]:
    """Pointers that the straight-line statements at the body's top index with
    `get_global_id(0)` or a variable holding it, before anything could skip them;
    `known`: the names read for certain (the parameters, builtins, types)."""
    index_vars: set[str] = set()
    found: set[str] = set()
    for statement in _statements(body):
        found |= _accesses(statement, pointers, index_vars, known)
        if not _harmless(statement, known, defined, index_vars):
            break
    return found


def _accesses(statement: list[str], pointers: dict[str, int], index_vars: set[str],
              known: set[str]) -> set[str]:
    """Pointers indexed by the global id in `statement`, each reached on every path: the
    tokens before it hold no skipping operator and no name clmodes does not know."""
    found: set[str] = set()
    for i, token in enumerate(statement):
        if token in _SKIPPING or token in _CONTROL or (
                token[0].isalpha() or token[0] == "_") and token not in known:
            break
        if token in pointers and (i == 0 or statement[i - 1] != "&") \
                and _global_index(statement[i + 1:], index_vars):
            found.add(token)
    return found


def _global_index(rest: list[str], index_vars: set[str]) -> bool:
    """Does `rest` open with `[get_global_id(0)]` or `[v]`, v holding it?"""
    return (rest[:3] in (["[", v, "]"] for v in index_vars)
            or rest[:6] == ["[", "get_global_id", "(", "0", ")", "]"])


def _harmless(statement: list[str], known: set[str], defined: set[str],
              index_vars: set[str]) -> bool:
    """Is `statement` a declaration that cannot skip what follows or change a pointer?
    One holding the global id in a wide enough type is noted in `index_vars`."""
    if "=" not in statement:
        return False
    eq = statement.index("=")
    declared, value = statement[:eq], statement[eq + 1:]
    if len(declared) < 2 or not all(w in _TYPE_WORDS for w in declared[:-1]):
        return False
    variable = declared[-1]
    if variable in known or variable in defined or not variable.isidentifier():
        return False
    for token in value:
        if token in _ASSIGNING or token in _SKIPPING or token in _CONTROL or token == ",":
            return False
        if (token[0].isalpha() or token[0] == "_") and token not in known:
            return False
    known.add(variable)
    while value[:1] == ["("] and len(value) > 3 and value[2] == ")" and value[1] in _INDEX_TYPES:
        value = value[3:]  # a cast: (int)get_global_id(0)
    types = [w for w in declared[:-1] if w != "const"]
    if value == ["get_global_id", "(", "0", ")"] and types and _INDEX_TYPES.issuperset(types):
        index_vars.add(variable)
    return True
