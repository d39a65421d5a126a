"""Fused elementwise expressions: ``elementwise(stream, "relu(a * b + c)", a=..., b=..., c=...)``.

The expression (Python syntax) is compiled into **one** kernel: every array operand is
read once per element, every intermediate stays in registers. Operands are
`pyopencl.array.Array`s of one dtype, or Python numbers (passed as kernel arguments, so
changing a number does not make a new kernel). Arrays broadcast like numpy, as long as
each operand's non-broadcast axes form one contiguous run (a bias of shape (N,) or
(1, N) against (M, N), a column (M, 1), a single element ...).

Syntax: ``+ - * / **``, unary ``-``, numbers, operand names, and the functions in
`FUNCTIONS`: relu, sigmoid, tanh, exp, log, sqrt, rsqrt, abs, sin, cos, erf, gelu (erf
form), silu, square, maximum/minimum (NaN-propagating, like numpy), fmax/fmin (ignoring
NaN), pow. Arithmetic is in the accumulator precision (float for float16).

Candidates (one `clmodes.Tunable` per expression, operand layout and dtype): vector
widths VW 1/2/4/8 — each work-item computes VW consecutive elements with vector loads
(vloadn/vload_halfn) and one vector store; the last partial vector is done by a scalar
tail. Broadcast operands are gathered element by element. The key is the output size
bucketed to powers of four (257..1024, 1025..4096, ...: the winner does not depend on
the exact size).

`out` may be the very same array as a full-size operand (in place).

Accuracy: as numpy on the same expression in float64 then rounded: float32 rtol 1e-5
(transcendentals: OpenCL's ulp bounds, a few ulp), float64 rtol 1e-12, float16 rtol 2e-3.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import math
import numbers
import threading

import numpy as np
import pyopencl.array as cla

from clmodes import Kernel, Stream, Tunable, kernel_variants
from clmodes.tune.bucket import powers_of
from kernels_cl._common import (
    DType,
    check_array,
    check_out,
    check_same_dtype,
    check_stream,
    mem,
    register,
    round_up,
    source,
)

# name -> (arity, C macro body over arguments x, y). K(c) is a constant of the current
# type (vector or scalar) and SEL(c, a, b) is c ? a : b elementwise; both are defined at
# each use of the expression (select() for vectors, ?: for scalars: a scalar select of
# doubles would need a long condition).
FUNCTIONS: dict[str, tuple[int, str]] = {
    "relu": (1, "SEL(isless((x), K(0)), K(0), (x))"),
    "sigmoid": (1, "(K(1) / (K(1) + exp(-(x))))"),
    "silu": (1, "((x) / (K(1) + exp(-(x))))"),
    "gelu": (1, "(K(0.5) * (x) * (K(1) + erf((x) * K(0.70710678118654752440))))"),
    "tanh": (1, "tanh(x)"),
    "exp": (1, "exp(x)"),
    "log": (1, "log(x)"),
    "sqrt": (1, "sqrt(x)"),
    "rsqrt": (1, "rsqrt(x)"),
    "abs": (1, "fabs(x)"),
    "sin": (1, "sin(x)"),
    "cos": (1, "cos(x)"),
    "erf": (1, "erf(x)"),
    "square": (1, "((x) * (x))"),
    "maximum": (2, "SEL(isnan(x) | isgreater((x), (y)), (x), (y))"),
    "minimum": (2, "SEL(isnan(x) | isless((x), (y)), (x), (y))"),
    "fmax": (2, "fmax((x), (y))"),
    "fmin": (2, "fmin((x), (y))"),
    "pow": (2, "pow((x), (y))"),
}

_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}


class _Compiler(ast.NodeVisitor):
    """Python expression -> OpenCL C expression over v_<array> and s_<scalar> names."""

    def __init__(self, expr: str, arrays: set[str], scalars: set[str]) -> None:
        self.expr, self.arrays, self.scalars = expr, arrays, scalars
        self.used: set[str] = set()

    def fail(self, what: str) -> ValueError:
        return ValueError(f"kernels_cl.elementwise: {what} in expression {self.expr!r}")

    def generic_visit(self, node: ast.AST) -> str:
        raise self.fail(f"unsupported syntax {type(node).__name__}")

    def visit_Expression(self, node: ast.Expression) -> str:
        return self.visit(node.body)

    def visit_BinOp(self, node: ast.BinOp) -> str:
        left, right = self.visit(node.left), self.visit(node.right)
        if isinstance(node.op, ast.Pow):
            return f"pow({left}, {right})"
        op = _BINARY.get(type(node.op))
        if op is None:
            raise self.fail(f"unsupported operator {type(node.op).__name__}")
        return f"({left} {op} {right})"

    def visit_UnaryOp(self, node: ast.UnaryOp) -> str:
        if isinstance(node.op, ast.USub):
            return f"(-{self.visit(node.operand)})"
        if isinstance(node.op, ast.UAdd):
            return self.visit(node.operand)
        raise self.fail(f"unsupported operator {type(node.op).__name__}")

    def visit_Constant(self, node: ast.Constant) -> str:
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(f"unsupported constant {value!r}")
        return f"K({float(value)!r})"

    def visit_Name(self, node: ast.Name) -> str:
        name = node.id
        if name in self.arrays:
            self.used.add(name)
            return f"v_{name}"
        if name in self.scalars:
            self.used.add(name)
            return f"K(s_{name})"
        if name in FUNCTIONS:
            raise self.fail(f"function {name!r} used without a call")
        raise self.fail(f"unknown name {name!r} (pass it as a keyword argument)")

    def visit_Call(self, node: ast.Call) -> str:
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            name = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
            raise self.fail(f"unknown function {name!r} (known: {', '.join(sorted(FUNCTIONS))})")
        arity, _ = FUNCTIONS[node.func.id]
        if node.keywords or len(node.args) != arity:
            raise self.fail(f"{node.func.id}() takes {arity} positional argument(s)")
        args = ", ".join(self.visit(a) for a in node.args)
        return f"kf_{node.func.id}({args})"


@dataclasses.dataclass(frozen=True)
class _Operand:
    name: str
    broadcast: bool  # gathered with index (i / q) % p instead of i


def _source(c_expr: str, operands: tuple[_Operand, ...], scalars: tuple[str, ...]) -> str:
    macros = [
        f"#define kf_{name}(x{', y' if arity == 2 else ''}) {body}"
        for name, (arity, body) in FUNCTIONS.items()
        if f"kf_{name}(" in c_expr
    ]
    params = ["__global T* Y_", "int y_off"]
    pointers = ["    __global T* Y = Y_ + y_off;"]
    vector_loads, scalar_loads = [], []
    for o in operands:
        params += [f"__global const T* A_{o.name}", f"int off_{o.name}"]
        pointers.append(f"    const __global T* P_{o.name} = A_{o.name} + off_{o.name};")
        if o.broadcast:
            params += [f"int q_{o.name}", f"int p_{o.name}"]
            index = f"((i0 + j) / q_{o.name}) % p_{o.name}"
            vector_loads.append(
                f"        for (int j = 0; j < VW; ++j) tmp[j] = LOAD(P_{o.name}, {index});\n"
                f"        const VEC v_{o.name} = VLOADP(tmp);"
            )
            scalar_loads.append(
                f"            const ACC v_{o.name} = "
                f"LOAD(P_{o.name}, (i / q_{o.name}) % p_{o.name});"
            )
        else:
            vector_loads.append(f"        const VEC v_{o.name} = VLOADW(P_{o.name} + i0);")
            scalar_loads.append(f"            const ACC v_{o.name} = LOAD(P_{o.name}, i);")
    params += [f"ACC s_{name}" for name in scalars] + ["int n"]
    nl = "\n"
    return source(f"""
