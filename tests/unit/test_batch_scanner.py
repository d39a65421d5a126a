"""Kernel identity and the file-scope scanner, without a device."""

from clmodes import Kernel


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


