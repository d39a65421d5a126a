"""The environment variables of the example workloads, declared as `clmodes.settings`
declares clmodes' own: typed, documented and parsed once, read at each call.

They are the example package's, not clmodes': `python -m kernels_cl` lists them (not
`clmodes --help`), and docs/kernels_cl.md's table is `markdown_table(KNOBS)`, written by
`python ci/settings_tables.py` and checked by tests/unit/test_settings.py.
"""

from __future__ import annotations

import enum

from clmodes.settings import Knob, choice



class Subsystem(str, enum.Enum):
    WORKLOADS = "workloads"
    MATMUL = "matmul"


def at_least_one(text: str) -> int | None:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"must be an integer, got {text!r}") from None
    if value < 1:
        raise ValueError(f"must be at least 1, got {value}")
    return value


def seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"must be an integer, got {text!r}") from None


def size(name: str, default: int | None, doc: str) -> Knob[int | None]:
    """A workload size; None (unset) leaves each workload its own default."""
    return Knob(name, Subsystem.WORKLOADS, default, at_least_one, doc=doc,
                error="{variable} {reason}")


DTYPES = ("float32", "float64", "float16")

BATCH = size("KERNELS_CL_BATCH", None, "MLP rows, attention sequences (mlp 64, attention 2)")
HIDDEN = size("KERNELS_CL_HIDDEN", None, "hidden width (mlp 128, attention 64)")
LAYERS = size("KERNELS_CL_LAYERS", 2, "MLP hidden layers (2)")
CLASSES = size("KERNELS_CL_CLASSES", 10, "MLP outputs (10)")
SEQ = size("KERNELS_CL_SEQ", 48, "attention sequence length (48)")
DTYPE: Knob[str] = Knob(
    "KERNELS_CL_DTYPE", Subsystem.WORKLOADS, "float32",
    choice(DTYPES, "must be float32, float64 or float16, got {got!r}", lower=False),
    error="{variable} {reason}", doc="the workloads' dtype: float32 (default), float64, float16")
MATMUL: Knob[str] = Knob(
    "KERNELS_CL_MATMUL", Subsystem.MATMUL, "space",
    choice(("space", "candidates"), "must be 'space' or 'candidates', not {got!r}", lower=False),
    error="{name} {reason}",
    doc="space (default: the GEMM space) or candidates (15 hand-written), read at each call")
SEED: Knob[int] = Knob(
    "KERNELS_CL_SEED", Subsystem.WORKLOADS, 0, seed, error="{variable} {reason}",
    doc="seed of the workloads' parameters and inputs (0)")

KNOBS: tuple[Knob[object], ...] = (BATCH, HIDDEN, LAYERS, CLASSES, SEQ, DTYPE, MATMUL, SEED)
