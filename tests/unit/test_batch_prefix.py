"""A shared include prefix preprocessed once (`batch/prefix.py`, `preprocess`): where the
prefix ends, and that a unit continued from another unit's prefix state is exactly the
unit preprocessed alone (text, refusals, line numbers), with its own defines and the
headers as they are now."""

from __future__ import annotations

import dataclasses
import os
import re

import pytest
from pcpp.parser import trigraph

import clmodes.batch.preprocess as preprocessing
from clmodes import Kernel
from clmodes.batch import CompilerMacros, DeviceTraits, Unit, prepare
from clmodes.batch.prefix import shared_prefix
from corpus import CASES, INCLUDE
from corpus.real_libraries import library_cases

GPU = DeviceTraits(
    platform_name="NVIDIA CUDA", version="OpenCL 3.0 CUDA", opencl_c_version="OpenCL C 1.2 ",
    extensions=("cl_khr_fp64",), features=("__opencl_c_fp64",), little_endian=True,
    image_support=True,
)
BODY = "__kernel void k(__global float* a) { a[0] = SCALE; }\n"


def _prefix(source: str):
    import pcpp
    lines = list(pcpp.Preprocessor().group_lines(trigraph(source), "u"))
    return shared_prefix(lines, trigraph(source))


def _preprocess(kernel: Kernel):
    macros = CompilerMacros.of(GPU, kernel.options)
    return preprocessing.preprocess(kernel.source, kernel.defines, kernel.options, macros,
                                    includes=kernel.includes)


@pytest.mark.parametrize("source, lines, front", [
    ('#include "a.h"\n' + BODY, 1, True),
    ('/* licence\n  text */\n#define A 1\n#include "a.h"\n\n#include "b.h"\n' + BODY, 5, False),
    ('#ifdef X\n#include "a.h"\nint t;\n#endif\n#include "b.h"\n' + BODY, 5, False),
    ('#define X \\\n  2\n#include "a.h"\n' + BODY, 2, False),
    ('#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#include "a.h"\n' + BODY, 2, False),
])
def test_the_prefix_ends_after_the_last_top_level_include_of_the_leading_directives(
        source, lines, front):
    found = _prefix(source)
    assert (found.lines, found.front) == (lines, front)
    assert source.startswith(found.text) and found.text.splitlines()[-1].startswith("#include")


@pytest.mark.parametrize("source", [
    BODY + '#include "a.h"\n',  # text first
    '#ifdef X\n#include "a.h"\n#endif\n' + BODY,  # only inside a conditional
    '#pragma once\n#include "a.h"\n' + BODY,  # left to the unit
    "#define A 1\n" + BODY,
])
def test_no_prefix_without_a_top_level_include_in_the_leading_directives(source):
    assert _prefix(source) is None


def test_the_prefix_text_keeps_where_lines_were_continued():
    """Equal token texts, different line numbers: they must not share a prefix state."""
    one, two = _prefix('#define X 1 \\\n\n#include "a.h"\n'), _prefix('#define X 1 \n\\\n#include "a.h"\n')
    assert one.text != two.text


# A unit's own `#ifndef` right after the prefix is a guard only at the file's front: past
# a `#define` it reads a name the compiler may predefine, and the unit must build alone.
EDGES = [
    '#include "scale.h"\n#ifndef __MY_GUARD__\n#define __MY_GUARD__\n#endif\n' + BODY,
    '#define A 1\n#include "scale.h"\n#ifndef __MY_GUARD__\n#define __MY_GUARD__\n#endif\n' + BODY,
    '/* c */\n#define X \\\n  2\n#include "scale.h"\n' + BODY.replace("SCALE", "SCALE + X + __LINE__"),
    '#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#include "scale.h"\n' + BODY,
    '#ifdef cl_khr_fp64\n#include "types.h"\n#endif\n#include "scale.h"\n' + BODY,
    '#include "no_such_header.h"\n' + BODY,
    '#include "scale.h"\n#if SCALE > 1\n' + BODY + "#endif\n",
]


def _units() -> list[Kernel]:
    kernels = [Kernel(c.source, c.name, defines=c.defines, options=c.options) for c in CASES]
    kernels += [Kernel(c.source, c.entries[0], defines=dict(c.defines), options=c.options)
                for c in library_cases()]
    kernels += [Kernel(source, "k", options=INCLUDE) for source in EDGES]
    kernels += [Kernel(source, "k", defines={"SCALE": "7"}, options=INCLUDE) for source in EDGES]
    return kernels


