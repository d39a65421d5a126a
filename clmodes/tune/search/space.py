"""`TuningSpace`: the configurations a tunable kernel may take, without listing them.

A space is a product of parameter value lists cut down by restrictions
(`clmodes.tune.search.restriction`). Real spaces are products of 10^4-10^6 points of which a few
hundred are valid, so nothing here builds the product: iteration is a depth-first walk
over the parameters in declared order (what `itertools.product` yields, minus the invalid
points) that checks each string restriction as soon as the prefix binds every name it
reads, pruning the whole sub-product below a failing prefix. Callables read unknown names
and are checked on complete configs.

A config's canonical name is ``"P1=v1,P2=v2,..."`` in declared order; it is what the
store and the strategies key measurements by, so it must round-trip (`config(name)`) and
two values of one parameter must never print alike (refused at construction).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from clmodes.tune.search.restriction import Restriction, RestrictionError, make

Value = int | float | str | bool
Config = dict[str, Value]
# Below this many points the product is enumerated instead of sampled by rejection.
_ENUMERATE_BELOW = 4096


def format_value(value: Value) -> str:
    """How a value prints in a config name (floats with `repr`: they round-trip)."""
    return repr(value) if isinstance(value, float) else str(value)


class TuningSpace:
    """`TuningSpace({"MWG": [16, 32, 64], ...}, ["MWG % MDIMC == 0", fn])`.

    Iterating yields config dicts in product order; `len()` counts valid configs (once,
    then cached); ``config in space`` takes a dict or a name.
    """

    def __init__(self, params: Mapping[str, Sequence[Value]],
                 restrictions: Iterable[str | Callable[[Mapping[str, Value]], bool]] = ()) -> None:
        self._values = _check_params(params)
        self.params: tuple[str, ...] = tuple(self._values)
        self._parsers = {name: {format_value(v): v for v in values}
                         for name, values in self._values.items()}
        self._index = {name: {_key(v): i for i, v in enumerate(values)}
                       for name, values in self._values.items()}
        if isinstance(restrictions, (str, bytes)) or callable(restrictions):
            restrictions = [restrictions]  # type: ignore[list-item]
        self._given = tuple(restrictions)
        self.restrictions: tuple[Restriction, ...] = tuple(
            make(r, self.params) for r in self._given)
        self._stages = self._stage(self.restrictions)
        self._length: int | None = None

    # -- structure --------------------------------------------------------------------

    def values(self, param: str) -> tuple[Value, ...]:
        return self._values[param]

    @property
    def product_size(self) -> int:
        size = 1
        for values in self._values.values():
            size *= len(values)
        return size

    def _stage(self, restrictions: tuple[Restriction, ...]) -> list[list[Restriction]]:
        """stages[d]: the restrictions to check once params[:d + 1] are bound."""
        position = {name: i for i, name in enumerate(self.params)}
        stages: list[list[Restriction]] = [[] for _ in self.params]
        for r in restrictions:
            depth = (len(self.params) - 1 if r.names is None or not r.names
                     else max(position[n] for n in r.names))
            stages[depth].append(r)
        return stages

    # -- enumeration ------------------------------------------------------------------

    def __iter__(self) -> Iterator[Config]:
        return self._walk({}, 0)

    def _walk(self, prefix: Config, depth: int) -> Iterator[Config]:
        name = self.params[depth]
        checks = self._stages[depth]
        last = depth == len(self.params) - 1
        for value in self._values[name]:
            prefix[name] = value
            if all(r.check(prefix) for r in checks):
                if last:
                    yield dict(prefix)
                else:
                    yield from self._walk(prefix, depth + 1)
        del prefix[name]

    def __len__(self) -> int:
        if self._length is None:
            self._length = sum(1 for _ in self)
        return self._length

    def __bool__(self) -> bool:
        return next(iter(self), None) is not None

    def is_valid(self, config: Mapping[str, Value]) -> bool:
        """A complete config of declared values that passes every restriction."""
        if set(config) != set(self.params):
            return False
        for name in self.params:
            if _key(config[name]) not in self._index[name]:
                return False
        return all(r.check(config) for r in self.restrictions)

    def __contains__(self, config: object) -> bool:
        if isinstance(config, str):
            try:
                config = self.parse(config)
            except ValueError:
                return False
        return isinstance(config, Mapping) and self.is_valid(config)

    # -- names ------------------------------------------------------------------------

    def name(self, config: Mapping[str, Value]) -> str:
        """``"MWG=64,NWG=32,..."``: canonical (declared order), whatever the dict's order."""
        missing = [p for p in self.params if p not in config]
        if missing:
            raise ValueError(f"config {dict(config)}: no value for {', '.join(missing)}")
        return ",".join(f"{p}={format_value(config[p])}" for p in self.params)

    def parse(self, name: str) -> Config:
        """The config a name spells, valid or not (a value must be a declared one)."""
        config: Config = {}
        for part in name.split(","):
            param, sep, text = part.partition("=")
            if not sep or param not in self._parsers:
                raise ValueError(f"config name {name!r}: {part!r} is not PARAM=VALUE of this space")
            if text not in self._parsers[param]:
                raise ValueError(f"config name {name!r}: {param} has no value {text!r}")
            config[param] = self._parsers[param][text]
        if len(config) != len(self.params) or any(p not in config for p in self.params):
            raise ValueError(f"config name {name!r}: expected exactly the parameters "
                             f"{', '.join(self.params)}")
        return {p: config[p] for p in self.params}

    def config(self, name: str) -> Config:
        """The valid config named `name`; ValueError naming it otherwise."""
        config = self.parse(name)
        failed = next((r for r in self.restrictions if not r.check(config)), None)
        if failed is not None:
            raise ValueError(f"config {name!r} violates the restriction {failed.label!r}")
        return config

    def indices(self, config: Mapping[str, Value]) -> tuple[int, ...]:
        """Each value's position in its parameter's list (what neighbours step through)."""
        return tuple(self._index[p][_key(config[p])] for p in self.params)

    def from_indices(self, indices: Sequence[int]) -> Config:
        return {p: self._values[p][i] for p, i in zip(self.params, indices)}

    # -- neighbourhoods and sampling --------------------------------------------------

    def neighbours(self, config: Mapping[str, Value], radius: int = 1) -> list[Config]:
        """Valid configs differing in one parameter by 1..`radius` steps along its value
        list, in declared parameter order, nearer steps first, lower before higher."""
        base = list(self.indices(config))
        found = []
        for position, param in enumerate(self.params):
            count = len(self._values[param])
            for step in range(1, radius + 1):
                for index in (base[position] - step, base[position] + step):
                    if 0 <= index < count:
                        candidate = list(base)
                        candidate[position] = index
                        neighbour = self.from_indices(candidate)
                        if all(r.check(neighbour) for r in self.restrictions):
                            found.append(neighbour)
        return found

    def random_config(self, rng: random.Random, attempts: int = 10_000) -> Config | None:
        """One uniformly drawn valid config by rejection (None if `attempts` all fail)."""
        for _ in range(attempts):
            config = {p: rng.choice(v) for p, v in self._values.items()}
            if all(r.check(config) for r in self.restrictions):
                return config
        return None

    def sample(self, rng: random.Random | int, count: int,
               exclude: Iterable[str] = ()) -> list[Config]:
        """Up to `count` distinct valid configs, uniformly, none named in `exclude`.

        Rejection sampling over the product (no enumeration); a small product, or one
        where rejection keeps failing (tight restrictions, most configs excluded), is
        enumerated once and sampled from. Deterministic given the rng's state.
        """
        rng = rng if isinstance(rng, random.Random) else random.Random(rng)
        excluded = set(exclude)
        if self.product_size <= _ENUMERATE_BELOW or self._asks_for_all(count, excluded):
            return self._sample_enumerated(rng, count, excluded)
        chosen: dict[str, Config] = {}
        misses, max_misses = 0, 200 + 50 * count
        while len(chosen) < count and misses < max_misses:
            config = {p: rng.choice(v) for p, v in self._values.items()}
            name = self.name(config)
            if (name in chosen or name in excluded
                    or not all(r.check(config) for r in self.restrictions)):
                misses += 1
                continue
            chosen[name] = config
        if len(chosen) < count:
            return self._sample_enumerated(rng, count, excluded)
        return list(chosen.values())

    def _asks_for_all(self, count: int, excluded: set[str]) -> bool:
        """Can rejection never finish: `count` at least every valid config not excluded?
        Then it would draw until its miss limit (50 per config asked: `RandomSample(100_000)`
        over GEMM_SPACE's 23,376 configs spent 114 s there, a whole tune's time budget,
        before enumerating anyway). Only a large request pays for counting the space."""
        return count > _ENUMERATE_BELOW and count >= len(self) - len(excluded)

    def _sample_enumerated(self, rng: random.Random, count: int, excluded: set[str]) -> list[Config]:
        pool = [c for c in self if self.name(c) not in excluded]
        return rng.sample(pool, min(count, len(pool)))

    # -- derived spaces ---------------------------------------------------------------

    def subspace(self, **choices: Value | Sequence[Value]) -> TuningSpace:
        """The same space with some parameters fixed (a value) or narrowed (a list of
        declared values); restrictions carry over."""
        params: dict[str, Sequence[Value]] = {}
        for name in self.params:
            if name not in choices:
                params[name] = self._values[name]
                continue
            chosen = choices[name]
            wanted: list[Value] = list(chosen) if isinstance(chosen, (list, tuple)) else [chosen]  # type: ignore[list-item]
            for value in wanted:
                if _key(value) not in self._index[name]:
                    raise ValueError(f"subspace: {name} has no value {value!r} in this space")
            params[name] = wanted
        unknown = sorted(set(choices) - set(self.params))
        if unknown:
            raise ValueError(f"subspace: {', '.join(unknown)} is not a parameter of this space")
        return TuningSpace(params, self._given)

    def __repr__(self) -> str:
        sizes = "x".join(str(len(v)) for v in self._values.values())
        return f"TuningSpace({', '.join(self.params)}; product {sizes}, {len(self.restrictions)} restrictions)"


