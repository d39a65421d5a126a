"""Run by tests/test_oclgrind.py in a pytest of its own: a deliberately broken kernel
(an out-of-bounds write) on Oclgrind. The harness in conftest.py must fail it."""

import numpy as np
import pyopencl.array as cla
import pytest

from clmodes import Kernel

OUT_OF_BOUNDS = "__kernel void oob(__global float* a) { a[get_global_id(0) + 4] = 1.0f; }"


@pytest.mark.oclgrind
def test_out_of_bounds_write(stream):
    a = cla.zeros(stream.queue, 8, np.float32)
    stream.launch(Kernel(OUT_OF_BOUNDS, "oob"), 8, None, a.data)
    stream.finish()
