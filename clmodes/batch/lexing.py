"""A file cut into pcpp's token lines, lexed once per text (`lexed`), with the same tokens
ply's lexer makes, in one loop (`Lexing`); and a token copied without `copy`'s protocol.

Why: lexing was about a third of preparing a small unit (a 1 kB unit is ~1,700 tokens,
and ply's `Lexer.token` costs ~11 us a token: a `LexToken` built attribute by attribute,
a rule function called for every whitespace run). Every unit's text is lexed once per
process (`lexed`), so on 32 fresh small units it was a fixed cost of
each batch (docs/benchmarks.md, persist).

The loop reads ply's own compiled master patterns and its group-to-rule table from the
lexer pcpp builds, so which rule wins where is ply's decision, not a copy of it. What the
rule functions do is re-done here, by rule: the whitespace, line-continuation, string,
character and block-comment rules count the newlines they swallow, the continuation and
the string drop a backslash-newline. Those functions are pcpp's (`pcpp.parser`); where a
lexer holds any other function (a pcpp release that changed them), `lines_of` falls
back to ply's own loop rather than guess. The trap: the tokens must be equal field by
field, in ply's attribute order too (pcpp copies tokens by their `__dict__`);
tests/unit/test_batch_lexing.py compares both on every corpus file and on generated text.
"""

from __future__ import annotations

import functools
import re

import pcpp
from pcpp import parser as pcpp_parser
from pcpp.ply.ply.lex import LexToken

Fields = tuple[tuple[str, object], ...]  # a token's attributes, ply's order, no `lexer`

_CONTINUATION = re.compile(r"\\[ \t]*\n")
# pcpp's rule functions, by their token type, and what each does beyond returning the token.
_KNOWN_RULES = {
    "CPP_WS": pcpp_parser.t_CPP_WS,
    "CPP_LINECONT": pcpp_parser.t_CPP_LINECONT,
    "CPP_INTEGER": pcpp_parser.CPP_INTEGER,
    "CPP_STRING": pcpp_parser.t_CPP_STRING,
    "CPP_CHAR": pcpp_parser.t_CPP_CHAR,
    "CPP_COMMENT1": pcpp_parser.t_CPP_COMMENT1,
    "CPP_COMMENT2": pcpp_parser.t_CPP_COMMENT2,
}
_COUNTS_NEWLINES = frozenset(("CPP_WS", "CPP_CHAR", "CPP_COMMENT1"))