def _key(value: object) -> tuple[type, object]:
    """A lookup key that keeps True apart from 1 and 1.0 apart from 1."""
    return (type(value), value)


def _check_params(params: object) -> dict[str, tuple[Value, ...]]:
    if not isinstance(params, Mapping) or not params:
        raise ValueError("TuningSpace: params must be a non-empty mapping name -> values")
    checked: dict[str, tuple[Value, ...]] = {}
    for name, values in params.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"TuningSpace: parameter name {name!r} is not an identifier")
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
            raise ValueError(f"TuningSpace: parameter {name!r} needs a non-empty list of values")
        printed: dict[str, Value] = {}
        for value in values:
            if not isinstance(value, (bool, int, float, str)):
                raise ValueError(f"TuningSpace: parameter {name!r} has the value {value!r} "
                                 f"of type {type(value).__name__} (int, float, str, bool only)")
            text = format_value(value)
            if "," in text or "=" in text or not text:
                raise ValueError(f"TuningSpace: parameter {name!r}: the value {value!r} "
                                 f"cannot appear in a config name (empty, ',' or '=')")
            if text in printed:
                raise ValueError(f"TuningSpace: parameter {name!r} lists {printed[text]!r} "
                                 f"and {value!r}, which print alike ({text!r})")
            printed[text] = value
        checked[name] = tuple(values)
    return checked


__all__ = ["Config", "RestrictionError", "TuningSpace", "Value", "format_value"]
