"""The names a unit's conditionals could read, found without preprocessing it.

Why: before a unit is prepared, `preprocess.scout` runs its directives through pcpp to
find the names only the compiler can answer (`__has_builtin(...)`, `__GNUC__`, `FLT_MAX`
...). Most units read none, and for them the scout was about half of their preparation
(32 small units with macros and conditionals on Intel's CPU runtime: 80 of 150 ms; the
batch's build was 680 ms). Only a conditional (`#if`, `#ifdef`, `#ifndef`, `#elif`) asks
anything, and it can only read a name spelled on its own line or in the body of a macro
an `#if` or `#elif` expands (any `#define` of that name in the unit, or a `-D` value),
transitively (`#ifdef NAME` and `defined(NAME)` read whether NAME is defined, not its
body); so
when none of those names is one the compiler could define, the scout's answer is known to
be "nothing to ask" without running it.

The trap: directives hidden from a line scan. A file it includes has its own directives:
the scan reads them too when the include walk (`includes.included_texts`) vouches for
every file the unit may include (each found here by name; a superset, every branch's),
and gives up otherwise. A trigraph (`??=`) or digraph (`%:`) spells `#` differently: it
gives up (None: run the scout). Why follow includes: 32 small units sharing one header
were each scouted through pcpp for nothing, 119 ms of a 0.84 s batch on Intel's CPU
runtime, where the target was 0.9 of the raw concatenation's 0.72 s. A directive may continue over `\\`-joined lines: they are read with it.
Reading too much is harmless: a name in a comment, or in a `#define` inside a block
comment, only means the scout runs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(\w*)(.*)", re.S)
_EXPANDING = frozenset(("if", "elif"))  # their names are expanded, then read
_TESTING = frozenset(("ifdef", "ifndef", "elifdef", "elifndef"))  # only whether defined
_DEFINED = re.compile(r"\bdefined\s*(?:\(\s*([A-Za-z_]\w*)\s*\)|([A-Za-z_]\w*))")


def _directives(source: str) -> Iterable[tuple[str, str]]:
    """(directive, the rest of its logical line) for every directive line."""
    lines = iter(source.splitlines())
    for line in lines:
        while line.endswith("\\"):
            line = line[:-1] + " " + next(lines, "")
        match = _DIRECTIVE.match(line)
        if match:
            yield match.group(1), match.group(2)


def conditional_names(source: str, defines: Iterable[tuple[str, str | None]],
                      included: Sequence[str] | None = None) -> frozenset[str] | None:
    """Every name the unit's conditionals could read, through the macros they may expand,
    its `included` files' texts read with it (every file it may include); None when a
    line scan cannot be trusted to see every directive (an `#include` without `included`,
    a trigraph or digraph spelling of `#`)."""
    texts = [source, *(included or ())]
    if any("??=" in text or "%:" in text for text in texts):
        return None
    read: set[str] = set()  # expanded: the bodies of those that are macros are read too
    tested: set[str] = set()  # `#ifdef NAME`, `defined(NAME)`: the name, never its body
    bodies: dict[str, set[str]] = {}
    for directive, rest in (found for text in texts for found in _directives(text)):
        if directive == "include" and included is None:
            return None
        if directive in _TESTING:
            tested.update(_IDENTIFIER.findall(rest)[:1])
        elif directive in _EXPANDING:
            tested.update(a or b for a, b in _DEFINED.findall(rest))
            read.update(_IDENTIFIER.findall(_DEFINED.sub(" ", rest)))
        elif directive == "define":
            name, _, body = rest.strip().partition(" ")
            macro = name.split("(", 1)[0]
            bodies.setdefault(macro, set()).update(_IDENTIFIER.findall(name[len(macro):] + " " + body))
    for name, value in defines:
        if value:
            bodies.setdefault(name.split("(", 1)[0], set()).update(_IDENTIFIER.findall(value))
    pending = list(read)
    while pending:
        for found in bodies.pop(pending.pop(), ()):
            if found not in read:
                read.add(found)
                pending.append(found)
    return frozenset(read | tested)
