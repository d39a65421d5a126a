"""Candidates declared as variants of one kernel: a grid of defines and local sizes.

Writing one function per candidate does not scale to a 4x4 grid of tile sizes and
work-group shapes. `kernel_variants` takes the kernel, the grid and *one* launch function
`launch(stream, kernel, variant, *args)` and returns the candidate dict a `Tunable` wants,
with stable, readable names ("TILE=16,WPT=4 local=16x4"). Variants whose work-group is
larger than the device allows are rejected at launch with a clear message (and so dropped
with a warning by the tune), since device limits are unknown when the grid is declared.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Mapping, Sequence

from clmodes.errors import KernelLaunchError
from clmodes.kernel import DefineValue, Kernel
from clmodes.stream import Stream
from clmodes.tune.checking.candidates import Candidate

LocalSize = tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class Variant:
    """One point of the grid."""

    defines: tuple[tuple[str, DefineValue], ...]
    local_size: LocalSize | None

    @property
    def name(self) -> str:
        parts = [",".join(f"{k}={v}" for k, v in self.defines)]
        if self.local_size is not None:
            parts.append("local=" + "x".join(map(str, self.local_size)))
        return " ".join(p for p in parts if p) or "default"

    def __getitem__(self, define: str) -> DefineValue:
        for name, value in self.defines:
            if name == define:
                return value
        raise KeyError(define)

    def kernel(self, base: Kernel) -> Kernel:
        return base.with_defines(**dict(self.defines))


Launch = Callable[..., object]  # launch(stream, kernel, variant, *args)


def grid(
    defines: Mapping[str, Sequence[DefineValue]] | None = None,
    local_sizes: Sequence[LocalSize | int] | None = None,
    where: Callable[[Variant], bool] | None = None,
) -> list[Variant]:
    """Every combination of define values and local sizes that `where` accepts."""
    names = sorted(defines or {})
    sizes: list[LocalSize | None] = (
        [tuple([s]) if isinstance(s, int) else tuple(s) for s in local_sizes]
        if local_sizes else [None]
    )
    variants = []
    for values in itertools.product(*((defines or {})[n] for n in names)):
        for size in sizes:
            variant = Variant(tuple(zip(names, values)), size)
            if where is None or where(variant):
                variants.append(variant)
    return variants


def kernel_variants(
    kernel: Kernel,
    launch: Launch,
    *,
    defines: Mapping[str, Sequence[DefineValue]] | None = None,
    local_sizes: Sequence[LocalSize | int] | None = None,
    where: Callable[[Variant], bool] | None = None,
) -> dict[str, Candidate]:
    """Candidates for a `Tunable`, one per grid point."""
    candidates: dict[str, Candidate] = {}
    for variant in grid(defines, local_sizes, where):
        candidates[variant.name] = _candidate(kernel, variant, launch)
    if not candidates:
        raise ValueError(f"kernel {kernel.name!r}: the variant grid is empty")
    return candidates


def _candidate(base: Kernel, variant: Variant, launch: Launch) -> Candidate:
    kernel = variant.kernel(base)

    def run(stream: Stream, *args: object) -> object:
        if variant.local_size is not None:
            limit = stream.device.max_work_group_size
            if math.prod(variant.local_size) > limit:
                raise KernelLaunchError(
                    f"kernel {base.name!r} variant {variant.name}: work-group of "
                    f"{math.prod(variant.local_size)} exceeds {stream.device.label}'s "
                    f"maximum {limit}"
                )
        return launch(stream, kernel, variant, *args)

    run.__name__ = f"{base.name}[{variant.name}]"
    return run
