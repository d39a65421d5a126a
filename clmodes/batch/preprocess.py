"""Preprocessing one unit on its own, with pcpp, as the device's compiler would.

Each unit (one source with one set of defines and options) is preprocessed alone, with
its own defines, its includes resolved for it alone (so include guards and `#pragma once`
are per unit: two units including `scale.h` with SCALE=2 and SCALE=3 each get their own
`scale_it`), and the macros its device's compiler predefines (`predefined`). The result
has every user macro expanded and no `#define` left, so units concatenated into one
program cannot see each other's macros, and nothing needs `#undef` (an `#undef` of a
compiler macro such as `M_PI` removed it for every later unit).

The preprocessor also decides whether the result can be trusted. A unit *cannot batch*,
and builds alone from its original text, when:
- a conditional reads a name the compiler might predefine that clmodes does not know
  (`__has_builtin`, `__clang__`, a vendor macro, an unlisted extension): guessing would
  silently change what the unit computes. Such names (and feature-check calls,
  `__has_builtin(x)`) are returned as `Preprocessed.unknown`, so that the compiler can be
  asked (`compiler_probe`) and the unit preprocessed again with its answers;
- `#if` arithmetic reads a predefined name whose value is no integer (`M_PI_F`, or a
  name the compiler defines as something else);
- an `#include` is not found here (the compiler may still find it), the unit `#error`s,
  the unit uses `__FILE__`/`__DATE__`/`__TIME__`/`__COUNTER__`, `#undef`s a predefined
  macro, or has a `#pragma` that uses a macro or keeps state across the file (other than
  `OPENCL EXTENSION` and `OPENCL FP_CONTRACT`, which the batch resets after the unit);
- pcpp itself reports an error.
Why pcpp and not libclang: docs/decisions/pcpp-not-libclang.md. The pcpp subclass that reads
the directives is `unit_preprocessor`.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import logging
import re
import threading
from collections.abc import Callable

from pcpp.parser import trigraph

from clmodes.batch.directives import conditional_names
from clmodes.batch.predefined import FEATURE_CHECKS, CompilerMacros
from clmodes.batch.prefix import Prefix, shared_prefix
from clmodes.batch.lexing import token_lines
from clmodes.batch.unit_preprocessor import MAIN, Resumable, UnitPreprocessor, unit_preprocessor
from clmodes.includes import included_digest, included_texts

log = logging.getLogger("clmodes")

_UNSTABLE = re.compile(r"\b(__FILE__|__DATE__|__TIME__|__COUNTER__|__TIMESTAMP__|__BASE_FILE__)\b")
_PASSED_THROUGH = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif|define|undef|include)\b", re.M)


@dataclasses.dataclass(frozen=True)
class Preprocessed:
    """A unit's preprocessed text, or why it cannot batch."""

    text: str | None
    reason: str | None  # set when `text` is None
    extensions: tuple[str, ...] = ()  # `#pragma OPENCL EXTENSION x : enable`d
    fp_contract: bool = False  # sets `#pragma OPENCL FP_CONTRACT`
    macros: frozenset[str] = frozenset()  # the macros the unit itself left defined
    # Symbolic defines its directives read, when that was all that went wrong: defining
    # those for real and keeping the others symbolic may still succeed.
    reads: frozenset[str] = frozenset()
    # Names and feature-check calls only the compiler can answer, when they were all that
    # went wrong: asked and answered, the unit may batch.
    unknown: frozenset[str] = frozenset()
    # Set when the unit was continued from its shared include prefix's state: `text` is
    # then that prefix's output followed by the rest's, and a batch may hold the prefix's
    # output once for all the units that continue from it (`batch/unit.py`).
    shared: "SharedPrefix | None" = None


@dataclasses.dataclass(frozen=True)
class SharedPrefix:
    """A unit's output cut where its shared include prefix ends."""

    text: str  # what the prefix writes (the start of `Preprocessed.text`)
    rest: str  # what the rest of the unit writes on its own: it starts with its `#line`


