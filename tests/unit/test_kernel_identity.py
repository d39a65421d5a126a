"""Launches: verdicts, dropped launches, argument checking, threads."""


import pytest

from clmodes import (
    Kernel,
)

ADD = "__kernel void add(__global float* a, float v, int n) { int i = get_global_id(0); if (i < n) a[i] += v; }"


def test_kernel_identity():
    a = Kernel("__kernel void k() {}", "k", defines={"A": 1, "B": 2})
    b = Kernel("__kernel void k() {}", "k", defines={"B": "2", "A": "1"})
    assert a == b and hash(a) == hash(b)
    assert a != a.with_defines(A=3)
    with pytest.raises(ValueError, match="identifier"):
        Kernel("__kernel void k() {}", "not a name")