def test_a_resumed_unit_is_exactly_the_unit_preprocessed_whole(monkeypatch):
    kernels = _units()
    assert sum(_prefix(k.source) is not None for k in kernels) >= len(EDGES) * 2
    preprocessing.preprocess.cache_clear()
    resumed = [_preprocess(k) for k in kernels]
    monkeypatch.setattr(preprocessing, "shared_prefix", lambda lines, text: None)
    preprocessing.preprocess.cache_clear()
    whole = [_preprocess(k) for k in kernels]
    preprocessing.preprocess.cache_clear()
    for kernel, a, b in zip(kernels, resumed, whole):
        assert dataclasses.replace(a, shared=None) == b, kernel.name
        if a.shared is not None:  # where the prefix ends in it, and what follows alone
            assert a.text.startswith(a.shared.text), kernel.name
            assert a.shared.rest == '' or a.shared.rest.startswith('#line '), kernel.name
    assert sum(a.shared is not None for a in resumed) >= len(EDGES)
    at_front, past_front = resumed[-len(EDGES) * 2], resumed[-len(EDGES) * 2 + 1]
    assert at_front.text is not None  # a guard
    assert past_front.text is None and "__MY_GUARD__" in past_front.reason


HEADER = """#ifndef SCALE_H
#define SCALE_H
#ifdef DOUBLE_IT
#define FACTOR (2 * SCALE)
#else
#define FACTOR SCALE
#endif
inline float scale_it(float x) { return x * FACTOR; }
#endif
"""


def _with_header(folder, body: str, **defines) -> Kernel:
    return Kernel(f'#define SCALE 3\n#include "h.h"\n{body}', "k", defines=defines,
                  options=("-I", str(folder)))


def test_defines_before_the_include_give_each_unit_its_own_expansion(tmp_path):
    (tmp_path / "h.h").write_text(HEADER)
    plain = _preprocess(_with_header(tmp_path, "__kernel void k(__global float* a) { a[0] = scale_it(1); }"))
    doubled = _preprocess(_with_header(tmp_path, "__kernel void k(__global float* a) { a[0] = scale_it(2); }",
                                       DOUBLE_IT=None))
    assert "x * 3" in plain.text and "x * (2 * 3)" in doubled.text


def test_an_edited_header_is_expanded_again(tmp_path):
    header = tmp_path / "h.h"
    first, second = HEADER, HEADER.replace("x * FACTOR", "x + FACTOR")
    texts = []
    for stamp, text in [(1_000_000_000, first), (1_000_000_001, second)]:
        header.write_text(text)  # the same size: only the content and stamp move
        os.utime(header, (stamp, stamp))
        kernel = _with_header(tmp_path, f"__kernel void k(__global float* a) {{ a[0] = {stamp}; }}")
        texts.append(_preprocess(kernel).text)
    assert "x * 3" in texts[0] and "x + 3" in texts[1]


def _line_of(text: str, marker: str) -> tuple[int, str]:
    """The (line number, file) `#line` directives give the line holding `marker`."""
    line, name = 0, ""
    for physical in text.splitlines():
        directive = re.match(r'#line (\d+) "([^"]*)"', physical)
        if directive:
            line, name = int(directive.group(1)), directive.group(2)
            continue
        if marker in physical:
            return line, name
        line += 1
    raise AssertionError(f"{marker} not in the text")


def test_a_resumed_unit_keeps_its_own_line_numbers():
    source = ('#define PYOPENCL_DEFINE_CDOUBLE\n#include <pyopencl-complex.h>\n\n'
              "__kernel void k(__global cfloat_t* a)\n{\n  a[0] = marker_here;\n}\n")
    macros = CompilerMacros.of(GPU, ())
    first = prepare(Unit.of(Kernel(source, "k")), macros)
    second = prepare(Unit.of(Kernel(source.replace("a[0]", "a[1]"), "k")), macros)
    for prepared in (first, second):
        line, name = _line_of(prepared.text, "marker_here")
        assert (line, name) == (6, prepared.unit.tag)
