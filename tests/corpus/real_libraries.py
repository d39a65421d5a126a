"""Real libraries' OpenCL sources (tests/corpus/real/, unedited; see its README), assembled
into programs the way each library assembles them, as queueable kernels.

- ArrayFire: `DEFAULT_MACROS_STR` (compile_module.cpp, copied here as `AF_DEFAULT`) +
  `KParam.hpp` + one kernel file, with `-D T=float -D dim_t=long` (and the other type
  names some kernels take);
- CLBlast: `common.opencl` + `levelN.opencl` + a routine's file, each stripped of the C++
  raw-string wrapper (`R"(` ... `)"`) its `#include` into C++ removes, per precision
  (`-DPRECISION=32|64|3232|6464`);
- clpeak: its `MSTRINGIFY(...)` files, turned into the text C's `#__VA_ARGS__` makes of
  them (comments gone, whitespace collapsed, the `\\n` escapes become newlines), the main
  kernels concatenated into one program as `clGetMainKernels()` does, `-cl-mad-enable`;
- pyopencl: complex elementwise kernels as `ElementwiseKernel` writes them, including
  `pyopencl-complex.h`.

Each entry is `(group, Unit-like case)`: a source, its entry points, defines and options.
What they compute is not checked here (the hand-written corpus does that bit for bit);
these measure and check that real library code batches and builds.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

REAL = Path(__file__).resolve().parent / "real"

AF_DEFAULT = """
#ifdef USE_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#ifdef USE_HALF
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#else
#define half short
#endif
#ifndef schar
#define schar char
#endif
#ifndef M_PI
#define M_PI 3.1415926535897932384626433832795028841971693993751058209749445923078164
#endif
"""
AF_KERNELS = ("assign", "diag_create", "diag_extract", "identity", "index", "iota", "memcopy",
              "range", "reorder", "tile", "select")
AF_DEFINES = {"T": "float", "dim_t": "long", "To": "float", "Ti": "float", "ZERO": "0", "ONE": "1"}

CLBLAST_LEVEL1 = ("xaxpy", "xcopy", "xscal", "xswap", "xdot", "xnrm2", "xasum", "xamax", "xhad")
CLBLAST_LEVEL3 = ("copy_fast", "copy_pad", "transpose_fast", "transpose_pad")
CLBLAST_PRECISIONS = (32, 64, 3232, 6464)

CLPEAK_MAIN = ("global_bandwidth_kernels", "compute_sp_kernels", "compute_hp_kernels",
               "compute_dp_kernels", "compute_integer_kernels")

_ENTRY = re.compile(r"__kernel\b[^;{]*?\bvoid\s+(\w+)\s*\(|\bkernel\s+void\s+(\w+)\s*\(")

PYOPENCL_ELEMENTWISE = """#define PYOPENCL_DEFINE_CDOUBLE
#include <pyopencl-complex.h>
#define PYOPENCL_ELWISE_CONTINUE continue

__kernel void {name}({ctype}_t *z_g, __global const {ctype}_t *x_g, __global const {ctype}_t *y_g, long n)
{{
  int lid = get_local_id(0);
  int gsize = get_global_size(0);
  int work_group_start = get_local_size(0)*get_group_id(0);
  long i;
  for (i = work_group_start + lid; i < n; i += gsize)
  {{
    z_g[i] = {ctype}_add({ctype}_mul(x_g[i], y_g[i]), {ctype}_rmul(2, x_g[i]));
  }}
}}
"""


@dataclasses.dataclass(frozen=True)
class LibraryCase:
    """One program of a library: a source, its entry points, defines and options."""

    group: str
    label: str
    source: str
    entries: tuple[str, ...]
    defines: tuple[tuple[str, str], ...] = ()
    options: tuple[str, ...] = ()
    requires: frozenset[str] = frozenset()  # fp64 | fp16

    def build_options(self) -> list[str]:
        return [*(f"-D{n}={v}" for n, v in self.defines), *self.options]


def entries(source: str) -> tuple[str, ...]:
    """The kernel entry points a source declares, in order."""
    return tuple(dict.fromkeys(a or b for a, b in _ENTRY.findall(source)))


def clblast_text(path: Path) -> str:
    """The OpenCL text of a CLBlast `.opencl` file: what its raw string literal holds."""
    text = path.read_text()
    start = text.index('R"(') + 3
    return text[start:text.rindex(')"')]


def clpeak_text(path: Path) -> str:
    """What `MSTRINGIFY(...)` (`#__VA_ARGS__`) makes of a clpeak kernel file, once the C
    compiler has read the string's `\\n` escapes."""
    text = path.read_text()
    body = text[text.index("MSTRINGIFY(") + len("MSTRINGIFY("):text.rindex(")")]
    body = re.sub(r"/\*.*?\*/", " ", body, flags=re.S)
    body = re.sub(r"//[^\n]*", " ", body)
    body = " ".join(body.split())
    return body.replace("\\n", "\n")


def arrayfire() -> list[LibraryCase]:
    folder = REAL / "arrayfire"
    prefix = AF_DEFAULT + (folder / "KParam.hpp").read_text()
    cases = []
    for name in AF_KERNELS:
        source = prefix + (folder / f"{name}.cl").read_text()
        cases.append(LibraryCase("arrayfire", name, source, entries(source),
                                 tuple(AF_DEFINES.items())))
    return cases


def clblast() -> list[LibraryCase]:
    folder = REAL / "clblast"
    common = clblast_text(folder / "common.opencl")
    cases = []
    for level, routines in (("level1", CLBLAST_LEVEL1), ("level3", CLBLAST_LEVEL3)):
        shared = clblast_text(folder / level / f"{level}.opencl")
        for routine in routines:
            own = clblast_text(folder / level / f"{routine}.opencl")
            source = "\n".join([common, shared, own])
            for precision in CLBLAST_PRECISIONS:
                requires = frozenset({"fp64"}) if precision in (64, 6464) else frozenset()
                cases.append(LibraryCase("clblast", f"{routine}_{precision}", source,
                                         # the batched ones need a ROUTINE_ define
                                         tuple(e for e in entries(own) if "Batched" not in e),
                                         (("PRECISION", str(precision)),),
                                         requires=requires))
    return cases


def clpeak() -> list[LibraryCase]:
    folder = REAL / "clpeak"
    main = "".join(clpeak_text(folder / f"{name}.cl") for name in CLPEAK_MAIN)
    int8 = clpeak_text(folder / "compute_int8_dp_kernels.cl")
    return [LibraryCase("clpeak", "main", main, entries(main), (), ("-cl-mad-enable",)),
            LibraryCase("clpeak", "int8_dp", int8, entries(int8), (), ("-cl-mad-enable",))]


def pyopencl_complex() -> list[LibraryCase]:
    include = ("-I", str(REAL / "pyopencl"))
    cases = []
    for ctype, requires in (("cfloat", frozenset()), ("cdouble", frozenset({"fp64"}))):
        name = f"{ctype}_axpbyz"
        source = PYOPENCL_ELEMENTWISE.format(name=name, ctype=ctype).replace(
            f"{name}({ctype}_t", f"{name}(__global {ctype}_t")
        cases.append(LibraryCase("pyopencl", name, source, (name,), (), include, requires))
    return cases


def library_cases() -> list[LibraryCase]:
    return [*arrayfire(), *clblast(), *clpeak(), *pyopencl_complex()]