_MemoKey = tuple[str, tuple[tuple[str, str | None], ...], tuple[str, ...], CompilerMacros,
                 frozenset[str], str | None]
_PREFIXES = 64
_prefixes: collections.OrderedDict[_MemoKey, Resumable | None] = collections.OrderedDict()
_prefixes_lock = threading.Lock()


def _after_prefix(
    prefix: Prefix, source: str, defines: tuple[tuple[str, str | None], ...], options: tuple[str, ...],
    macros: CompilerMacros, symbolic: frozenset[str],
) -> Resumable | None:
    """The state after `prefix`, made once per prefix text, defines, options, compiler
    macros, symbolic set and the digest of what the prefix itself includes (an edited
    header is expanded again; the rest of the unit's includes do not split the memo).
    None: the prefix cannot be resumed from (pcpp failed, or the cut was inside a
    conditional after all); the unit is then preprocessed whole."""
    key = (prefix.text, defines, options, macros, symbolic,
           included_digest(prefix.text, options, dict(defines)))
    with _prefixes_lock:
        if key in _prefixes:
            _prefixes.move_to_end(key)
            return _prefixes[key]
    pre = unit_preprocessor(defines, options, macros, symbolic)
    pre.main_lines = slice(prefix.lines)
    try:
        pre.parse(source, MAIN)
        tokens = tuple(pre.parser)
    except Exception:  # pcpp raises plain exceptions on malformed input: the whole unit says
        state = None
    else:
        cut_inside = any("Unterminated" in p for p in pre.problems)
        state = None if cut_inside else pre.snapshot(tokens, prefix.front)
    with _prefixes_lock:
        _prefixes[key] = state
        while len(_prefixes) > _PREFIXES:
            _prefixes.popitem(last=False)
    return state




def _parsed(source: str, defines: tuple[tuple[str, str | None], ...], options: tuple[str, ...],
            macros: CompilerMacros, symbolic: frozenset[str],
            ) -> tuple[UnitPreprocessor, Resumable | None]:
    """A preprocessor ready to write the unit: from its shared prefix's state where it has
    one (returned with it: its tokens are written already), else from its first line."""
    text = trigraph(source)  # what pcpp lexes
    prefix = shared_prefix(token_lines(text, MAIN), text) if "include" in text else None
    state = None if prefix is None else _after_prefix(
        prefix, source, defines, options, macros, symbolic)
    if prefix is None or state is None:
        return _parsed_whole(source, defines, options, macros, symbolic), None
    pre = unit_preprocessor((), options, macros, symbolic)  # the state has the defines
    pre.resume(state, source, prefix.lines)
    return pre, state


def _parsed_whole(source: str, defines: tuple[tuple[str, str | None], ...],
                  options: tuple[str, ...], macros: CompilerMacros,
                  symbolic: frozenset[str]) -> UnitPreprocessor:
    pre = unit_preprocessor(defines, options, macros, symbolic)
    pre.parse(source, MAIN)
    return pre


def _write(pre: UnitPreprocessor, state: Resumable | None,
           whole: Callable[[], UnitPreprocessor]) -> tuple[str, SharedPrefix | None]:
    """The unit's output, and where a resumed unit's shared prefix ends in it. `whole`:
    the unit parsed from its first line, for a replay that did not start as it wrote."""
    if state is None:
        return pre.output(), None
    rest = list(pre.parser)  # pcpp reads the rest's directives here
    text = pre.continuing(state, rest)
    if text is None:
        return whole().output(), None
    return text, SharedPrefix(state.written, pre.written(rest))


