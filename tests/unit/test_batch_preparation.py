"""Preparing a unit once per process, whatever the compiler probe asks (`batch.unit.settle`).

A unit whose conditionals read names only the compiler knows used to be preprocessed in
full, refused, and preprocessed again after each probe round (three times for John the
Ripper's kernels, whose large headers read `__llvm__`, `__has_builtin(...)`, `__MESA__`).
The rounds now run on `scout`s (the unit's directives alone), and:
- each unit is preprocessed once, with the last answers (counted: the old code made
  one preprocessing per round);
- what a scout says a unit asks is what preprocessing the unit says, on every corpus and
  real-library unit;
- the debug log says what was decided last: no "builds alone" for a unit that batches.
"""

from __future__ import annotations

import logging
from collections import Counter

import pytest

from clmodes import Kernel
from clmodes.batch import CompilerMacros, DeviceTraits, Unit, plan
from clmodes.batch import unit as unit_module
from clmodes.batch.predefined import Answer
from clmodes.batch.directives import conditional_names
from clmodes.includes import included_texts
from clmodes.batch.preprocess import nothing_to_ask, preprocess, scout, scout_directives
from corpus import CASES
from corpus.real_libraries import library_cases

INTEL = DeviceTraits(
    platform_name="Intel(R) OpenCL", version="OpenCL 3.0 LINUX", opencl_c_version="OpenCL C 3.0",
    extensions=("cl_khr_fp64",), features=(), little_endian=True, image_support=True,
)

# Two probe rounds: `__has_builtin` first, then what its branch reads.
TWO_ROUNDS = """
/* {salt} */
#if !defined(__has_builtin)
#define __has_builtin(x) 0
#endif
#if __has_builtin(__builtin_expect) && __clang_major__ >= 10
#define HINT {hint}
#else
#define HINT 2
#endif
__kernel void k{n}(__global int *out) {{ out[0] = HINT; }}
"""

COMPILER = {"__has_builtin": Answer(True), "__has_builtin(__builtin_expect)": Answer(True, 1),
            "__clang_major__": Answer(True, 15)}


class FakeCompiler:
    """`CompilerProbe.ask` without a device: answers from `COMPILER`, counting rounds."""

    def __init__(self) -> None:
        self.known: dict[str, Answer] = {}
        self.asked: list[frozenset[str]] = []

    def macros_for(self, options: tuple[str, ...]) -> CompilerMacros:
        return CompilerMacros.of(INTEL, options, dict(self.known))

    def ask(self, options: tuple[str, ...], names: frozenset[str]) -> CompilerMacros:
        self.asked.append(names)
        self.known.update({n: COMPILER.get(n, Answer(False)) for n in names})
        return self.macros_for(options)


