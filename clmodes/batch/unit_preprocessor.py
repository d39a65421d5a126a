"""The pcpp preprocessor of one unit: C semantics for the unit's own names, refusal for
what only the compiler knows.

Split from `preprocess` (which decides what a unit's preprocessed text is and caches it):
this module is the machine that reads the directives. Why a subclass of pcpp's
`Preprocessor`: its hooks (`on_unknown_macro_in_expr`, `on_potential_include_guard`,
`on_directive_unknown`, ...) are exactly where batching decides; the traps each hook
avoids are written at the hook. A file is lexed once per text (`lexing.lexed`), and a
device's predefined macros are defined once per device (`template_of`).
"""

from __future__ import annotations

import dataclasses
import functools
import io
import re
from collections.abc import Sequence

import pcpp
from pcpp.parser import Action, OutputDirective
from pcpp.ply.ply.lex import LexToken

from clmodes.batch.lexing import copy_token, lexed, new_token
from clmodes.batch.predefined import FEATURE_CHECKS, CompilerMacros
from clmodes.includes import include_dirs, pyopencl_include_dirs

# Pragmas whose effect ends with the loop or statement they precede. `promote_to_registers`:
# CLBlast's hint to its own kernel preprocessor for the array declared next, which no
# OpenCL compiler knows (it ignores it, batched or alone).
_LOCAL_PRAGMAS = frozenset(("unroll", "nounroll", "loop", "clang", "ivdep", "GCC",
                            "promote_to_registers"))
MAIN = "<unit>"  # the unit's own file name to pcpp


