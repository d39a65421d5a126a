"""Renaming a preprocessed unit's file-scope identifiers, token by token.

Every occurrence of a declared name becomes `name<suffix>` except where the token is not
that identifier at all:
- after `.` or `->`: a member or a vector component (`f.w`, `v.lo`, `p->x`, `.s0` in a
  designated initializer). A regex over raw text rewrote `f.w` into `f.w__clm..` and the
  compiler refused an "illegal vector component name".
- a member's own name inside a struct or union body (`float w;`): the member would be
  renamed while `p.w` is not. Types used inside the body (`real_t w;`) are renamed.
Locals that shadow a file-scope name are renamed too, consistently, which keeps the
shadowing exactly as it was.
"""

from __future__ import annotations

from collections.abc import Collection

from clmodes.batch.tokens import Kind, Token

# What may follow a member's name in a struct body: `float w;`, `float w, h;`,
# `float w[4];`, `uint w : 4;`, `float w __attribute__((aligned(4)));`.
_AFTER_MEMBER = frozenset((";", ",", "[", ":", "__attribute__"))


def rename(tokens: list[Token], names: Collection[str], suffix: str) -> str:
    """The unit's text with each of `names` renamed to `name + suffix`."""
    return join(segments(tokens, names), suffix)


def join(parts: list[str], suffix: str, foreign: Collection[str] = (), foreign_suffix: str = "") -> str:
    """Text from `segments()`: every odd part is a name that takes the suffix, or, for
    a name among `foreign` (declared by a shared prefix), `foreign_suffix`."""
    return "".join(part + (foreign_suffix if part in foreign else suffix) if i % 2 else part
                   for i, part in enumerate(parts))


def segments(tokens: list[Token], names: Collection[str]) -> list[str]:
    """The unit's text cut around each occurrence of `names` that is renamed: text, name,
    text, name, ..., text. Cut once, joined per unit: variants of one source share it."""
    renamed: list[int] = []
    significant = [i for i, t in enumerate(tokens) if t.kind not in (Kind.SPACE, Kind.DIRECTIVE)]
    bodies: list[bool] = []  # per open brace: is it a struct/union member list?
    aggregate_pending = False  # saw `struct`/`union` since the last `{`, `;` or `)`
    previous = ""
    for position, index in enumerate(significant):
        token = tokens[index]
        text = token.text
        if text in ("struct", "union"):
            aggregate_pending = True
        elif text == "{":
            bodies.append(aggregate_pending)
            aggregate_pending = False
        elif text == "}":
            if bodies:
                bodies.pop()
        elif text in (";", ")", "="):
            aggregate_pending = False
        elif token.kind is Kind.IDENT and text in names and previous not in (".", "->"):
            following = tokens[significant[position + 1]].text if position + 1 < len(significant) else ""
            in_members = bool(bodies) and bodies[-1]
            if not (in_members and following in _AFTER_MEMBER):
                renamed.append(index)
        previous = text
    parts, start = [], 0
    for index in renamed:
        parts.append("".join(t.text for t in tokens[start:index]))
        parts.append(tokens[index].text)
        start = index + 1
    parts.append("".join(t.text for t in tokens[start:]))
    return parts
