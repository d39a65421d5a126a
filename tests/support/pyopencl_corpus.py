"""pyopencl code nobody here wrote (`tests/corpus/pyopencl_upstream/`) and a mixed
workload of pyopencl's own kernel kinds, run on a given context: what "existing
pyopencl code warms, persists and starts warm" is tested with.

`run(what)` is for fresh processes (`support.subprocesses`): "warm" warms everything on
clmodes' own context and prints the statistics; "execute" runs it in EXECUTE with the
upstream checks on and prints the results' digests, the statistics and how many OpenCL
programs were compiled from source (`SourceCompileSpy`).
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
import os
import runpy
import sys
from pathlib import Path

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
from pyopencl.elementwise import ElementwiseKernel
from pyopencl.reduction import ReductionKernel
from pyopencl.scan import ExclusiveScanKernel, InclusiveScanKernel

CORPUS = Path(__file__).parents[1] / "corpus" / "pyopencl_upstream"
EXAMPLES = ["example_demo.py", "example_demo_array.py", "example_demo_elementwise.py",
            "example_demo_elementwise_complex.py"]
OTHERS = Path(__file__).parents[1] / "corpus" / "pyopencl_other"


# What legitimately differs between two plain runs of a program, masked before outputs are
# compared: every number (timings, unseeded random inputs and what is computed from them);
# for dump-properties.py the addresses of Python objects (`<pyopencl.Platform 'Oclgrind' at
# 0x55b1...>`) and Debian PoCL 3.1's DEVICE_ENQUEUE_CAPABILITIES, which is not initialized
# (140501265154048 in one plain run, 140033113718784 in the next).
NUMBERS = r"[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?"
PROPERTIES = r"\bat 0x[0-9a-f]+|DEVICE_ENQUEUE_CAPABILITIES: \d+"


@dataclasses.dataclass(frozen=True)
class Program:
    """A pyopencl program run as its author wrote it (`python PATH ARGS` in its folder), for
    `clmodes run` (`tests/e2e/test_run.py`).

    `varies`: a pattern (`NUMBERS`, `PROPERTIES`) of what it prints that differs from one
    plain run to the next, masked when outputs are compared; then `prints` (a line of the
    program's own result check) must be there verbatim. `builds`: it builds at least one
    program (`dump-properties.py` makes contexts and builds nothing)."""

    path: Path
    args: tuple[str, ...] = ()
    varies: str | None = None
    prints: str | None = None
    builds: bool = True

    @property
    def name(self) -> str:
        return self.path.relative_to(self.path.parents[1]).as_posix()


# pyopencl's other examples and programs from other repositories (origins and licences:
# the corpus READMEs). demo_mandelbrot.py draws 2048 x 2048 points (0.3 s on Intel's
# runtime); without a display tkinter raises TclError and the example, as written, falls
# back to making the image only.
PROGRAMS = [
    Program(CORPUS / "example_demo_struct_reduce.py"),
    Program(CORPUS / "example_demo_meta_template.py"),
    Program(CORPUS / "example_narray.py"),
    Program(CORPUS / "example_dump_properties.py", varies=PROPERTIES, builds=False),
    Program(CORPUS / "example_demo_mandelbrot.py", varies=NUMBERS),
    Program(OTHERS / "PyOCL" / "adjust_score.py", varies=NUMBERS, prints="Results is OK"),
    Program(OTHERS / "leonroussel" / "host_atomic_add.py", varies=NUMBERS,
            prints="Close ? :  True"),
]


def run_unchanged(path: Path, *args: str) -> None:
    """Run the program at `path` as `python PATH ARGS` in its folder would, in this process:
    what `clmodes check` is given to check a program nobody changed."""
    saved_argv, saved_path, saved_cwd = sys.argv[:], sys.path[:], os.getcwd()
    try:
        sys.argv = [str(path), *args]
        sys.path.insert(0, str(path.parent))
        os.chdir(path.parent)
        runpy.run_path(str(path), run_name="__main__")
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
        os.chdir(saved_cwd)


def struct_reduce() -> None:
    """pyopencl's `demo-struct-reduce.py`, unchanged, for `clmodes check` (its context:
    `PYOPENCL_CTX`)."""
    run_unchanged(CORPUS / "example_demo_struct_reduce.py")
# What each example leaves that is worth comparing across processes.
EXAMPLE_RESULTS = ("res_np", "dest_dev", "c_gpu", "c_gpu_real")
UPSTREAM = [
    ("test_elwise_kernel", {}), ("test_take", {}), ("test_take_put", {}),
    ("test_minmax", {}),
    ("test_scan", {"dtype": np.int32, "scan_cls": InclusiveScanKernel}),
    ("test_scan", {"dtype": np.int64, "scan_cls": ExclusiveScanKernel}),
    ("test_basic_complex", {}), ("test_concatenate", {}), ("test_comparisons", {}),
]
SQUARE = """
__kernel void clmodes_square(__global const float *x, __global float *out)
{ int i = get_global_id(0); out[i] = x[i] * x[i] + 0.5f; }
"""


class _Unchecked(ast.NodeTransformer):
    """`assert test, message` -> `test`: the check goes, what it computes stays.

    Upstream checks launch kernels inside their asserts (`assert la.norm((a - b).get())
    < eps`), so compiling asserts out (`python -O`) would hide those kernels from a warm;
    keeping the asserts would stop the workload at the first one, since a warm's values
    are meaningless."""

    def visit_Assert(self, node: ast.Assert) -> ast.Expr:
        return ast.copy_location(ast.Expr(node.test), node)


def _compiled(path: Path, checks: bool, text: str | None = None):
    """The file's code; `checks=False` evaluates its asserts without checking them."""
    tree = ast.parse(text if text is not None else path.read_text(), str(path))
    if not checks:
        tree = ast.fix_missing_locations(_Unchecked().visit(tree))
    return compile(tree, str(path), "exec")