#if VW == 1
#define VEC ACC
#define VLOADW(p) LOAD(p, 0)
#define VLOADP(p) ((p)[0])
#define VSTOREW(v, p) STORE(p, 0, v)
#else
#define VEC ACCV(VW)
#define VLOADW(p) VLOAD(VW, p)
#define VLOADP(p) KCL_CAT(vload, VW)(0, (p))
#define VSTOREW(v, p) VSTORE(VW, v, p)
#endif
{nl.join(macros)}
#define KCL_EXPR {c_expr}

__kernel void kcl_elementwise({", ".join(params)})
{{
{nl.join(pointers)}
    const int i0 = get_global_id(0) * VW;
    if (i0 >= n) return;
    if (i0 + VW <= n) {{
#define K(c) ((VEC)(c))
#if VW == 1
#define SEL(c, a, b) ((c) ? (a) : (b))
#else
#define SEL(c, a, b) select((b), (a), (c))
#endif
        ACC tmp[VW];
{nl.join(vector_loads)}
        VSTOREW(KCL_EXPR, Y + i0);
#undef K
#undef SEL
    }} else {{
#define K(c) ((ACC)(c))
#define SEL(c, a, b) ((c) ? (a) : (b))
        for (int i = i0; i < n; ++i) {{
{nl.join(scalar_loads)}
            STORE(Y, i, KCL_EXPR);
        }}
#undef K
#undef SEL
    }}
}}
""")


def _launch(stream, kernel, variant, out, n, *args):
    vw, wg = variant["VW"], variant.local_size[0]
    return stream.launch(kernel, round_up(-(-n // vw), wg), wg, *mem(out), *args, n)


def _key(out, n, *args):
    return {"n": n}


# The winner (a vector width) depends on the size only coarsely, and every candidate is
# correct at any n (a scalar tail): powers of four, so an MLP's 480- and 640-element
# logits (48 and 64 rows of 10) share a decision.
BUCKETS = {"n": powers_of(4)}


_cache: dict[tuple, Tunable] = {}
_lock = threading.Lock()


def _tunable(c_expr: str, operands: tuple[_Operand, ...], scalars: tuple[str, ...],
             dtype: DType) -> Tunable:
    signature = (c_expr, operands, scalars, dtype.name)
    with _lock:
        found = _cache.get(signature)
        if found is None:
            text = _source(c_expr, operands, scalars)
            digest = hashlib.sha256(repr(signature).encode()).hexdigest()[:12]
            candidates = kernel_variants(
                Kernel(text, "kcl_elementwise", {"DT": dtype.code}), _launch,
                defines={"VW": [1, 2, 4, 8]}, local_sizes=[64],
            )
            found = _cache[signature] = register(Tunable(
                f"kernels_cl.elementwise.{digest}.{dtype.name}", key=_key, candidates=candidates,
                bucket=BUCKETS,
            ))
        return found


def _broadcast_pattern(name: str, shape: tuple[int, ...], out_shape: tuple[int, ...]):
    """None if the operand is full size, else (q, p): element i reads index (i // q) % p."""
    padded = (1,) * (len(out_shape) - len(shape)) + tuple(shape)
    if padded == tuple(out_shape):
        return None
    kept = [d for d, (s, o) in enumerate(zip(padded, out_shape)) if s == o and o != 1]
    if not kept:
        return 1, 1
    lo, hi = kept[0], kept[-1] + 1
    if any(padded[d] == 1 and out_shape[d] != 1 for d in range(lo, hi)):
        raise ValueError(
            f"kernels_cl.elementwise: operand {name!r} of shape {shape} broadcasts to "
            f"{out_shape} along axes between its own axes; only one contiguous run of "
            f"non-broadcast axes is supported"
        )
    return math.prod(out_shape[hi:]), math.prod(out_shape[lo:hi])


@dataclasses.dataclass
class Plan:
    """What one `elementwise` call launches: its tunable (None when the result is
    empty), the output, its size and the kernel arguments after (out, n)."""

    tunable: Tunable | None
    out: cla.Array
    n: int
    args: tuple[object, ...]

    def run(self, stream: Stream) -> cla.Array:
        if self.tunable is not None:
            self.tunable(stream, self.out, self.n, *self.args)
        return self.out


def plan(stream: Stream, expr: str, out: cla.Array | None = None, **operands: object) -> Plan:
    """Check the arguments and build (or find) the kernel of one `elementwise` call."""
    op = "elementwise"
    stream = check_stream(op, stream)
    if not isinstance(expr, str):
        raise TypeError(f"kernels_cl.{op}: 'expr' must be a string, got {type(expr).__name__}")
    arrays: dict[str, cla.Array] = {}
    scalars: dict[str, float] = {}
    for name, value in operands.items():
        if name in FUNCTIONS:
            raise ValueError(f"kernels_cl.{op}: operand name {name!r} is a function name")
        if isinstance(value, cla.Array):
            arrays[name] = check_array(op, name, value, stream)
        elif isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
            scalars[name] = float(value)
        else:
            raise TypeError(
                f"kernels_cl.{op}: operand {name!r} must be a pyopencl.array.Array or a "
                f"real number, got {type(value).__name__}"
            )
    if not arrays:
        raise TypeError(f"kernels_cl.{op}: at least one operand must be an array")
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError as error:
        raise ValueError(f"kernels_cl.{op}: cannot parse {expr!r}: {error.msg}") from None
    compiler = _Compiler(expr, set(arrays), set(scalars))
    c_expr = compiler.visit(tree)
    dtype = check_same_dtype(op, list(arrays.items()), stream)
    try:
        out_shape = tuple(np.broadcast_shapes(*(tuple(a.shape) for a in arrays.values())))
    except ValueError:
        shapes = ", ".join(f"{n}{tuple(a.shape)}" for n, a in arrays.items())
        raise ValueError(f"kernels_cl.{op}: operands do not broadcast together: {shapes}") from None
    used = [n for n in arrays if n in compiler.used]
    layout = []
    kernel_args: list[object] = []
    for name in used:
        pattern = _broadcast_pattern(name, tuple(arrays[name].shape), out_shape)
        layout.append(_Operand(name, pattern is not None))
        kernel_args.extend(mem(arrays[name]) if arrays[name].size else (None, 0))
        if pattern is not None:
            kernel_args.extend(pattern)
    scalar_names = tuple(n for n in scalars if n in compiler.used)
    kernel_args.extend(scalars[n] for n in scalar_names)
    full = [(n, arrays[n]) for n, o in zip(used, layout) if not o.broadcast]
    broadcast = [(n, arrays[n]) for n, o in zip(used, layout) if o.broadcast]
    out = check_out(op, out, out_shape, dtype, stream, no_overlap=broadcast, in_place=full)
    if out.size == 0:
        return Plan(None, out, 0, ())
    tunable = _tunable(c_expr, tuple(layout), scalar_names, dtype)
    return Plan(tunable, out, out.size, tuple(kernel_args))


def elementwise(
    stream: Stream, expr: str, out: cla.Array | None = None, **operands: object
) -> cla.Array:
    """Evaluate `expr` elementwise over the keyword operands in one fused kernel.

    ``elementwise(stream, "relu(x + bias)", x=h, bias=b)``; ``out=`` to write into an
    existing array (it may be a full-size operand itself). Returns the result array.
    """
    return plan(stream, expr, out, **operands).run(stream)


__all__ = ["FUNCTIONS", "Plan", "elementwise", "plan"]
