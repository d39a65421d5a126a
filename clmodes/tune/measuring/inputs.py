"""What a tune measures on: the caller's arguments, copied, with unwritten memory replaced.

The trap: a tune measures its candidates on scratch copies of the caller's arguments,
and under COMPILE_AND_AUTOTUNE (what `warm` runs) every other launch is dropped, so an
input that an earlier launch of the workload would have written (an MLP's hidden layer,
attention's scores) is memory nobody wrote. Such memory reads as floats full of NaN and
subnormal values (measured: 51-55% of the MLP's last-layer input), and on CPUs every
arithmetic instruction that meets a subnormal takes a microcode assist: the same GEMM ran
10-60x slower on it (PoCL and Intel's CPU runtime, 64x10x128, against uniform values),
and not uniformly, so the ranking of the candidates changed and `warm` chose a config
2x slower on real data than the one a cold execution chose.

The rule: a floating-point array that holds any NaN or subnormal value is measured on
seeded uniform values in [-1, 1) instead. Real inputs almost never hold either (an
attention mask's -inf is neither, and is kept), and where one does, its CPU timing is the
pathology, not the workload. Integer arrays and raw buffers are kept as copied: their
values may be indices, and replacing them could send a kernel out of bounds.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from typing import TypeGuard

import numpy as np
import pyopencl.array as cla

log = logging.getLogger("clmodes")

SEED = 0  # the replacement values are the same in every process, for every tune


@dataclass(frozen=True)
class Replaced:
    """One argument measured on uniform values instead of its copy: its position among
    the call's arguments, and why (what the copy held)."""

    position: int
    shape: tuple[int, ...]
    dtype: str
    nan: int
    subnormal: int

    def describe(self) -> str:
        shape = "x".join(map(str, self.shape)) or "scalar"
        return (f"argument {self.position} ({shape} {self.dtype}: {self.nan} NaN, "
                f"{self.subnormal} subnormal values)")


def unwritten(values: np.ndarray) -> tuple[int, int]:
    """(NaN count, subnormal count) of a host array of a floating or complex dtype."""
    real = values.view(values.real.dtype) if values.dtype.kind == "c" else values
    magnitude = np.abs(real)
    tiny = np.finfo(real.dtype).tiny
    return int(np.isnan(real).sum()), int(((magnitude < tiny) & (magnitude != 0)).sum())


def uniform_like(values: np.ndarray, seed: int = SEED) -> np.ndarray:
    """Seeded uniform values in [-1, 1) of `values`' shape and dtype (complex: both
    parts)."""
    real_dtype = values.real.dtype if values.dtype.kind == "c" else values.dtype
    count = values.size * (2 if values.dtype.kind == "c" else 1)
    drawn = np.random.default_rng(seed).uniform(-1, 1, count).astype(real_dtype)
    return drawn.view(values.dtype).reshape(values.shape)


def replace_unwritten(copies: tuple[object, ...]) -> list[Replaced]:
    """Overwrite, in place, each contiguous floating-point array among `copies` (the
    tune's own scratch copies) that holds NaN or subnormal values; what was replaced."""
    replaced: list[Replaced] = []
    for position, arg in enumerate(copies):
        if not _checkable(arg):
            continue
        host = arg.get()
        nan, subnormal = unwritten(host)
        if nan or subnormal:
            arg.set(uniform_like(host))
            replaced.append(Replaced(position, tuple(arg.shape), arg.dtype.name, nan, subnormal))
    return replaced


def _checkable(arg: object) -> TypeGuard[cla.Array]:
    return (isinstance(arg, cla.Array) and arg.dtype.kind in "fc" and arg.size > 0
            and (arg.flags.c_contiguous or arg.flags.f_contiguous))


def log_replaced(describe: str, replaced: list[Replaced]) -> None:
    """One line per tune that replaced anything: which arguments, and why."""
    if replaced:
        log.info("%s: measuring on uniform values in [-1, 1) instead of %s: unwritten "
                 "memory (as under COMPILE_AND_AUTOTUNE, where the launches that would "
                 "write it are dropped) times unlike the workload on CPUs",
                 describe, "; ".join(r.describe() for r in replaced))