def run_example(name: str, context: cl.Context, checks: bool = True) -> dict[str, object]:
    """Run one upstream example on `context`; its globals afterwards."""
    path = CORPUS / name
    text = (path.read_text().replace("cl.create_some_context()", "__clmodes_context__")
            .replace("default_rng()", "default_rng(0)"))
    scope: dict[str, object] = {"__name__": "__clmodes_example__", "__clmodes_context__": context}
    exec(_compiled(path, checks, text), scope)  # noqa: S102 - test data, read from the repo
    return scope


def run_upstream_tests(context: cl.Context, checks: bool = True,
                       upstream: list[tuple[str, dict]] = UPSTREAM) -> list[str]:
    """Call each copied upstream test function on `context`; the names run."""
    path = CORPUS / "upstream_tests.py"
    scope: dict[str, object] = {"__name__": "__clmodes_upstream__"}
    exec(_compiled(path, checks), scope)  # noqa: S102 - test data, read from the repo
    for name, arguments in upstream:
        scope[name](lambda: context, **arguments)
    return [name for name, _ in UPSTREAM]


def mixed(context: cl.Context, queue: cl.CommandQueue) -> dict[str, cla.Array]:
    """Elementwise, reduction, scans, array arithmetic and reductions, comparisons,
    take, concatenate, complex dtypes and a plain `cl.Program`, on fixed inputs."""
    n = 1000
    x = cla.to_device(queue, np.linspace(0, 1, n, dtype=np.float32))
    y = cla.to_device(queue, (np.arange(n) % 7).astype(np.float32))
    z = cla.empty_like(x)
    ElementwiseKernel(context, "float a, float *x, float b, float *y, float *z",
                      "z[i] = a*x[i] + b*y[i]", "clmodes_lin")(2.0, x, 3.0, y, z)
    dot = ReductionKernel(context, np.float32, neutral="0", reduce_expr="a+b",
                          map_expr="x[i]*y[i]",
                          arguments="__global const float *x, __global const float *y")
    counts = cla.to_device(queue, (np.arange(n) % 5).astype(np.int32))
    InclusiveScanKernel(context, np.int32, "a+b", neutral="0")(counts)
    arith = (x * 2 + y) / (y + 1) - x ** 2
    c = cla.to_device(queue, (np.arange(64) + 1j * np.arange(64)[::-1]).astype(np.complex64))
    program = cl.Program(context, SQUARE).build()
    squared = cla.empty_like(x)
    cl.Kernel(program, "clmodes_square")(queue, (n,), None, x.data, squared.data)
    return {
        "elementwise": z, "dot": dot(x, y), "scan": counts, "arith": arith,
        "max": cla.max(arith), "min": cla.min(arith), "sum": cla.sum(arith),
        "greater": x > 0.5, "take": cla.take(x, cla.arange(queue, 0, n, 3, dtype=np.int32)),
        "concatenate": cla.concatenate((x, y)), "complex": c * c + 2 * c, "abs": abs(c),
        "square": squared,
    }


# Where the same properties are asked of a runtime whose code generation is the cost (PoCL
# generates native code for each of these ~150 kernels when a warm stores them: 90 of the
# 123 s of a warm with PoCL's own cache empty, as on a fresh CI machine), a part that
# still covers every kind: the mixed workload (elementwise, reductions, scans, array
# arithmetic, comparisons, take, concatenate, complex, a plain program), the examples,
# and the upstream elementwise, scan and complex tests.
PARTS = {"all": UPSTREAM, "kinds": [UPSTREAM[i] for i in (0, 4, 6)]}


def everything(context: cl.Context, queue: cl.CommandQueue, checks: bool,
               part: str = "all") -> dict[str, str]:
    """The mixed workload, the examples and the upstream tests (`part` of them, `PARTS`):
    digests of the results."""
    results: dict[str, object] = dict(mixed(context, queue))
    for name in EXAMPLES:
        scope = run_example(name, context, checks)
        results.update({f"{name}:{k}": scope[k] for k in EXAMPLE_RESULTS if k in scope})
    run_upstream_tests(context, checks, PARTS[part])
    return {name: digest(value) for name, value in results.items()}


def digest(value: object) -> str:
    host = value.get() if isinstance(value, cla.Array) else np.asarray(value)
    return hashlib.sha256(host.tobytes()).hexdigest()


def run(what: str, part: str = "all") -> str:
    """In a fresh process: "warm" or "execute" (see the module doc) of `part` of the
    upstream tests (`PARTS`); a JSON line."""
    import clmodes
    from support.source_compile_spy import SourceCompileSpy

    client = clmodes.client()
    queue = client.stream().queue
    if what == "warm":
        statistics = clmodes.warm(lambda: everything(client.context, queue, False, part))
        return json.dumps(statistics.as_dict())
    spy = SourceCompileSpy().install()
    collector = clmodes.StatisticsCollector()
    with clmodes.ProcessModeOverride(clmodes.ProcessMode.EXECUTE, collector):
        results = everything(client.context, queue, True, part)
    statistics = clmodes.StatisticsReader(collector).statistics().as_dict()
    return json.dumps({"results": results, **statistics, "source_compiles": len(spy.sources),
                       "device": client.device.label})
