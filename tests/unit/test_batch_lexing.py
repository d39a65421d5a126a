"""clmodes' lexing loop makes exactly the token lines ply's lexer makes for pcpp
(`clmodes/batch/lexing.py`): on every file of the corpus (real libraries' kernels and
headers included), on pyopencl's own headers, on the edge cases of each rule and on
generated text."""

from __future__ import annotations

from pathlib import Path

import pcpp
import pyopencl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clmodes.batch.lexing import Lexing

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
PYOPENCL_HEADERS = Path(pyopencl.__file__).parent / "cl"
PREPROCESSOR = pcpp.Preprocessor()
LEXING = Lexing(PREPROCESSOR)


def by_ply(text: str, source: str = "src") -> tuple:
    """What pcpp's own `group_lines` makes, as attribute tuples (the lexer left out)."""
    return tuple(tuple(tuple((k, v) for k, v in vars(token).items() if k != "lexer")
                       for token in line)
                 for line in pcpp.Preprocessor.group_lines(PREPROCESSOR, text, source))


def files() -> list[Path]:
    found = [p for p in sorted(CORPUS.rglob("*")) if p.suffix in (".cl", ".h", ".clh")]
    found += sorted(PYOPENCL_HEADERS.rglob("*.h"))
    return found


def test_the_fast_loop_serves_this_pcpp():
    """If this fails, pcpp's rules changed: the loop falls back to ply (slower, still right)."""
    assert LEXING.fast


@pytest.mark.parametrize("path", files(), ids=lambda p: p.name)
def test_every_corpus_file_lexes_as_ply_lexes_it(path: Path):
    text = path.read_text(errors="replace")
    assert LEXING.lines_of(text, str(path)) == by_ply(text, str(path))


EDGES = [
    "", "\n", "\n\n\n", "abc", "x \\", "a\\\n b", "a \\  \n b",
    "#define A(x) x##y \\\n q\n",
    "'", "L'x' 'y' '\\n' '\\\n'", '"s" "t\\"u" "v\\\nw"', '"unterminated\n next',
    "/* c \n d */ e /* unterminated", "// line\nx // tail",
    "0x1Fu 0X2aUL 12lu 1.5e-3f 1e10 .5 5. 0.5L", "a->b a-=b a-- <<= >>= ## # ...",
    "@ $ ` \f \v x", "a\r\nb\rc\n", "trailing   \n\t\n  ", "é ünïcödé_ident λ",
    "??= trigraph ??/ x",
]


@pytest.mark.parametrize("text", EDGES)
def test_every_rule_edge_lexes_as_ply_lexes_it(text: str):
    assert LEXING.lines_of(text, "edge") == by_ply(text, "edge")


PIECES = st.sampled_from([
    " ", "\t", "\n", "\\\n", "\\ \n", "\\", "'", '"', "L'", "/*", "*/", "//", "#", "##",
    "x", "L", "_a1", "0x", "1", "2.5", "e", "f", "u", "(", ")", "{", "}", "-", ">", "<",
    "=", "!", "&", "|", "^", "%", "*", "/", "+", ".", ",", ";", ":", "?", "[", "]", "~",
    "@", "$", "\r", "\f", "é",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=60).map("".join))
def test_generated_text_lexes_as_ply_lexes_it(text: str):
    assert LEXING.lines_of(text, "gen") == by_ply(text, "gen")


def test_a_lexer_with_other_rules_falls_back_to_ply():
    """A pcpp whose rule functions are not the ones the loop re-does is lexed by ply."""
    other = pcpp.Preprocessor()
    pattern, table = other.lexer.lexre[0]
    table = list(table)
    index = next(i for i, rule in enumerate(table) if rule and rule[1] == "CPP_WS")
    table[index] = (lambda t: t, "CPP_WS")
    other.lexer.lexre = [(pattern, table)]
    lexing = Lexing(other)
    assert not lexing.fast
    assert lexing.lines_of("a b\n", "x") == by_ply("a b\n", "x")
