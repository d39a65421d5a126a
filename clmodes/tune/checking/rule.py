"""A Tunable's rule for checking its candidates (`Checking`), made from its `check=`,
`reference=` and `tolerance=` (`checking_of`) when the Tunable is made, so that a wrong
argument fails there, naming itself, and not at the first tune.

Apart from the check itself (`reference.py`, which runs candidates and reads buffers
back) because every Tunable a library defines makes its rule at import, and a warmed
process (every key stored) never checks anything: the check and the comparison cost a
warmed start ~4 ms (ci/bench/bench_warm_start.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from clmodes.tune.checking.candidates import Candidate
    from clmodes.tune.checking.comparison import Tolerance


@dataclasses.dataclass(frozen=True)
class Checking:
    """A Tunable's rule for checking its candidates: against which candidate (None: the
    first that runs), within which tolerance for floats (None: by dtype), on which
    argument positions (None: every buffer argument)."""

    reference: str | None = None
    tolerance: Tolerance | None = None
    positions: tuple[int, ...] | None = None


def checking_of(owner: str, check: object, reference: object, tolerance: object,
                get: Callable[[str], Candidate | None]) -> Checking | None:
    """A Tunable's `check=`, `reference=` and `tolerance=` as its rule (None: off), or a
    ValueError naming the argument at fault."""
    if check is False:
        if reference is not None or tolerance is not None:
            raise ValueError(f"{owner}: reference= and tolerance= need check= on")
        return None
    positions: tuple[int, ...] | None = None
    if check is not True:
        try:
            positions = tuple(check)  # type: ignore[call-overload,arg-type]  # validated below
        except TypeError:
            positions = None
        if positions is None or not all(isinstance(p, int) and not isinstance(p, bool)
                                        and p >= 0 for p in positions):
            raise ValueError(f"{owner}: check= must be True, False or argument positions "
                             f"(ints >= 0), got {check!r}")
    if reference is not None and (not isinstance(reference, str) or get(reference) is None):
        raise ValueError(f"{owner}: reference={reference!r} is not one of its candidates")
    if tolerance is not None and not isinstance(tolerance, _tolerance_type()):
        raise ValueError(f"{owner}: tolerance= must be a clmodes.Tolerance, got {tolerance!r}")
    return Checking(reference, cast("Tolerance | None", tolerance), positions)


def _tolerance_type() -> type:
    """`Tolerance`, imported only for a tolerance given: whoever made one loaded it."""
    from clmodes.tune.checking.comparison import Tolerance

    return Tolerance