@functools.lru_cache(maxsize=2048)
def scout(
    source: str,
    defines: tuple[tuple[str, str | None], ...],
    options: tuple[str, ...],
    macros: CompilerMacros,
    includes: str | None = None,
) -> frozenset[str]:
    """What `preprocess` would report as `unknown` under `macros` (the names only the
    compiler can answer), found by running the unit's directives alone, text unexpanded
    (`UnitPreprocessor.expand_macros`). Why: a unit reading such names used to be
    preprocessed in full, refused, preprocessed again after each probe round's answers
    (three times for John the Ripper's kernels, whose headers read `__llvm__`,
    `__has_builtin(...)`, `__MESA__`), and only the last one counted; the rounds now
    run on scouts and the unit is preprocessed once, with the final answers
    (`unit.settle`). Directives read the same macros scouting as preprocessing: text
    expansion defines nothing. It may say more than `preprocess` (an error only text
    expansion meets would have refused the unit without asking): then the compiler is
    asked for names that change nothing. `includes`: part of the cache key only. A unit
    whose conditionals read no name the compiler could define has nothing to ask, known
    without running them (`directives`)."""
    if macros.unsupported or _UNSTABLE.search(source):
        return frozenset()
    if nothing_to_ask(source, defines, options, macros):
        return frozenset()
    return scout_directives(source, defines, options, macros)


def nothing_to_ask(source: str, defines: tuple[tuple[str, str | None], ...],
                   options: tuple[str, ...], macros: CompilerMacros) -> bool:
    """Do the unit's conditionals read no name the compiler could define (so that
    `scout_directives` would find nothing to ask)? False where a line scan cannot tell."""
    if any(option.startswith("-include") for option in options):
        return False
    included = included_texts(source, options, dict(defines))
    if included is None:
        return False
    names = conditional_names(source, defines, included)
    return names is not None and not any(
        macros.maybe_predefined(name) or name in FEATURE_CHECKS for name in names)


def scout_directives(source: str, defines: tuple[tuple[str, str | None], ...],
                     options: tuple[str, ...], macros: CompilerMacros) -> frozenset[str]:
    """`scout`'s answer found the long way: the unit's directives run through pcpp."""
    pre = unit_preprocessor(defines, options, macros, frozenset())
    pre.scouting = True
    try:
        pre.parse(source, MAIN)
        for _ in pre.parser:  # pcpp reads the directives as the tokens are asked for
            pass
    except Exception:  # pcpp raises plain exceptions on malformed input: `preprocess` says
        return frozenset()
    return pre.unknown_queries()


@functools.lru_cache(maxsize=2048)
def preprocess(
    source: str,
    defines: tuple[tuple[str, str | None], ...],
    options: tuple[str, ...],
    macros: CompilerMacros,
    symbolic: frozenset[str] = frozenset(),
    includes: str | None = None,
) -> Preprocessed:
    """One unit preprocessed alone (cached: tunables preprocess the same units often).
    `symbolic`: define names left undefined (see `UnitPreprocessor`). `includes`: the
    digest of the files it includes (`Kernel.includes`), read only as part of the cache
    key, so that a header edited during the process is preprocessed again. The text is
    exactly what preprocessing the unit from its first line writes, also where the
    expansion of its shared include prefix comes from another unit (`_after_prefix`)."""
    if macros.unsupported:
        return Preprocessed(None, macros.unsupported)
    if _UNSTABLE.search(source):
        return Preprocessed(None, "it uses __FILE__, __DATE__, __TIME__ or __COUNTER__")
    try:
        pre, state = _parsed(source, defines, options, macros, symbolic)
        text, shared = _write(pre, state, lambda: _parsed_whole(source, defines, options, macros, symbolic))
    except Exception as error:  # pcpp raises plain exceptions on malformed input
        return Preprocessed(None, f"pcpp failed: {type(error).__name__}: {error}")
    refusals = pre.refusals()
    if refusals:
        return Preprocessed(None, refusals[0], reads=pre.only_reads(),
                            unknown=pre.unknown_queries())
    passed = _PASSED_THROUGH.search(text)
    if passed:  # pcpp kept a directive it could not execute: its effect would be lost
        return Preprocessed(None, f"pcpp could not execute #{passed.group(1)}")
    predefined = pre.template.macros  # not `template_of(macros)` per name: it hashes `macros`
    own = frozenset(n for n, m in pre.macros.items() if predefined.get(n) is not m)
    return Preprocessed(text, None, tuple(dict.fromkeys(pre.extensions)), pre.fp_contract, own,
                        shared=shared)
