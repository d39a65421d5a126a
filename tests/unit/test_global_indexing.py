"""Which pointers every work-item indexes with its global id (no device needed): the
launch check refuses a short buffer only for these, so anything uncertain finds none."""

import re
from pathlib import Path

import pytest

from clmodes.global_indexing import indexed_pointers
from clmodes.pointer_types import element_bytes

CORPUS = Path(__file__).parents[1] / "corpus"


@pytest.mark.parametrize("body, found", [
    ("out[get_global_id(0)] = 1.0f;", {0}),
    ("int i = get_global_id(0); out[i] = a[i] * n;", {0, 1}),
    ("const size_t i = get_global_id(0); float x = n * 2.0f; out[i] = x;", {0}),
    ("uint i = (uint)get_global_id(0); out[i] = a[i];", {0, 1}),
    ("int i = get_global_id(0); out[i] = n > 0 ? a[i] : 0;", {0}),  # a: only one branch
    ("int i = get_global_id(0); out[i] = n && a[i];", {0}),
])
def test_indexed_on_every_path(body, found):
    source = ("__kernel void k(__global float *out, __global const float *a, int n)"
              " { " + body + " }")
    assert indexed_pointers(source, "k") == frozenset(found)


@pytest.mark.parametrize("body", [
    "int i = get_global_id(0); if (i < n) out[i] = 1.0f;",
    "int i = get_global_id(0); if (i >= n) return; out[i] = 1.0f;",
    "GUARD; out[get_global_id(0)] = 1.0f;",  # a macro may hide a return
    "int i = get_global_id(0); out += n; out[i] = 1.0f;",
    "uchar i = get_global_id(0); out[i] = 1.0f;",  # wraps: reaches 256 elements at most
    "int i = get_global_id(1); out[i] = 1.0f;",
    "int i = get_global_id(0) / 2; out[i] = 1.0f;",
    "int i = get_global_id(0); a[0] = sizeof(out[i]);",
    "int i = get_global_id(0); __global float *p = &out[i];",
    "for (int i = 0; i < n; i++) { out[get_global_id(0)] = 1.0f; }",
    "barrier(CLK_LOCAL_MEM_FENCE); out[get_global_id(0)] = 1.0f;",
    "\n#if N\n return;\n#endif\n out[get_global_id(0)] = 1.0f;",
])
def test_not_certain(body):
    source = ("#define GUARD if (get_global_id(0) >= 4) return\n"
              "__kernel void k(__global float *out, __global const float *a, int n)"
              " { " + body + " }")
    assert indexed_pointers(source, "k") == frozenset()


def test_macros_includes_and_other_kernels_end_the_analysis():
    body = " { out[get_global_id(0)] = 1.0f; }"
    source = "__kernel void k(__global float *out)" + body
    assert indexed_pointers(source, "k") == {0}
    assert indexed_pointers(source, "other") == frozenset()
    assert indexed_pointers(source, "k", macros=["out"]) == frozenset()
    assert indexed_pointers('#include "x.h"\n' + source, "k") == frozenset()
    assert indexed_pointers("#define get_global_id(d) 0\n" + source, "k") == frozenset()
    assert indexed_pointers(source + "\n__kernel void k(__global float *out)" + body, "k") == frozenset()


def test_element_bytes():
    assert element_bytes("float*") == 4 and element_bytes("const double2*") == 16
    assert element_bytes("float3*") == 16 and element_bytes("uchar*") == 1
    assert element_bytes("void*") is None and element_bytes("struct pair*") is None


def test_no_guarded_kernel_of_the_corpus_is_read_as_unguarded():
    """The real-world kernels of the corpus (their authors guard or loop) give none."""
    for path in sorted((CORPUS / "real").rglob("*.cl")):
        source = path.read_text(errors="replace")
        for name in set(re.findall(r"\b(?:__kernel|kernel)\b[^;{}]*?\bvoid\s+(\w+)\s*\(", source)):
            assert indexed_pointers(source, name) == frozenset(), (path, name)