class UnitPreprocessor(pcpp.Preprocessor):
    """pcpp with C semantics for the unit's own names and refusal for unknown ones."""

    def __init__(self, macros: CompilerMacros, symbolic: frozenset[str] = frozenset()) -> None:
        template = self.template = template_of(macros)
        super().__init__(template.lexer.clone())
        self.line_directive = "#line"
        self.known = macros
        # The unit's define names, left undefined so that one preprocessing serves every
        # variant of a source; any directive that reads one makes that impossible.
        self.symbolic = symbolic
        self.symbolic_reads: set[str] = set()
        self.problems: list[str] = []
        # Names read by conditionals that the compiler may predefine, unless they turn out
        # to be include guards: `#ifndef X` first in a file, then `#define X` (object-like)
        # as the next directive. `#if !defined(__has_builtin)` first in a file, followed by
        # `#define __has_builtin(x) 0`, is no guard.
        self.unknown: dict[str, None] = {}
        self.guards: set[str] = set()
        self.pending_guard: str | None = None
        self.extensions: list[str] = []
        self.fp_contract = False
        # pcpp's macro objects are replaced, never changed, by (re)definition: a copy of
        # the template's table is this unit's own.
        self.macros = dict(template.macros)
        # Which of the unit's own lines pcpp reads (`Resumable`): all, its shared
        # prefix only, or what follows it; and whether pcpp's start of that rest must
        # be made to look like the middle of the file it is alone.
        self.main_lines = slice(None)
        self.resuming = False
        self.front = True
        self.main_source: str | None = None
        # Directives only (`scout`): text lines are passed on unexpanded.
        self.scouting = False

    def _unknown(self, name: str, arithmetic: bool = False) -> None:
        if name in self.symbolic:
            self.symbolic_reads.add(name)
        elif arithmetic and name in self.known.named:
            # Left over after expansion: defined as itself (a constant, or a name the
            # compiler defines as no integer), which `#if` would read as 0.
            self.problems.append(f"#if arithmetic reads {name!r}, which is no integer")
        elif self.known.maybe_predefined(name):
            self.unknown[name] = None

    def expand_macros(self, tokens, expanding_from=[]):  # type: ignore[no-untyped-def]  # noqa: B006 - pcpp's signature
        """Scouting, a run of text lines (pcpp hands them over ending with their newline;
        a directive's tokens are stripped of it) is not expanded: expanding text reads no
        directive and defines nothing, and it was most of a unit's preprocessing."""
        if (self.scouting and tokens and not expanding_from
                and tokens[-1].type == self.t_NEWLINE):
            return tokens
        return super().expand_macros(tokens, expanding_from)

    def evalexpr(self, tokens):  # type: ignore[no-untyped-def]
        """Feature-check calls (`__has_builtin(__builtin_expect)`) answered from the
        compiler's answers before pcpp expands anything: the compiler does not expand
        their argument either."""
        return super().evalexpr(self._answer_calls(tokens))

    def _answer_calls(self, tokens: list[LexToken]) -> list[LexToken]:
        out: list[LexToken] = []
        i = 0
        while i < len(tokens):
            token = tokens[i]
            call = _call_at(tokens, i) if self._compilers(token.value) else None
            if call is None:
                out.append(token)
                i += 1
                continue
            query, i = call
            value = self.known.called.get(query)
            if value is None:
                self.unknown[query] = None
                value = 0
            answered = copy_token(token)
            answered.type, answered.value = self.t_INTEGER, self.t_INTEGER_TYPE(f"{value}L")
            out.append(answered)
        return out

    def _compilers(self, name: str) -> bool:
        """Is `name` the compiler's feature check here, not a macro the unit defined
        (`#define __has_builtin(x) 0` when the compiler has none)?"""
        return name in FEATURE_CHECKS and self.macros.get(name) is self.template.macros.get(name)

    def unknown_queries(self) -> frozenset[str]:
        """What the compiler could answer, when nothing else stands in the way."""
        unknown = [n for n in self.unknown if n not in self.guards]
        if self.problems or self.symbolic_reads or not unknown:
            return frozenset()
        if all(self.known.probe_worthy(n) for n in unknown):
            return frozenset(unknown)
        return frozenset()

    def refusals(self) -> list[str]:
        """Why the unit cannot batch (nothing: it can)."""
        unknown = [n for n in self.unknown if n not in self.guards]
        reads = [f"its directives read its defines {sorted(self.symbolic_reads)}"] \
            if self.symbolic_reads else []
        return self.problems + [
            f"its conditionals read {name!r}, which the compiler may predefine" for name in unknown
        ] + reads

    def only_reads(self) -> frozenset[str]:
        """The symbolic defines read, if nothing else went wrong (else nothing)."""
        clean = not self.problems and all(n in self.guards for n in self.unknown)
        return frozenset(self.symbolic_reads) if clean else frozenset()

    def group_lines(self, input, abssource):  # type: ignore[no-untyped-def]
        lines = lexed(input, abssource)
        if self.main_lines != slice(None):  # the first file asked for is the unit itself
            lines, self.main_lines = lines[self.main_lines], slice(None)
        for line in lines:
            yield [new_token(f) for f in line]

    # -- a shared prefix: the state after it, and resuming from it -----------------------

    def snapshot(self, tokens: tuple[LexToken, ...], front: bool) -> "Resumable":
        replay = self.replay_of(tokens)
        replay_written = self.written(replay)
        return Resumable(
            self.written(tokens, owned=True), replay, replay_written,
            front, dict(self.macros), dict(self.include_once), self.return_code,
            frozenset(self.symbolic_reads), tuple(self.problems), tuple(self.unknown),
            frozenset(self.guards), self.pending_guard, tuple(self.extensions),
            self.fp_contract)

    def resume(self, state: "Resumable", source: str, skip: int) -> None:
        """Parse `source` from its pcpp line `skip` on, as if its first `skip` lines had
        just been read (`state`): their output first, then the rest. The start of the
        rest is pcpp's start of a file: its call of `on_potential_include_guard` there is
        none alone, and past the front (`state.front`) neither is one for the unit's own
        `#ifndef` (`on_potential_include_guard` drops both)."""
        self.macros, self.include_once = dict(state.macros), dict(state.include_once)
        self.return_code = state.return_code
        self.symbolic_reads, self.problems = set(state.symbolic_reads), list(state.problems)
        self.unknown = dict.fromkeys(state.unknown)
        self.guards, self.pending_guard = set(state.guards), state.pending_guard
        self.extensions, self.fp_contract = list(state.extensions), state.fp_contract
        self.main_lines, self.resuming, self.front = slice(skip, None), True, state.front
        self.parse(source, MAIN)

    def written(self, tokens: Sequence[LexToken], owned: bool = False) -> str:
        """What `write` makes of `tokens` from a fresh start. It changes a token only next
        to a line continuation's (a space before it becomes one character, which writing
        again leaves as it is), so only then is it handed copies, and not when the tokens
        are this preprocessor's own (`owned`): copying a header's tokens was most of the
        time its prefix took."""
        continued = not owned and any(t.type == self.t_LINECONT for t in tokens)
        # pcpp's `parser` is untyped (its __init__ sets None); `write` reads it.
        self.parser = map(copy_token, tokens) if continued else iter(tokens)  # type: ignore[has-type]
        return self.output()

    def output(self) -> str:
        """What `write` makes of the tokens the parser has left."""
        out = io.StringIO()
        self.write(out)
        return out.getvalue()

    def continuing(self, state: "Resumable", rest: list[LexToken]) -> str | None:
        """The unit's whole output, given the prefix's (`state.written`) and the rest's
        tokens, without writing the prefix's tokens again. `write` carries three things
        from line to line (the last line number, the last file, pending blank lines);
        writing the prefix's last non-blank line and its trailing blank lines first puts
        it in exactly the state the whole prefix leaves. None: the replay did not start
        as it wrote alone (never seen; the caller then writes everything)."""
        out = self.written([*state.replay, *rest])
        if not out.startswith(state.replay_written):
            return None
        return state.written + out[len(state.replay_written):]

    def replay_of(self, tokens: tuple[LexToken, ...]) -> tuple[LexToken, ...]:
        """What puts `write` in the state `tokens` leave it in: their last line it would not
        skip as blank, cut to what that state reads of it (its first token's line and file,
        its comments' newlines: a header's last line can be a macro's expansion of
        thousands of tokens), and the blank lines after it."""
        start, end, line_start, blank = 0, 0, 0, True
        for index, token in enumerate(tokens):
            if token.type in self.ignore:
                continue
            if token.value and token.value[0] == "\n":
                if not blank:
                    start, end = line_start, index + 1
                line_start, blank = index + 1, True
            elif token.type not in self.t_WS:
                blank = False
        if not blank:  # a last line without its newline: the rest continues it
            return tokens[line_start:]
        line = tokens[start:end]
        if not line:
            return tokens
        kept = [line[0], *(t for t in line[1:-1] if t.type == self.t_COMMENT1)]
        if all(t.type in self.t_WS for t in kept):
            kept.append(next(t for t in line if t.type not in self.t_WS))
        return (*kept, line[-1], *tokens[end:])

    # -- pcpp hooks ------------------------------------------------------------------

    def on_include_not_found(self, is_malformed, is_system_include, curdir, includepath):  # type: ignore[no-untyped-def]
        self.problems.append(f"#include {includepath} is not found here")
        raise OutputDirective(Action.IgnoreAndRemove)

    def on_potential_include_guard(self, macro: str | None) -> None:
        if self.resuming:  # the rest's start of file (`resume`)
            self.resuming, self.main_source = False, self.source
            return
        if macro and not self.front and self.source == self.main_source:
            return  # alone, pcpp is past the unit's front here
        self.pending_guard = macro or None

    def on_error(self, file: str, line: int, msg: str) -> None:
        self.problems.append(f"preprocessing {file}:{line}: {msg}")
        self.return_code += 1

    def on_unknown_macro_in_defined_expr(self, tok):  # type: ignore[no-untyped-def]
        self._unknown(tok.value)
        return False

    def on_unknown_macro_in_expr(self, ident):  # type: ignore[no-untyped-def]
        self._unknown(ident, arithmetic=True)
        return 0

    def on_unknown_macro_function_in_expr(self, ident):  # type: ignore[no-untyped-def]
        self._unknown(ident)
        return lambda *_: 0

    def on_directive_handle(self, directive, toks, ifpassthru, precedingtoks):  # type: ignore[no-untyped-def]
        # pcpp reports a potential guard after handing us its #ifndef: the directive
        # after it is the one that must define it.
        pending, self.pending_guard = self.pending_guard, None
        if (directive.value == "define" and pending is not None and toks
              and toks[0].value == pending and (len(toks) == 1 or toks[1].value != "(")):
            self.guards.add(pending)
        if directive.value == "undef" and toks and toks[0].value in self.known.as_dict():
            self.problems.append(f"it #undefs the predefined macro {toks[0].value}")
        if self.symbolic and directive.value in ("define", "undef"):
            self._symbolic_define([t.value for t in toks])
        return super().on_directive_handle(directive, toks, ifpassthru, precedingtoks)

    def _symbolic_define(self, words: list[str]) -> None:
        """A macro body naming a define, or stringizing or pasting (which would see the
        define's name instead of its value), depends on the variant."""
        named = self.symbolic.intersection(words)
        if named:
            self.symbolic_reads.update(named)
        elif any(w in ("#", "##") for w in words[1:]):
            self.problems.append("a macro stringizes or pastes")

    def on_directive_unknown(self, directive, toks, ifpassthru, precedingtoks):  # type: ignore[no-untyped-def]
        name = directive.value
        if name == "error":
            self.problems.append("it has an active #error")
            return True
        if name == "pragma":
            self._pragma([t.value for t in toks if t.value.strip()])
            return None
        if name not in ("warning", "line"):
            self.problems.append(f"it has the directive #{name}")
        return None

    def on_comment(self, tok):  # type: ignore[no-untyped-def]
        return False  # comments become whitespace: a smaller batch, same code

    def _pragma(self, words: list[str]) -> None:
        predefined = self.known.as_dict()
        if any(w in self.macros and w not in predefined for w in words):
            self.problems.append(f"its #pragma {' '.join(words)} uses a macro")
        elif words[:2] == ["OPENCL", "EXTENSION"] and len(words) >= 3:
            if words[-1] == "enable":
                self.extensions.append(words[2])
        elif words[:2] == ["OPENCL", "FP_CONTRACT"]:
            self.fp_contract = True
        elif not words or words[0] not in _LOCAL_PRAGMAS:
            self.problems.append(f"its #pragma {' '.join(words)} may hold across the file")


