"""One copy of a shared include prefix per batch (`batch/unit.py`: `PrefixBlock`): units
that start with the same header share its output, renamed once, where that cannot change
what any of them computes; otherwise each keeps its own copy. (That the shared form
computes bit for bit what each program computes alone is the corpus's `shared_header`
group, tests/device/test_batching_corpus.py.)"""

from __future__ import annotations

import pytest

from clmodes import Kernel
from clmodes.batch import Batch, CompilerMacros, DeviceTraits, Unit, prepare
from clmodes.batch.symbols import program_state
from clmodes.batch.tokens import tokenize
from corpus import GROUPS

TRAITS = DeviceTraits(
    platform_name="NVIDIA CUDA", version="OpenCL 3.0 CUDA", opencl_c_version="OpenCL C 1.2 ",
    extensions=("cl_khr_fp64",), features=("__opencl_c_fp64",), little_endian=True,
    image_support=True,
)
USER = """#include "lib.h"
__kernel void {name}(__global float* a) {{ a[0] = lib_twice(a[0]) * {factor}; }}
"""


def _batch(kernels: list[Kernel]) -> Batch:
    prepared = [prepare(Unit.of(k), CompilerMacros.of(TRAITS, k.options)) for k in kernels]
    assert all(p.batchable for p in prepared), [p.reason for p in prepared]
    return Batch.of(prepared, ())


def _users(tmp_path, header: str, defines=None) -> list[Kernel]:
    (tmp_path / "lib.h").write_text(header)
    options = ("-I", str(tmp_path))
    return [Kernel(USER.format(name=f"k{i}", factor=i + 2), f"k{i}", options=options,
                   defines=defines or {}) for i in range(3)]


def test_units_starting_with_one_header_hold_one_copy_of_it(tmp_path):
    batch = _batch(_users(tmp_path, "inline float lib_twice(float x) { return 2 * x; }\n"))
    assert len({u.prefix.identity for u in batch.units if u.prefix}) == 1
    assert all(u.prefix is not None for u in batch.units)
    assert batch.source.count("inline float lib_twice") == 1
    # every unit calls the one copy, by the prefix's suffix, not its own
    suffix = next(u.prefix for u in batch.units).identity[:12]
    assert batch.source.count(f"lib_twice__clm{suffix}(a[0])") == 3


def test_the_corpus_header_is_held_once_and_its_definer_keeps_its_own(tmp_path):
    kernels = [Kernel(c.source, c.name, defines=c.defines, options=c.options)
               for c in GROUPS["shared_header"]]
    batch = _batch(kernels)
    sharing = {u.unit.source.split("__kernel void ")[1].split("(")[0]: u.prefix is not None
               for u in batch.units}
    assert sharing == {"shared_muladd": True, "shared_spans": True, "shared_step": True,
                       "shared_hook": False}  # shared_hook defines the header's prototype
    assert batch.source.count("__constant float sl_weights") == 2  # shared + shared_hook's
    # the header's FP_CONTRACT OFF holds again for each sharing unit after the last one's reset
    assert batch.source.count("#pragma OPENCL FP_CONTRACT OFF") == 2 + 4


@pytest.mark.parametrize("header, why", [
    ("global int lib_calls;\ninline float lib_twice(float x) { return 2 * x; }\n",
     "a program-scope variable a program may change"),
    ("inline float lib_twice(float x) { return 2 * x; }\n"
     "__kernel void lib_fill(__global float* a) { a[0] = 1; }\n",
     "a kernel, whose entry name carries its unit's suffix"),
    ("inline float lib_twice(float x) { return STEP * x; }\n",
     "the header reads a define each variant sets apart"),
    ("inline float lib_twice(float x) { return 2 * x; }\ntypedef struct {\n",
     "a header that ends inside a declaration its includer finishes"),
])
def test_a_header_that_one_copy_could_change_is_copied_per_unit(tmp_path, header, why):
    kernels = [Kernel(USER.format(name="k", factor=2), "k", options=("-I", str(tmp_path)),
                      defines={"STEP": step}) for step in ("2.0f", "3.0f")]
    (tmp_path / "lib.h").write_text(header)
    batch = _batch(kernels)
    assert all(u.prefix is None for u in batch.units), why
    assert batch.source.count("lib_twice__clm") >= 2 * 2, why


def test_constant_tables_tags_and_functions_are_no_program_state():
    text = """typedef float real; struct s { float a; }; struct t; enum e { A, B };
    __constant float w[2] = {1, 2}; const float q = 3; inline float f(float x) { return x; }
    float g(float x);"""
    assert program_state(tokenize(text)) == []
    assert program_state(tokenize("global int calls; struct s { int a; } held;")) == [
        "global int calls", "struct s {} held"]
