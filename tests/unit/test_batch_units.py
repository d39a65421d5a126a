"""The batcher's pure parts, without a device: tokens, renaming, predefined macros, and the
decision to batch or to build alone (on recorded device descriptions)."""

from __future__ import annotations

import pytest

from clmodes import Kernel
from clmodes.batch import CompilerMacros, DeviceTraits, Unit, prepare
from clmodes.batch.rename import rename
from clmodes.batch.tokens import tokenize

GPU = DeviceTraits(
    platform_name="NVIDIA CUDA", version="OpenCL 3.0 CUDA", opencl_c_version="OpenCL C 1.2 ",
    extensions=("cl_khr_fp64", "cl_khr_global_int32_base_atomics"),
    features=("__opencl_c_fp64", "__opencl_c_images"), little_endian=True, image_support=True,
)
NO_FP64 = DeviceTraits(
    platform_name="Intel(R) OpenCL Graphics", version="OpenCL 3.0 NEO",
    opencl_c_version="OpenCL C 1.2", extensions=("cl_khr_fp16",), features=(),
    little_endian=True, image_support=False,
)


def _prepare(source: str, traits: DeviceTraits = GPU, **kwargs) -> object:
    unit = Unit.of(Kernel(source, kwargs.pop("name", "k"), **kwargs))
    return prepare(unit, CompilerMacros.of(traits, unit.options))


def test_tokens_give_the_text_back():
    text = '#pragma unroll 4\nfloat f = .5f; /* c */ char* s = "a.w"; // x\n  #line 3\n'
    assert "".join(t.text for t in tokenize(text)) == text
    kinds = [t.kind.value for t in tokenize(text) if t.kind.value != "space"]
    assert kinds[0] == "directive" and "directive" in kinds[1:]


def test_member_accesses_and_struct_members_are_never_renamed():
    text = ("__constant float w[2] = {1, 2};\ntypedef struct { float w; float x, y; } P;\n"
            "float f(float4 v, P p) { P q = {.w = 1}; return v.w + p.w + w[0] + (&p)->x; }\n")
    renamed = rename(tokenize(text), {"w", "P", "f", "x"}, "_S")
    assert "__constant float w_S[2]" in renamed
    assert "struct { float w; float x, y; } P_S;" in renamed
    assert "v.w + p.w + w_S[0] + (&p)->x" in renamed
    assert "{.w = 1}" in renamed and "float f_S(" in renamed


@pytest.mark.parametrize("name, unknown", [
    ("__has_builtin", True), ("__clang__", True), ("__x86_64__", True), ("cl_khr_fp16", True),
    ("CL_VERSION_2_0", True), ("__OPENCL_C_VERSION__", True), ("M_PI", False),
    ("USE_INT", False), ("PRECISION", False), ("__cplusplus", False), ("__IMAGE_SUPPORT__", False),
])
def test_names_the_compiler_may_predefine(name, unknown):
    macros = CompilerMacros.of(GPU, ())
    assert (name not in macros.as_dict() and macros.maybe_predefined(name)) == unknown


def test_double_constants_are_known_only_with_fp64():
    assert "M_PI" in CompilerMacros.of(GPU, ()).as_dict()
    without = CompilerMacros.of(NO_FP64, ())
    assert "M_PI" not in without.as_dict() and without.maybe_predefined("M_PI")
    assert "M_PI_H" in without.as_dict()  # cl_khr_fp16


def test_cl_std_fixes_the_language_version():
    assert CompilerMacros.of(GPU, ("-cl-std=CL2.0",)).as_dict()["__OPENCL_C_VERSION__"] == "200"
    assert CompilerMacros.of(GPU, ("-cl-std=CLC++",)).unsupported


@pytest.mark.parametrize("source, reason", [
    ("#if __has_builtin(__builtin_expect)\n#endif\n", "may predefine"),
    ("#ifdef __clang__\n#endif\n", "__clang__"),
    ("#if !defined(__has_builtin)\n#define __has_builtin(x) 0\n#endif\n", "__has_builtin"),
    ('#include "no/such/header.h"\n', "not found"),
    ("#error never\n", "#error"),
    ("#pragma OPENCL SELECT_ROUNDING_MODE rte\n", "#pragma"),
    ("#undef M_PI\n", "#undef"),
    ("__constant char f[] = __FILE__;\n", "__FILE__"),
])
def test_units_that_cannot_be_proved_safe_build_alone(source, reason):
    prepared = _prepare(source + "__kernel void k(__global int* a) { a[0] = 1; }\n")
    assert not prepared.batchable
    assert reason in prepared.reason


@pytest.mark.parametrize("source", [
    "#ifndef __MY_GUARD_H__\n#define __MY_GUARD_H__\n#endif\n",  # a reserved-looking guard
    "#ifndef M_PI\n#define M_PI 3.14f\n#endif\n",
    "#ifdef cl_khr_fp64\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#endif\n",
    "#if __OPENCL_VERSION__ >= 120 && defined(__IMAGE_SUPPORT__)\n#endif\n",
    "#pragma unroll 4\n",
])
def test_units_that_batch(source):
    prepared = _prepare(source + "__kernel void k(__global int* a) { a[0] = 1; }\n")
    assert prepared.batchable, prepared.reason


def test_variants_share_one_preprocessing_and_keep_their_defines():
    source = "typedef REAL real_t;\n__kernel void k(__global real_t* a, real_t v) { a[0] = v * F; }\n"
    first = _prepare(source, defines={"REAL": "float", "F": 2})
    second = _prepare(source, defines={"REAL": "int", "F": 3})
    assert "#define F 2" in first.text and "#define F 3" in second.text
    assert "#undef REAL" in first.text
    assert dict(first.aliases)["REAL"] == "float" and dict(second.aliases)["REAL"] == "int"


def test_a_define_read_by_a_conditional_is_expanded_per_variant():
    source = "#if F > 2\n#define G 1\n#else\n#define G 0\n#endif\n__kernel void k(__global int* a) { a[0] = G; }\n"
    assert "a[0] = 1;" in _prepare(source, defines={"F": 3}).text
    assert "a[0] = 0;" in _prepare(source, defines={"F": 1}).text