@pytest.fixture
def counted(monkeypatch):
    """Full preprocessings per unit source, as `prepare` makes them."""
    calls: Counter[str] = Counter()

    def counting(source, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls[source] += 1
        return preprocess(source, *args, **kwargs)
    monkeypatch.setattr(unit_module, "preprocess", counting)
    return calls


def _kernels(salt: str) -> list[Kernel]:
    return [Kernel(TWO_ROUNDS.format(salt=salt, n=n, hint=10 + n), f"k{n}") for n in range(2)]


def test_a_unit_is_preprocessed_once_across_probe_rounds(counted):
    compiler = FakeCompiler()
    kernels = _kernels("once across rounds")
    batches = plan(kernels, compiler.macros_for, 32, compiler.ask)
    assert len(compiler.asked) == 2, "the units needed two probe rounds"
    assert [len(b.units) for b in batches] == [2], "the answered units batch together"
    assert all("out[0] = 1" in (u.text or "") for u in batches[0].units)
    assert dict(counted) == {k.source: 1 for k in kernels}, \
        "each unit was preprocessed more than once across the probe rounds"


def test_a_lone_unit_is_preprocessed_once_across_probe_rounds(counted):
    compiler = FakeCompiler()
    kernel = _kernels("lone across rounds")[0]
    unit = Unit.of(kernel)
    prepared = unit_module.prepare_asking(unit, compiler.macros_for(()), compiler.ask)
    assert prepared.batchable and "out[0] = 10" in (prepared.text or "")
    assert counted[kernel.source] == 1


def test_the_log_says_what_was_decided_last(caplog):
    compiler = FakeCompiler()
    with caplog.at_level(logging.DEBUG, logger="clmodes"):
        batches = plan(_kernels("log says last"), compiler.macros_for, 32, compiler.ask)
    assert [len(b.units) for b in batches] == [2]
    assert not [r for r in caplog.records if "builds alone" in r.getMessage()], \
        "a unit the probe then batched was logged as building alone"
    assert any("the compiler answered" in r.getMessage() for r in caplog.records)


def _units() -> list[Unit]:
    kernels = [Kernel(c.source, c.name, defines=dict(c.defines), options=c.options) for c in CASES]
    kernels += [Kernel(c.source, e, defines=dict(c.defines), options=c.options)
                for c in library_cases() for e in c.entries[:1]]
    return [Unit.of(k) for k in kernels]


@pytest.mark.parametrize("answers", [{}, {"__has_builtin": Answer(True), "__clang__": Answer(True, 1)}],
                         ids=["unanswered", "answered"])
def test_a_scout_asks_what_preprocessing_asks(answers):
    """Over the corpus and the real libraries: the rounds decide on scouts what they
    decided on full preprocessings."""
    for unit in _units():
        macros = CompilerMacros.of(INTEL, unit.options, answers)
        whole = preprocess(unit.source, unit.defines, unit.options, macros, includes=unit.includes)
        assert scout(unit.source, unit.defines, unit.options, macros, unit.includes) \
            == whole.unknown, unit.tag


@pytest.mark.parametrize("answers", [{}, {"__has_builtin": Answer(True), "__clang__": Answer(True, 1)}],
                         ids=["unanswered", "answered"])
def test_a_unit_said_to_have_nothing_to_ask_asks_nothing_the_long_way(answers):
    """`nothing_to_ask` (a line scan) never hides a name the directives run through pcpp
    would ask, over the corpus and the real libraries; and it spares most of them."""
    spared = 0
    units = _units()
    for unit in units:
        macros = CompilerMacros.of(INTEL, unit.options, answers)
        if nothing_to_ask(unit.source, unit.defines, unit.options, macros):
            spared += 1
            assert scout_directives(unit.source, unit.defines, unit.options, macros) == frozenset(), unit.tag
    # 68 of the 139 read what the compiler may define (CLBlast's `__has_builtin`, the
    # extension tests); 28 include headers, read with the unit where the include walk
    # vouches for them (17 of them spared: 66 in all, 49 before headers were read).
    assert spared >= 60, (spared, len(units))


def test_a_line_scan_sees_every_conditional_or_gives_up():
    # A continued line; a name in the text (not a conditional's) is not read.
    assert conditional_names("#if A \\\n  && __GNUC__\n#endif\nx = __FOO__;", ()) == {"A", "__GNUC__"}
    # Through macros, transitively, and `-D` values; a pragma's or an unread macro's names
    # are not read.
    unit = ("#define X(y) Y(y)\n#define Y(z) __has_builtin(z)\n#define L __local\n"
            "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#if X(f) || D\n#endif\n")
    assert conditional_names(unit, (("D", "__SIZEOF_INT__"),)) == {
        "X", "f", "D", "y", "Y", "z", "__has_builtin", "__SIZEOF_INT__"}
    # Whether a name is defined reads the name, not its body.
    tested = "#define L __local\n#define M __kernel\n#ifdef L\n#elif defined(M) || defined N\n#endif\n"
    assert conditional_names(tested, ()) == {"L", "M", "N"}
    assert conditional_names('#include "h.cl"\n', ()) is None  # its directives are elsewhere
    assert conditional_names("??=if __GNUC__\n??=endif\n", ()) is None  # a trigraph's `#`
    assert conditional_names("%:if __GNUC__\n%:endif\n", ()) is None  # a digraph's
    macros = CompilerMacros.of(INTEL, (), {})
    assert not nothing_to_ask("#if X > 1\n#endif\n", (("X", "__SIZEOF_INT__"),), (), macros)
    assert nothing_to_ask("#ifndef TAPS\n#define TAPS 16\n#endif\n", (), (), macros)


def test_a_line_scan_reads_the_headers_the_include_walk_vouches_for(tmp_path):
    """Directives in an included file are read with the unit's; the scan gives up where
    the walk cannot vouch for every file the compiler may include."""
    (tmp_path / "common.h").write_text('#ifdef USE_FMA\n#define MAD(c, a, b) c = fma(a, b, c)\n'
                                       '#endif\n#include "inner.h"\n')
    (tmp_path / "inner.h").write_text("#if __OPENCL_C_VERSION__ >= 200\n#define NEW 1\n#endif\n")
    (tmp_path / "plain.h").write_text("#ifndef PLAIN_H\n#define PLAIN_H\n#define ONE 1.0f\n#endif\n")
    options = (f"-I{tmp_path}",)
    macros = CompilerMacros.of(INTEL, options, {})
    # The nested header reads a name the compiler defines: the scout must run.
    asks = '#include "common.h"\n__kernel void k() {}\n'
    assert included_texts(asks, options, {}) is not None
    assert not nothing_to_ask(asks, (), options, macros)
    assert "__OPENCL_C_VERSION__" in scout_directives(asks, (), options, macros)
    # A header whose conditionals read only its own guard: nothing to ask, and the scout agrees.
    quiet = '#include "plain.h"\n#ifndef TAPS\n#define TAPS 16\n#endif\n__kernel void k() {}\n'
    assert nothing_to_ask(quiet, (), options, macros)
    assert scout_directives(quiet, (), options, macros) == frozenset()
    # Not found here, or named by a macro: the compiler may read something else.
    assert included_texts('#include "absent.h"\n', options, {}) is None
    assert not nothing_to_ask('#include "absent.h"\n', (), options, macros)
    assert included_texts("#include HEADER\n", options, {"HEADER": '"plain.h"'}) is None
    assert included_texts("__kernel void k() {}\n", options, {}) == ()
