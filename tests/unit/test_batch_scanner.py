"""Batched compile queue: DESIGN §2 'Compile queue and batching'."""

import numpy as np
import pyopencl.array as cla

from clmodes import Kernel

VARIANT_SRC = """
#define TILE 4
typedef float real;
inline real helper(real x) { return x * FACTOR + TILE; }
__kernel void apply(__global real* out, __global const real* x, int n)
{
    int i = get_global_id(0);
    if (i < n) out[i] = helper(x[i]);
}
"""

# Another source with the same helper name, macro name and typedef name.
OTHER_SRC = """
#define TILE 100
typedef int real;
inline float helper(float x) { return x - TILE; }
__kernel void apply(__global float* out, __global const float* x, int n)
{
    int i = get_global_id(0);
    if (i < n) out[i] = helper(x[i]);
}
"""


def _run(stream, kernel, n=8):
    x = cla.to_device(stream.queue, np.arange(n, dtype=np.float32))
    out = cla.zeros(stream.queue, n, np.float32)
    stream.launch(kernel, n, None, out.data, x.data, n)
    return out.get()


def test_define_options_are_defines():
    source = "__kernel void k(__global int* a) { a[0] = N; }"
    assert Kernel(source, "k", options="-D N=4") == Kernel(source, "k", defines={"N": 4})


def test_scanner_finds_file_scope_identifiers():
    from clmodes.batch.symbols import declared
    from clmodes.batch.tokens import tokenize

    symbols = declared(tokenize(
        """
        typedef struct { float x; } Pair;
        typedef unsigned int count_t;
        enum Color { RED, GREEN = 2 };
        __constant float table[2] = {1, 2};
        /* int commented_out(void); */
        inline float helper(float x) { return x; }
        __kernel __attribute__((reqd_work_group_size(1, 1, 1))) void k(__global float* a) {}
        """
    ))
    assert set(symbols.identifiers) == {
        "Pair", "count_t", "Color", "RED", "GREEN", "table", "helper", "k"}
    assert dict(symbols.typedefs) == {"count_t": "unsigned int"}


