"""Asking the device's compiler what it predefines (`clmodes.compiler_probe`), on real runtimes.

- the probe's answers agree with what the compiler does when a kernel reads those names in
  `#ifdef` and `#if` (checked by a plain pyopencl build that tests each answer with the
  compiler's own preprocessor);
- units whose conditionals read such names batch (one build), and compute what they compute
  built alone with plain pyopencl, including the extension and feature macros, which come
  from the compiler and not from the device's lists (Intel's CPU compiler, in its default
  OpenCL C 1.2 mode, does not define the `__opencl_c_integer_dot_product_*` features its
  device lists: a unit guarded by one took another branch batched than alone);
- a typedef chosen by `#if` on such a name gives a launch argument a known type;
- a second process reads the answers from the store and probes nothing.
"""

from __future__ import annotations

import json

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

from clmodes import Kernel, ProcessMode, ProcessModeOverride
from clmodes.compiler_probe import run_probe
from support import fresh
from support.subprocesses import last_json, run_python

NAMES = [
    "__OPENCL_C_VERSION__", "__clang__", "__has_builtin(__builtin_expect)",
    "__has_builtin(__builtin_no_such_thing)", "__NV_CL_C_VERSION", "cl_khr_fp64",
    "cl_khr_integer_dot_product", "__opencl_c_integer_dot_product_input_4x8bit", "NULL",
    "__x86_64__",
]


def _truth_source(answers) -> str:
    """A kernel whose slot i is 1 where the compiler agrees with answer i, else 0."""
    lines = ["__kernel void truth(__global int *out) {"]
    for i, (name, answer) in enumerate(answers.items()):
        if "(" in name:
            head = name.split("(", 1)[0]
            test = f"defined({head}) && ({name}) == {answer.value}" if answer.defined \
                else f"!defined({head})"
        elif not answer.defined:
            test = f"!defined({name})"
        elif answer.value is None:
            test = f"defined({name})"
        else:
            test = f"defined({name}) && ({name}) == {answer.value}"
        lines += [f"#if {test}", f"    out[{i}] = 1;", "#else", f"    out[{i}] = 0;", "#endif"]
    return "\n".join([*lines, "}"]) + "\n"


@pytest.mark.parametrize("options", [(), ("-cl-std=CL1.2",), ("-cl-fast-relaxed-math",)],
                         ids=["default", "cl12", "fast"])
def test_answers_are_what_the_compiler_does(client, options):
    device = client.device.cl_device
    context = cl.Context([device])
    answers = run_probe(context, device, options, [*NAMES, "__FAST_RELAXED_MATH__"])
    assert answers["__clang__"].defined and answers["__clang__"].value is not None
    assert answers["__NV_CL_C_VERSION"] == answers["__NV_CL_C_VERSION"].__class__(False)
    assert answers["NULL"].defined and answers["NULL"].value is None  # no integer
    assert answers["__FAST_RELAXED_MATH__"].defined == ("-cl-fast-relaxed-math" in options)
    if "-cl-std=CL1.2" in options:
        assert answers["__OPENCL_C_VERSION__"].value == 120
    program = cl.Program(context, fresh(_truth_source(answers))).build(options=list(options))
    queue = cl.CommandQueue(context)
    out = cla.zeros(queue, len(answers), np.int32)
    program.truth(queue, (1,), None, out.data)
    disagree = [name for name, ok in zip(answers, out.get()) if not ok]
    assert not disagree, f"the compiler disagrees with the probe on {disagree}"


# Each reads a name only the compiler knows and writes which branch it took.
BRANCHES = {
    "version": """
#if __OPENCL_C_VERSION__ >= 200
#define BRANCH (__OPENCL_C_VERSION__ + 1)
#else
#define BRANCH (__OPENCL_C_VERSION__ + 2)
#endif""",
    "clang": """
#if defined(__clang__) && __clang_major__ > 3
#define BRANCH 11
#else
#define BRANCH 12
#endif""",
    "has_builtin": """
#if !defined(__has_builtin)
#define __has_builtin(x) 0
#endif
#if __has_builtin(__builtin_expect)
#define BRANCH 21
#else
#define BRANCH 22
#endif""",
    "vendor": """
#ifdef __NV_CL_C_VERSION
#define BRANCH 31
#elif defined(__x86_64__)
#define BRANCH 32
#else
#define BRANCH 33
#endif""",
    "dot_extension": """
#ifdef cl_khr_integer_dot_product
#define BRANCH 41
#else
#define BRANCH 42
#endif""",
    "dot_feature": """
#ifdef __opencl_c_integer_dot_product_input_4x8bit
#define BRANCH 51
#else
#define BRANCH 52
#endif""",
}
BODY = """
__kernel void branch(__global int *out) { out[get_global_id(0)] = BRANCH; }
"""


def _alone(device, source: str) -> int:
    """What plain pyopencl's build of `source` writes."""
    context = cl.Context([device])
    queue = cl.CommandQueue(context)
    out = cla.zeros(queue, 1, np.int32)
    cl.Program(context, source).build().branch(queue, (1,), None, out.data)
    return int(out.get()[0])


