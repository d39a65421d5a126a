"""Where a unit's shared include prefix ends: the leading lines pcpp may expand once for
every unit that starts with them.

Units of one group usually start alike (a few defines, `#include <pyopencl-complex.h>`)
and differ after that; expanding the header was most of each unit's preprocessing, paid
again per unit. `preprocess` keeps pcpp's state after those lines and continues each
unit from a copy of it. The cut has to be a point where the state pcpp keeps in its
generator's locals (which cannot be copied) is what a fresh file starts with: outside
every conditional, right after an `#include` (which flushes pending text). Hence the
leading run of blank lines, comments and directives, up to its last `#include` outside
conditionals; text outside conditionals ends the run (a declaration before a header is
the unit's own business, and rarely shared). One local still differs: pcpp's "at the
front of the file" (include-guard detection for the unit itself), which a fresh file
has and the prefix may have used up: `Prefix.front` says which, for the caller to replay.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from pcpp.ply.ply.lex import LexToken

_SKIPPED = frozenset(("CPP_WS", "CPP_COMMENT1", "CPP_COMMENT2", "CPP_LINECONT"))
_OPENS = frozenset(("if", "ifdef", "ifndef"))
# Top-level directives that end pcpp's "front of the file" (an `#include` does not; a
# `#pragma` does, unless it is `once`).
_ENDS_FRONT = frozenset(("define", "undef", "if", "ifdef", "ifndef"))


@dataclasses.dataclass(frozen=True)
class Prefix:
    """The first `lines` of a unit's pcpp lines (`text`: their text, the memo's key)."""

    lines: int
    text: str  # the physical lines they were lexed from: equal texts lex to equal tokens
    front: bool  # pcpp is still at the file's front after them (only includes, comments)


def _words(line: Sequence[LexToken]) -> list[str]:
    return [t.value for t in line if t.type not in _SKIPPED]


def shared_prefix(lines: Sequence[Sequence[LexToken]], text: str) -> Prefix | None:
    """The prefix of `lines` (pcpp's lines of `text`, each a token list ending in its
    newline) that ends after the last top-level `#include` of the leading directive run;
    None when that run includes nothing. Its text is cut from `text`, not joined from
    tokens: a line continuation's token is empty, and two prefixes differing only in
    where a line was continued must not share (their line numbers differ)."""
    if "include" not in text:  # most units: no scan
        return None
    depth, cut, front, front_at_cut = 0, 0, True, True
    for number, line in enumerate(lines):
        words = _words(line)
        if depth > 0:  # inside a conditional anything goes; pcpp's front is already gone
            if words[:1] == ["#"] and len(words) > 1:
                depth += words[1] in _OPENS
                depth -= words[1] == "endif"
            continue
        if not words:
            continue
        if words[0] != "#" or len(words) < 2:
            break  # text, or a null directive
        name = words[1]
        if name == "include":
            cut, front_at_cut = number + 1, front
        elif name == "pragma" and len(words) > 2 and words[2] != "once":
            front = False
        elif name in _ENDS_FRONT:
            front = False
            depth += name in _OPENS
        else:
            break  # #error, #line, #pragma once, a stray #else: left to the unit
    if not cut:
        return None
    last = lines[cut - 1][-1].lineno  # the physical line the cut's newline ends
    physical = [line.rstrip() for line in text.splitlines()[:last]]  # as pcpp lexes them
    return Prefix(cut, "\n".join(physical) + "\n", front_at_cut)
