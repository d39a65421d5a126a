"""CLBlast's Xgemm kernel and its tuner's search space, for the benchmarks.

The source is CLBlast's own (tests/fixtures/clblast/: common.opencl and xgemm_part1..4,
Apache 2.0, its README names the commit), joined as CLBlast's tuner joins it:
``#define PRECISION 32`` (single), common, the four parts; the config arrives as defines.
The space is its tuner's V=2 ("a lot more tuning parameters, sampled randomly":
src/tuning/kernels/xgemm.hpp) with its constraints, plus the two limits its tuner takes
from the device: the staged tiles' local memory and the work-group size.

The kernel computes C = alpha * A^T B + beta * C in CLBlast's layouts (A is K x M, B is
K x N, C is N x M, all column-major); M and N must be multiples of 128 (the largest
MWG and NWG), K of 32. Launch: global (M * MDIMC / MWG, N * NDIMC / NWG), local
(MDIMC, NDIMC); Kernel Tuner's equivalent is problem (M, N), grid divided by (MWG, NWG),
block (MDIMC, NDIMC).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "clblast"
FILES = ("common.opencl", "xgemm_part1.opencl", "xgemm_part2.opencl", "xgemm_part3.opencl",
         "xgemm_part4.opencl")
KERNEL_NAME = "Xgemm"

PARAMS = {
    "GEMMK": [0], "MWG": [16, 32, 64, 128], "NWG": [16, 32, 64, 128], "KWG": [16, 32],
    "MDIMC": [8, 16, 32], "NDIMC": [8, 16, 32], "MDIMA": [8, 16, 32], "NDIMB": [8, 16, 32],
    "KWI": [2], "VWM": [1, 2, 4, 8], "VWN": [1, 2, 4, 8], "STRM": [0, 1], "STRN": [0, 1],
    "SA": [0, 1], "SB": [0, 1], "KREG": [1],
}

# XgemmSetConstraints(V=2), as Python expressions (integer division where CLBlast's is).
CONSTRAINTS = (
    "KWG % KWI == 0",
    "MWG % (MDIMC * VWM) == 0",
    "NWG % (NDIMC * VWN) == 0",
    "MWG % (MDIMA * VWM) == 0",
    "NWG % (NDIMB * VWN) == 0",
    "KWG % ((MDIMC * NDIMC) // MDIMA) == 0",
    "KWG % ((MDIMC * NDIMC) // NDIMB) == 0",
)


def restrictions(local_mem_bytes: int, max_group: int) -> tuple[str, ...]:
    """The constraints plus the device's limits (XgemmComputeLocalMemSize, float32)."""
    return CONSTRAINTS + (f"4 * (SA * KWG * MWG + SB * KWG * NWG) <= {local_mem_bytes}",
                          f"MDIMC * NDIMC <= {max_group}")


def space(local_mem_bytes: int, max_group: int):
    from clmodes import TuningSpace

    return TuningSpace(PARAMS, restrictions(local_mem_bytes, max_group))


def _unwrapped(text: str) -> str:
    """A CLBlast kernel file without its C++ raw-string wrapper lines (R"( and )")."""
    return "\n".join(line for line in text.splitlines() if line.strip() not in ('R"(', ')"'))


@lru_cache(maxsize=1)
def source() -> str:
    parts = [_unwrapped((FIXTURES / name).read_text()) for name in FILES]
    return "#define PRECISION 32\n" + "\n".join(parts)


def geometry(config: dict, m: int, n: int) -> tuple[tuple[int, int], tuple[int, int]]:
    return ((m * config["MDIMC"] // config["MWG"], n * config["NDIMC"] // config["NWG"]),
            (config["MDIMC"], config["NDIMC"]))


def host_inputs(m: int, n: int, k: int, seed: int = 0) -> dict[str, np.ndarray]:
    """A (K x M), B (K x N), C (N x M), column-major as flat float32 arrays."""
    rng = np.random.default_rng(seed)
    return {"a": rng.random(k * m, dtype=np.float32), "b": rng.random(k * n, dtype=np.float32),
            "c": np.zeros(n * m, np.float32)}


def expected(inputs: dict[str, np.ndarray], m: int, n: int, k: int) -> np.ndarray:
    """C = A^T B in CLBlast's layouts (alpha 1, beta 0), flat column-major N x M."""
    a = inputs["a"].reshape(k, m).astype(np.float64)  # a[k, m]
    b = inputs["b"].reshape(k, n).astype(np.float64)  # b[k, n]
    return (b.T @ a).reshape(-1)  # c[n, m] = sum_k b[k, n] a[k, m]