def test_units_reading_predefined_names_batch_and_match_alone(stream, build_spy):
    """All six units in one build, each taking the branch plain pyopencl's build takes."""
    sources = {name: fresh(text + BODY) for name, text in BRANCHES.items()}
    kernels = {name: Kernel(source, "branch") for name, source in sources.items()}
    outs = {name: cla.zeros(stream.queue, 1, np.int32) for name in kernels}
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY):
        for name, kernel in kernels.items():
            stream.launch(kernel, 1, None, outs[name].data)
    before = build_spy.calls
    for name, kernel in kernels.items():
        stream.launch(kernel, 1, None, outs[name].data)
    assert build_spy.calls - before == 1, "the six units did not batch into one build"
    stream.finish()
    device = stream.device.cl_device
    for name, source in sources.items():
        assert int(outs[name].get()[0]) == _alone(device, source), name


def test_dot_product_guard_takes_the_compilers_branch(stream):
    """The Intel case: the device lists the feature, its compiler (OpenCL C 1.2 by default)
    does not define it; batched with a sibling, the unit must take the compiler's branch."""
    guarded = fresh(BRANCHES["dot_feature"] + BODY)
    sibling = fresh(BRANCHES["dot_extension"] + BODY)
    kernels = [Kernel(guarded, "branch"), Kernel(sibling, "branch")]
    outs = [cla.zeros(stream.queue, 1, np.int32) for _ in kernels]
    # Obtained where launches do no work: the probe's own launch must run all the same.
    with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE):
        for kernel in kernels:
            stream.server.queue_kernel(kernel)
        stream.server.flush()
    for kernel, out in zip(kernels, outs):
        stream.launch(kernel, 1, None, out.data)
    stream.finish()
    device = stream.device.cl_device
    assert int(outs[0].get()[0]) == _alone(device, guarded)
    assert int(outs[1].get()[0]) == _alone(device, sibling)


REAL_ARG = """
#if defined(__clang__) || __OPENCL_C_VERSION__ >= 100
typedef float real_arg;
#else
typedef double real_arg;
#endif
__kernel void scale(__global float *out, __global const float *x, const real_arg a)
{
    size_t i = get_global_id(0);
    out[i] = x[i] * (float)a;
}
"""


def test_python_float_converts_for_a_typedef_chosen_by_a_predefined_name(stream):
    """The active branch is known, so `real_arg` is `float` and 2.5 is passed as one."""
    kernel = Kernel(fresh(REAL_ARG), "scale")
    x = cla.to_device(stream.queue, np.arange(8, dtype=np.float32))
    out = cla.zeros(stream.queue, 8, np.float32)
    stream.launch(kernel, 8, None, out.data, x.data, 2.5)
    np.testing.assert_array_equal(out.get(), np.arange(8, dtype=np.float32) * 2.5)
    assert stream.server.aliases_for(kernel)["real_arg"] == "float"


SECOND_PROCESS = """
import json, clmodes
from clmodes import Kernel
import numpy as np, pyopencl.array as cla
sources = ['''%s''', '''%s''']
client = clmodes.client()
stream = client.stream("probe")
outs = [cla.zeros(stream.queue, 1, np.int32) for _ in sources]
kernels = [Kernel(source, "branch") for source in sources]
with clmodes.ProcessModeOverride(clmodes.ProcessMode.COMPILE_ONLY):  # one queue of two
    for kernel, out in zip(kernels, outs):
        stream.launch(kernel, 1, None, out.data)
for kernel, out in zip(kernels, outs):
    stream.launch(kernel, 1, None, out.data)
stream.finish()
print(json.dumps({"probes": client.server.compiler.probes,
                  "branch": [int(out.get()[0]) for out in outs]}))
"""


@pytest.mark.parametrize("selector", ["Intel(R) OpenCL", "Portable Computing Language"],
                         ids=["intel", "pocl"])
def test_a_second_process_reads_the_answers_from_the_store(tmp_path, selector):
    from support.subprocesses import require_runtime

    require_runtime(selector)
    code = SECOND_PROCESS % (BRANCHES["clang"] + BODY, BRANCHES["vendor"] + BODY)
    first = last_json(run_python(code, tmp_path / "store", CLMODES_DEVICE=selector))
    # Other sources reading the same names: the store's binaries do not answer them.
    code = SECOND_PROCESS % ("// another\n" + BRANCHES["clang"] + BODY,
                             "// another\n" + BRANCHES["vendor"] + BODY)
    second = last_json(run_python(code, tmp_path / "store", CLMODES_DEVICE=selector))
    assert first["probes"] == 1, json.dumps(first)
    assert second["probes"] == 0 and second["branch"] == first["branch"], json.dumps(second)


def test_a_probe_that_fails_answers_nothing_and_says_so_once(stream, caplog):
    """A probe the compiler refuses (here: an option it does not know) leaves the units to
    build alone: no answer is made up, a warning says why, and it is not tried again."""
    import logging

    probe = stream.server.compiler
    options = ("-cl-clmodes-no-such-option",)
    before = probe.probes
    with caplog.at_level(logging.WARNING, logger="clmodes"):
        assert probe.ask(options, frozenset({"__clang__"})) is None
        assert probe.ask(options, frozenset({"__clang__"})) is None
    assert probe.probes == before
    warnings = [r for r in caplog.records if "asking the compiler" in r.getMessage()]
    assert len(warnings) == 1 and "build alone" in warnings[0].getMessage()
    assert "__clang__" not in probe.macros_for(options).named
