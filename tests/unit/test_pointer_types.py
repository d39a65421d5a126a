"""Which Array dtypes suit which declared pointer types (no device needed)."""

import numpy as np
import pyopencl.cltypes as cltypes
import pytest

from clmodes.pointer_types import dtype_problem, pointer_type


@pytest.mark.parametrize("declared, dtype, size", [
    ("float*", np.float32, 3), ("float*", np.complex64, 3), ("half*", np.float16, 1),
    ("double2*", np.complex128, 5), ("double2*", np.float64, 4), ("float4*", cltypes.float4, 1),
    ("float3*", cltypes.float3, 2), ("float3*", np.float32, 8), ("uint*", np.uint32, 1),
    ("unsigned int*", np.uint32, 1), ("int2*", np.dtype((np.int32, (2,))), 3),
])
def test_suitable_arrays(declared, dtype, size):
    assert dtype_problem(pointer_type(declared), np.dtype(dtype), size) is None


@pytest.mark.parametrize("declared, dtype, size, message", [
    ("float*", np.int32, 4, "has dtype int32; float* takes float32"),
    ("int*", np.uint32, 4, "has dtype uint32; int* takes int32"),
    ("float*", ">f4", 4, "has dtype >f4"),
    ("half*", np.float32, 4, "half* takes float16"),
    ("float4*", np.float32, 6, "holds 6 float32s, not whole float4 vectors of 4"),
    ("float3*", np.float32, 6, "not whole float3 vectors of 4"),
    ("double*", np.complex64, 2, "has dtype complex64; double* takes float64"),
    ("float2*", [("x", np.float32), ("k", np.int32)], 2, "float2* takes float32"),
])
def test_unsuitable_arrays(declared, dtype, size, message):
    assert message in dtype_problem(pointer_type(declared), np.dtype(dtype), size)


@pytest.mark.parametrize("declared", ["void*", "uchar*", "char*", "pair_t*", "struct s*",
                                      "real_t*", "float**", "image2d_t"])
def test_types_that_take_any_array(declared):
    assert pointer_type(declared) is None
