"""The compiler's predefined-macro answers without a device: reading a probe's output,
turning answers into the macros a unit is preprocessed with, what a unit then asks, and
hostile answers in the store (the probe itself runs in tests/device/test_compiler_probe.py)."""

from __future__ import annotations

import json
import logging

import pytest

from clmodes import Kernel
from clmodes.batch import CompilerMacros, DeviceTraits, Unit, prepare
from clmodes.batch.predefined import Answer
from clmodes.compiler_probe import integer, options_digest, probe_source, read_answer
from clmodes.store import Store

INTEL = DeviceTraits(
    platform_name="Intel(R) OpenCL", version="OpenCL 3.0 LINUX", opencl_c_version="OpenCL C 3.0",
    extensions=("cl_khr_fp64", "cl_khr_integer_dot_product"),
    features=("__opencl_c_integer_dot_product_input_4x8bit",), little_endian=True,
    image_support=True,
)


@pytest.mark.parametrize("text, value", [
    ("300", 300), ("(1)", 1), ("0x10", 16), ("010", 8), ("201904L", 201904), ("-1", -1),
    ("((void*)0)", None), ("3.14F", None), ("", None), ("1 + 1", None), ("__builtin_inff()", None),
])
def test_only_an_integer_literal_is_a_value(text, value):
    assert integer(text) == value


def test_a_slot_reads_as_the_compiler_wrote_it():
    slot = lambda text: text.encode() + b"\0" * (256 - len(text))  # noqa: E731
    assert read_answer("X", slot("U")) == Answer(False)
    assert read_answer("X", slot("D300")) == Answer(True, 300)
    assert read_answer("NULL", slot("D((void*)0)")) == Answer(True, None)
    assert read_answer("__has_builtin(x)", slot("T1")) == Answer(True, 1)
    assert read_answer("__has_builtin(x)", slot("F0")) == Answer(True, 0)
    # An expansion disagreeing with how `#if` read the call: `#if`'s truth wins.
    assert read_answer("__has_builtin(x)", slot("Tnot a number")) == Answer(True, 1)
    assert read_answer("X", b"D" + b"9" * 255) == Answer(True, None)  # cut short


def test_the_probe_source_asks_every_query_once():
    source = probe_source(["__clang__", "__has_builtin(__builtin_expect)", "__has_builtin"])
    assert source.count("clmodes_put(out +") == 3
    assert "CLMODES_XSTR(__has_builtin)" not in source  # clang refuses it without ()
    assert "#if __has_builtin(__builtin_expect)" in source


def test_options_digest_ignores_defines_and_include_paths():
    assert options_digest(("-DX=1", "-I", "/a", "-Ib")) == options_digest(())
    assert options_digest(("-cl-fast-relaxed-math",)) != options_digest(())
    assert options_digest(("-cl-std=CL1.2",)) != options_digest(("-cl-std=CL2.0",))


def test_with_answers_extensions_come_from_the_compiler_not_the_list():
    listed = CompilerMacros.of(INTEL, ())
    assert listed.named["__opencl_c_integer_dot_product_input_4x8bit"] == "1"
    asked = CompilerMacros.of(INTEL, (), {
        "__opencl_c_integer_dot_product_input_4x8bit": Answer(False),
        "cl_khr_integer_dot_product": Answer(True, 1), "__clang__": Answer(True, 1),
        "NULL": Answer(True), "__has_builtin(__builtin_expect)": Answer(True, 1),
    })
    assert "__opencl_c_integer_dot_product_input_4x8bit" not in asked.named
    assert "__opencl_c_integer_dot_product_input_4x8bit" in asked.absent
    assert asked.named["cl_khr_integer_dot_product"] == "1" and asked.named["__clang__"] == "1"
    assert asked.named["NULL"] == "NULL" and "NULL" in asked.opaque
    assert asked.called == {"__has_builtin(__builtin_expect)": 1}
    # Not asked yet: unknown (a unit reading it is asked about it), never from the list.
    assert "cl_khr_fp64" not in CompilerMacros.of(INTEL, (), {}).named


HAS_BUILTIN = """
#if !defined(__has_builtin)
#define __has_builtin(x) 0
#endif
#if __has_builtin(__builtin_expect) && __clang_major__ >= 10
#define HINT 1
#else
#define HINT 2
#endif
__kernel void k(__global int *out) { out[0] = HINT; }
"""


def _unit(source: str) -> Unit:
    return Unit.of(Kernel(source, "k"))


def test_a_unit_asks_for_what_it_reads_and_batches_once_answered():
    unit = _unit(HAS_BUILTIN)
    before = prepare(unit, CompilerMacros.of(INTEL, (), {}))
    assert not before.batchable and "__has_builtin" in before.unknown
    opened = prepare(unit, CompilerMacros.of(INTEL, (), {"__has_builtin": Answer(True)}))
    assert opened.unknown == {"__has_builtin(__builtin_expect)", "__clang_major__"}
    # A compiler without it: the unit's own `__has_builtin(x) 0` is what `#if` reads.
    without = prepare(unit, CompilerMacros.of(INTEL, (), {"__has_builtin": Answer(False),
                                                          "__clang_major__": Answer(False)}))
    assert without.batchable and "out[0] = 2;" in without.text
    answers = {"__has_builtin": Answer(True), "__has_builtin(__builtin_expect)": Answer(True, 1),
               "__clang_major__": Answer(True, 15)}
    after = prepare(unit, CompilerMacros.of(INTEL, (), answers))
    assert after.batchable and "out[0] = 1;" in after.text
    answers["__has_builtin(__builtin_expect)"] = Answer(True, 0)
    assert "out[0] = 2;" in prepare(unit, CompilerMacros.of(INTEL, (), answers)).text


def test_an_answer_that_is_no_integer_is_never_read_by_if_arithmetic():
    unit = _unit("#if VENDOR_THING > 2\n#define V 1\n#else\n#define V 2\n#endif\n"
                 "#ifdef __VENDOR__\n__kernel void k(__global int *o) { o[0] = V; }\n#endif\n")
    answers = {"__VENDOR__": Answer(True), "VENDOR_THING": Answer(False)}
    assert prepare(unit, CompilerMacros.of(INTEL, (), answers)).batchable
    unit = _unit("#if __VENDOR__ > 2\n__kernel void k(__global int *o) { o[0] = 1; }\n#endif\n")
    prepared = prepare(unit, CompilerMacros.of(INTEL, (), answers))
    assert not prepared.batchable and not prepared.unknown
    assert "no integer" in (prepared.reason or "")


@pytest.mark.parametrize("value", ["not json", json.dumps([1, 2]), json.dumps("x")])
def test_a_hostile_answer_row_is_skipped_with_one_warning(tmp_path, caplog, value):
    store = Store(tmp_path / "store")
    store.put_compiler_macros("dev", "opts", "good", {"__clang__": {"defined": True, "value": 1}})
    store.write("INSERT INTO compiler_macro VALUES (?, ?, ?, ?, ?)", ("dev", "opts", "bad", value, 0.0))
    with caplog.at_level(logging.WARNING, logger="clmodes"):
        answers = store.compiler_macros("dev", "opts")
    assert answers == {"__clang__": {"defined": True, "value": 1}}
    assert len([r for r in caplog.records if "compiler macro" in r.getMessage()]) == 1


@pytest.mark.parametrize("data", [
    {"defined": "yes"}, {"defined": True, "value": "300"}, {"defined": True, "value": True},
    {"value": 1}, [True], None,
])
def test_a_malformed_answer_is_no_answer(data):
    assert Answer.from_json(data) is None