class Lexing:
    """The lexing of one pcpp `Preprocessor` (its lexer's rules and token types)."""

    def __init__(self, preprocessor: pcpp.Preprocessor) -> None:
        self.preprocessor = preprocessor
        lexer = preprocessor.lexer
        self.patterns = list(lexer.lexre)
        self.newline_types = frozenset(t for t in preprocessor.t_WS if t)
        self.newline_type = preprocessor.t_NEWLINE
        self.kinds: dict[int, str] = {}
        self.with_rule: set[int] = set()
        if len(self.patterns) == 1:
            self.matches = self.patterns[0][0].finditer
            for index, rule in enumerate(self.patterns[0][1]):
                if rule:
                    self.kinds[index] = rule[1]
                    if rule[0] is not None:
                        self.with_rule.add(index)
        self.type_pairs = {kind: ("type", kind) for kind in self.kinds.values()}
        self.fast = (len(self.patterns) == 1 and not lexer.lexignore and lexer.lexerrorf is pcpp_parser.t_error
                     and all(_known(*rule) for _, table in self.patterns
                             for rule in table if rule and rule[0] is not None))

    def lines_of(self, text: str, source: str) -> tuple[tuple[Fields, ...], ...]:
        """`text`'s tokens cut into lines, as pcpp's `group_lines` cuts them."""
        if not self.fast:
            return tuple(tuple(_fields(token) for token in line) for line in
                         pcpp.Preprocessor.group_lines(self.preprocessor, text, source))
        lines: list[tuple[Fields, ...]] = []
        line: list[Fields] = []
        for fields in self._tokens("\n".join(x.rstrip() for x in text.splitlines()), source):
            line.append(fields)
            if fields[0][1] == "\n" and dict(fields)["type"] in self.newline_types:
                lines.append(tuple(line))
                line = []
        if line:
            last = dict(line[-1])
            last["type"], last["value"] = self.newline_type, "\n"
            line.append(tuple(last.items()))
            lines.append(tuple(line))
        return tuple(lines)

    def _tokens(self, data: str, source: str) -> list[Fields]:
        """ply's `Lexer.token` loop over `data`, rule functions done inline (module doc).
        One master pattern (pcpp's rules fit in one) is searched with `finditer`: a
        character no rule matches at is skipped by the search as by ply, which makes it
        a token of its own (a literal, else `t_error`'s), so each gap between matches is
        that many one-character tokens."""
        tokens: list[Fields] = []
        append = tokens.append
        lineno, expected = 1, 0
        source_pair = ("source", source)
        types = self.type_pairs
        for match in self.matches(data):
            position = match.start()
            if position != expected:
                tokens += _unmatched(data, expected, position, lineno, source_pair)
            expected = match.end()
            value = match[0]
            index = match.lastindex
            kind = self.kinds[index]
            token_line = lineno
            if index in self.with_rule:
                if kind == "CPP_LINECONT":
                    value = value[1:-1]
                    lineno += 1
                elif kind == "CPP_STRING":
                    value, joined = _CONTINUATION.subn("", value)
                    lineno += joined + value.count("\n")
                elif kind in _COUNTS_NEWLINES and "\n" in value:
                    lineno += value.count("\n")
            append((("value", value), ("lineno", token_line), ("lexpos", position),
                    types[kind], source_pair))
        tokens += _unmatched(data, expected, len(data), lineno, source_pair)  # in place: no copy
        return tokens


def _unmatched(data: str, start: int, end: int, lineno: int,
               source_pair: tuple[str, str]) -> list[Fields]:
    """The one-character tokens of `data[start:end]`, where no rule matched: ply makes each
    a literal, else `t_error`'s token, both holding `type` before `lexpos`."""
    return [(("value", data[at]), ("lineno", lineno), ("type", data[at]), ("lexpos", at),
             source_pair) for at in range(start, end)]


def _known(func: object, kind: str) -> bool:
    return _KNOWN_RULES.get(kind) is func


def _fields(token: object) -> Fields:
    return tuple((k, v) for k, v in vars(token).items() if k != "lexer")


def copy_token(token: LexToken) -> LexToken:
    copied = LexToken.__new__(LexToken)
    copied.__dict__.update(token.__dict__)
    return copied


# pcpp copies a token for every macro expansion with `copy.copy`, whose generic protocol
# was a quarter of the preprocessing time; a token is a plain attribute bag.
LexToken.__copy__ = copy_token  # type: ignore[attr-defined]


@functools.lru_cache(maxsize=256)
def lexed(text: str, source: str) -> tuple[tuple[Fields, ...], ...]:
    """A file's tokens cut into lines, lexed once per text: every unit including
    `pyopencl-complex.h` lexed its 1,000 lines again. Kept as their attributes in plain
    tuples, not as tokens: a tuple holding only strings and ints is one the garbage
    collector stops tracking, and 280,000 cached tokens (after ArrayFire's and CLBlast's
    programs) made every full collection cost 0.15 s, more than a batch's build. Handed
    out as new tokens (pcpp sets attributes on them), without the lexer each refers to:
    ply's lexing rules read it, nothing after lexing does. Lexed by `Lexing`: ply's rules in one
    loop, 2x ply's own."""
    return _LEXER.lines_of(text, source)


def new_token(fields: Fields) -> LexToken:
    token = LexToken.__new__(LexToken)
    token.__dict__.update(fields)
    return token


def token_lines(text: str, source: str) -> list[list[LexToken]]:
    return [[new_token(f) for f in line] for line in lexed(text, source)]


_LEXER = Lexing(pcpp.Preprocessor())  # only its lexer and token types are used
