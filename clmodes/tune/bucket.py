"""Shape buckets: one tune answers every size in a range (`Tunable(..., bucket=...)`).

A key function returns sizes; a tunable that buckets a field replaces its value by the
range it falls in before the key is made, so `{"M": 48}` and `{"M": 56}` are both the key
`{"M": "33..64"}` and share one decision. The label is the range itself (inclusive
bounds, "65.." when open above), so two rules that draw the same range share the entry,
and `clmodes tune list` shows which sizes a decision answers.

Buckets only choose *which* candidate runs: each candidate still runs at the caller's
exact sizes. A tunable may bucket a size only when every candidate is correct at every
size (bounds-checked kernels); the bucket's winner was checked against the reference at
the size it was tuned on, not at the others.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Union


@dataclasses.dataclass(frozen=True)
class PowersOf:
    """Ranges between consecutive powers of `base` (`base**(k-1) + 1 .. base**k`); 0 and
    1 are their own buckets. Powers of two: 33..64, 65..128, ..."""

    base: int = 2

    def __post_init__(self) -> None:
        if isinstance(self.base, bool) or not isinstance(self.base, int) or self.base < 2:
            raise ValueError(f"bucket.powers_of: base must be an integer >= 2, not {self.base!r}")

    def label(self, value: int) -> str:
        if value <= 1:
            return str(value)
        upper = 1
        while upper < value:
            upper *= self.base
        lower = upper // self.base + 1
        return str(upper) if lower == upper else f"{lower}..{upper}"


@dataclasses.dataclass(frozen=True)
class Edges:
    """Ranges ending at the given edges (inclusive), then one open range above the
    last: `edges([4096, 65536])` gives 0..4096, 4097..65536 and 65537..."""

    bounds: tuple[int, ...]

    def __post_init__(self) -> None:
        bounds = tuple(self.bounds)
        if not bounds or any(isinstance(b, bool) or not isinstance(b, int) for b in bounds):
            raise ValueError(f"bucket.edges needs a non-empty list of integers, not {self.bounds!r}")
        if list(bounds) != sorted(set(bounds)):
            raise ValueError(f"bucket.edges must be strictly increasing, not {list(bounds)}")
        object.__setattr__(self, "bounds", bounds)

    def label(self, value: int) -> str:
        lower = 0
        for bound in self.bounds:
            if value <= bound:
                return f"{lower}..{bound}"
            lower = bound + 1
        return f"{lower}.."


Rule = Union[PowersOf, Edges]
RuleSpec = Union[Rule, str]
"""A rule, or its short name: "pow2" (powers of two), "pow4"."""

SHORT_NAMES: dict[str, Rule] = {"pow2": PowersOf(2), "pow4": PowersOf(4)}


def powers_of_two() -> PowersOf:
    """Buckets 1, 2, 3..4, 5..8, ..., 33..64, ... (the short name "pow2")."""
    return PowersOf(2)


def powers_of(base: int) -> PowersOf:
    """Buckets between consecutive powers of `base` (coarser than powers of two)."""
    return PowersOf(base)


def edges(bounds: list[int] | tuple[int, ...]) -> Edges:
    """Buckets ending at the given sizes (inclusive), and one above the last."""
    return Edges(tuple(bounds))


def rules_of(spec: Mapping[str, RuleSpec] | None, owner: str) -> dict[str, Rule]:
    """`bucket=` as rules by field name; a short name must be one of `SHORT_NAMES`."""
    if spec is None:
        return {}
    if not isinstance(spec, Mapping):
        raise TypeError(f"{owner}: bucket= must map key fields to rules, e.g. "
                        f"{{'M': 'pow2'}}, not {type(spec).__name__}")
    rules = {}
    for field, rule in spec.items():
        if isinstance(rule, str):
            if rule not in SHORT_NAMES:
                raise ValueError(f"{owner}: unknown bucket rule {rule!r} for {field!r} "
                                 f"(known: {', '.join(SHORT_NAMES)}, or clmodes.tune.bucket.edges([...]))")
            rule = SHORT_NAMES[rule]
        if not isinstance(rule, (PowersOf, Edges)):
            raise TypeError(f"{owner}: bucket rule for {field!r} must be a clmodes.tune.bucket "
                            f"rule or one of {', '.join(SHORT_NAMES)}, not {rule!r}")
        rules[str(field)] = rule
    return rules


def bucketed(value: object, rules: Mapping[str, Rule], owner: str) -> object:
    """The key value with each bucketed field replaced by its range's label."""
    if not rules:
        return value
    if not isinstance(value, Mapping):
        raise TypeError(f"{owner}: bucket= needs the key function to return a dict of "
                        f"sizes, got {type(value).__name__}")
    out = dict(value)
    for field, rule in rules.items():
        if field not in out:
            raise ValueError(f"{owner}: bucket= names {field!r}, which the key {dict(value)!r} "
                           "does not have")
        size = out[field]
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise TypeError(f"{owner}: key field {field!r} is bucketed, so it must be a "
                            f"non-negative integer, not {size!r}")
        out[field] = rule.label(size)
    return out