def _call_at(tokens: list[LexToken], start: int) -> tuple[str, int] | None:
    """`NAME ( identifier )` at `start`: the query `NAME(identifier)` and the index after
    it; None when no call with one plain identifier follows (`defined(__has_builtin)`)."""
    words: list[tuple[str, int]] = []
    i = start + 1
    while i < len(tokens) and len(words) < 3:
        if tokens[i].value.strip():
            words.append((tokens[i].value, i))
        i += 1
    if len(words) < 3 or words[0][0] != "(" or words[2][0] != ")":
        return None
    argument = words[1][0]
    if not re.fullmatch(r"[A-Za-z_]\w*", argument):
        return None
    return f"{tokens[start].value}({argument})", words[2][1] + 1


@functools.lru_cache(maxsize=64)
def template_of(macros: CompilerMacros) -> pcpp.Preprocessor:
    """A preprocessor holding a device's predefined macros, made once: defining a hundred
    macros per unit cost more than preprocessing a small unit."""
    template = pcpp.Preprocessor()
    for name in ("__PCPP__", "__DATE__", "__TIME__"):
        template.macros.pop(name, None)
    for name, value in macros.values:
        template.define(f"{name} {value}")
    return template


@dataclasses.dataclass(frozen=True)
class Resumable:
    """A preprocessor's state after a unit's shared prefix (`prefix.shared_prefix`): what
    its tokens wrote and everything it and the unit's bookkeeping keep across lines.
    pcpp's tables are copied out and in, never shared: a unit redefining a macro
    replaces the entry in its own copy."""

    written: str  # what its tokens write (not the tokens: see `lexing.lexed`)
    replay: tuple[LexToken, ...]  # its last non-blank line on (`continuing`)
    replay_written: str  # what those write from a fresh start
    front: bool
    macros: dict[str, object]
    include_once: dict[str, object]
    return_code: int
    symbolic_reads: frozenset[str]
    problems: tuple[str, ...]
    unknown: tuple[str, ...]  # in the order met: the first refusal is reported
    guards: frozenset[str]
    pending_guard: str | None
    extensions: tuple[str, ...]
    fp_contract: bool
def unit_preprocessor(defines: tuple[tuple[str, str | None], ...], options: tuple[str, ...],
                       macros: CompilerMacros, symbolic: frozenset[str]) -> UnitPreprocessor:
    pre = UnitPreprocessor(macros, symbolic)
    for directory in [*include_dirs(options), *pyopencl_include_dirs()]:
        pre.add_path(directory)
    for name, value in defines:
        pre.define(f"{name} {'1' if value is None else value}")
    return pre
