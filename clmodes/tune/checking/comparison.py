"""Is a candidate's output the reference's? The comparison a tune makes before a candidate
can win (`tune.checking.reference` runs the candidates; this module only compares host arrays).

Why per dtype: integers (and raw buffers, which have none) have one right answer, so they
must agree bit for bit. Floating-point candidates legitimately differ by the order they
sum in (tiles, vector widths, work-group reductions), so they agree within a tolerance:
|got - ref| <= atol + rtol * |ref|. The default `atol` is `rtol` times the largest
magnitude in the reference's argument, because an element that cancels to near zero (a
dot product of signed values) carries the rounding error of its terms, not of its own
size, and a purely relative test would reject every reordered GEMM. A NaN where the
reference has a NaN agrees; an infinity agrees with the same infinity only.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np


@dataclasses.dataclass(frozen=True)
class Tolerance:
    """How far a floating-point candidate's output may be from the reference's:
    |got - ref| <= atol + rtol * |ref|, element by element. `atol=None`: `rtol` times
    the largest finite magnitude of the reference's argument (see the module's doc)."""

    rtol: float
    atol: float | None = None

    def __post_init__(self) -> None:
        for field, value in (("rtol", self.rtol), ("atol", self.atol)):
            if value is None and field == "atol":
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value) or value < 0:
                raise ValueError(f"clmodes.Tolerance: {field} must be a finite number >= 0, "
                                 f"got {value!r}")

    def atol_for(self, reference: np.ndarray) -> float:
        """The absolute part of the error allowed in `reference` (one argument, flat)."""
        if self.atol is not None:
            return self.atol
        largest = 0.0
        for start in range(0, reference.size, CHUNK):
            magnitude = np.abs(reference[start:start + CHUNK])
            finite = magnitude[np.isfinite(magnitude)]
            largest = max(largest, float(finite.max()) if finite.size else 0.0)
        return self.rtol * largest


CHUNK = 1 << 20  # values compared at a time: float64 temporaries stay a few MiB

# By the width of the real type: a few thousand times its epsilon, far above the error of
# any reordering of a sum, far below that of a wrong index or a missed term.
DEFAULT_TOLERANCES = {2: Tolerance(rtol=1e-2), 4: Tolerance(rtol=1e-4), 8: Tolerance(rtol=1e-9)}


def default_tolerance(dtype: np.dtype) -> Tolerance:
    real = np.dtype(dtype).type(0).real.dtype
    return DEFAULT_TOLERANCES.get(real.itemsize, DEFAULT_TOLERANCES[8])


def disagreement(got: np.ndarray, reference: np.ndarray,
                 tolerance: Tolerance | None = None) -> str | None:
    """None if `got` agrees with `reference` (same shape and dtype), else why, in a few
    words: "max abs error 0.5 at index 3 (12 of 4096 elements differ)"."""
    if got.shape != reference.shape or got.dtype != reference.dtype:
        return f"is {got.shape} {got.dtype}, the reference's {reference.shape} {reference.dtype}"
    if np.array_equal(_bytes(got), _bytes(reference)):
        return None
    if got.dtype.kind not in "fc":
        return _exact(got, reference)
    return _within(_real(got), _real(reference), tolerance or default_tolerance(got.dtype),
                   got.shape, 2 if got.dtype.kind == "c" else 1)


def _bytes(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values).reshape(-1).view(np.uint8)


def _real(values: np.ndarray) -> np.ndarray:
    """A complex array as its real parts and imaginary parts side by side."""
    flat = np.ascontiguousarray(values).reshape(-1)
    return flat.view(flat.real.dtype) if values.dtype.kind == "c" else flat


def _exact(got: np.ndarray, reference: np.ndarray) -> str:
    differ = np.flatnonzero(got.reshape(-1) != reference.reshape(-1))
    if differ.size == 0:  # equal values, other bits (a bool's other true byte)
        return "differs in its bits from the reference's"
    first = int(differ[0])
    return (f"{differ.size} of {got.size} elements differ, the first at index "
            f"{_index(first, got.shape)} ({got.reshape(-1)[first].item()!r} vs "
            f"{reference.reshape(-1)[first].item()!r})")


@dataclasses.dataclass
class _Worst:
    """What a comparison found, chunk by chunk."""

    bad: int = 0
    unmatched: tuple[int, float, float] | None = None  # index, got, reference: not finite
    largest: tuple[float, int, float] = (-1.0, 0, 0.0)  # error, index, allowed


def _within(got: np.ndarray, reference: np.ndarray, tolerance: Tolerance,
            shape: tuple[int, ...], per_element: int) -> str | None:
    """`per_element`: values per element of `shape` (2 for a complex dtype)."""
    atol, worst = tolerance.atol_for(reference), _Worst()
    for start in range(0, got.size, CHUNK):
        _compare_chunk(got[start:start + CHUNK], reference[start:start + CHUNK], start,
                       atol, tolerance.rtol, worst)
    if not worst.bad:
        return None
    count = f"{worst.bad} of {got.size} values differ"
    if worst.unmatched is not None:
        at, value, expected = worst.unmatched
        return (f"{value:.6g} where the reference has {expected:.6g} at index "
                f"{_index(at // per_element, shape)} ({count})")
    error, at, allowed = worst.largest
    return (f"max abs error {error:.3g} at index {_index(at // per_element, shape)} "
            f"(allowed {allowed:.3g}; {count})")


def _compare_chunk(got: np.ndarray, reference: np.ndarray, start: int, atol: float,
                   rtol: float, worst: _Worst) -> None:
    got64, ref64 = got.astype(np.float64), reference.astype(np.float64)
    same = (got64 == ref64) | (np.isnan(got64) & np.isnan(ref64))  # equal infinities too
    with np.errstate(invalid="ignore", over="ignore"):
        error = np.abs(got64 - ref64)
        allowed = atol + rtol * np.where(np.isfinite(ref64), np.abs(ref64), 0.0)
    bad = ~same & ~(error <= allowed)  # a NaN error is bad
    if not bad.any():
        return
    worst.bad += int(bad.sum())
    unmatched = np.flatnonzero(bad & ~np.isfinite(error))
    if unmatched.size and worst.unmatched is None:
        at = int(unmatched[0])
        worst.unmatched = (start + at, float(got64[at]), float(ref64[at]))
    at = int(np.argmax(np.where(bad & np.isfinite(error), error, -1.0)))
    if bad[at] and error[at] > worst.largest[0]:
        worst.largest = (float(error[at]), start + at, float(allowed[at]))


def _index(flat: int, shape: tuple[int, ...]) -> object:
    return flat if len(shape) <= 1 else tuple(int(i) for i in np.unravel_index(flat, shape))
