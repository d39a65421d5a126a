"""C tokens of a *preprocessed* unit: what renaming reads and rewrites.

Renaming works on tokens, never on raw text, so that a string, a comment, a member access
(`f.w`, `p->x`) or a directive line is never touched by accident. The input is the
preprocessor's output, so the only directives left are `#line`, `#pragma` and
`#warning`; each is kept whole as one DIRECTIVE token.
"""

from __future__ import annotations

import dataclasses
import enum
import re


class Kind(enum.Enum):
    IDENT = "ident"
    NUMBER = "number"
    STRING = "string"
    PUNCT = "punct"
    SPACE = "space"  # whitespace and comments
    DIRECTIVE = "directive"  # a whole `#...` line, continuations included


@dataclasses.dataclass(frozen=True, slots=True)
class Token:
    kind: Kind
    text: str


# Order matters: a directive is only recognised at the start of a line (whitespace tokens
# end at a newline, so the next token starts a line), and numbers before punctuation so
# that `.5f` is one number.
_TOKEN = re.compile(
    r"""
    (?P<directive>^[ \t]*\#(?:\\\n|[^\n])*)
    |(?P<space>[ \t\r\f\v]*\n|[ \t\r\f\v]+|//[^\n]*|/\*.*?\*/)
    |(?P<ident>[A-Za-z_]\w*)
    |(?P<number>\.?\d(?:[eEpP][+-]|[\w.])*)
    |(?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
    |(?P<punct>->|\+\+|--|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\#\#|.)
    """,
    re.M | re.S | re.X,
)

_KINDS = {kind.value: kind for kind in Kind}


def tokenize(text: str) -> list[Token]:
    """Every character of `text` belongs to exactly one token: joining the texts gives
    `text` back."""
    return [Token(_KINDS[m.lastgroup], m.group()) for m in _TOKEN.finditer(text)]  # type: ignore[index]


def significant(tokens: list[Token]) -> list[Token]:
    """The tokens the compiler parses: no whitespace, comments or directives."""
    return [t for t in tokens if t.kind not in (Kind.SPACE, Kind.DIRECTIVE)]
