"""`ModelGuided`: a surrogate model of the measured times chooses what to measure next.

Why a model: a kernel's time over a tuning space is mostly a function of a few derived
quantities (work per item, work-group size, the tile's footprint), which a local search
only finds by walking to them one step at a time and a random draw by luck. A forest of
randomised trees fitted to log(seconds) learns those regions from the first few
generations and then proposes where the expected improvement over the best so far is
largest; it needs no gradient, handles categorical parameters and cliffs (a config that
spills or fails), and gives an uncertainty (the spread over its trees) for free.

Why scikit-learn's `ExtraTreesRegressor` (the `search` extra), not a Gaussian process or
optuna's TPE: trees are invariant to how a parameter's values are spaced and fit in
milliseconds at these sizes; TPE models each parameter apart, while GEMM times depend on
ratios and products of parameters (docs/decisions/model-guided-search.md says what was
measured). The trap it avoids is encoding: a value's index alone hides the ratios, so
every pair of positive numeric parameters also contributes the sum and the difference
of their log2 values (log2 of the product and of the quotient).

Failed configs (None) are fitted as twice the slowest time seen, so the model learns
where builds or launches fail instead of proposing there again. Deterministic: the
candidate pool is drawn from the search's own `random.Random(seed)`, each fit's
`random_state` from it too, and ties are broken by config name.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import random
from collections.abc import Sequence

from clmodes.tune.search.space import Config, TuningSpace
from clmodes.tune.search.strategies.base import SearchBase

EXTRA = ("ModelGuided needs scikit-learn, the 'search' extra: "
         "pip install 'clmodes[search]'")
# A space whose product is mostly invalid (under 1 in 20 of a trial draw) and that has at
# most this many valid configs is listed once, so the candidate pool is drawn from the
# unmeasured ones directly: rejection sampling of a tightly restricted product (CLBlast's
# Xgemm) would otherwise fall back to enumerating the space on every ask. A loosely
# restricted one is sampled by rejection: listing it would cost more than it saves.
_LIST_AT_MOST = 200_000
_TRIAL_DRAWS = 200
_VALID_FRACTION_TO_LIST = 0.05


def _sklearn_ensemble() -> object:
    """scikit-learn's ensemble module, or an ImportError naming the extra (one line)."""
    try:
        from sklearn import ensemble
    except ImportError:
        raise ImportError(EXTRA) from None
    return ensemble


@dataclasses.dataclass(frozen=True)
class ModelGuided:
    """Model-guided search: `first` random configs, then generations of `generation`
    configs chosen by expected improvement (in log seconds, margin `xi`) under a forest
    of `trees` randomised trees, among `pool` unmeasured valid configs drawn at random
    plus the unmeasured neighbours of the best `centres` configs. Ends when every valid
    config has been proposed. `explore` configs of each generation (never all of it)
    are drawn from the rest of the pool at random instead, so that a model confident of
    one region still samples the others (without it, it stalls in a local optimum's
    neighbourhood: tests/unit/test_model_guided.py's recorded space). Raises
    ImportError naming the `search` extra when scikit-learn is absent."""

    seed: int = 0
    generation: int = 4
    first: int = 4
    pool: int = 256
    trees: int = 32
    centres: int = 3
    xi: float = 0.01
    explore: int = 1

    def __post_init__(self) -> None:
        if isinstance(self.explore, bool) or not isinstance(self.explore, int) or self.explore < 0:
            raise ValueError(f"ModelGuided: explore must be an int >= 0, got {self.explore!r}")
        for field in ("generation", "first", "pool", "trees"):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"ModelGuided: {field} must be a positive int, got {value!r}")
        if not (isinstance(self.xi, (int, float)) and math.isfinite(self.xi) and self.xi >= 0):
            raise ValueError(f"ModelGuided: xi must be a finite number >= 0, got {self.xi!r}")
        if importlib.util.find_spec("sklearn") is None:  # cheap: the import is at start
            raise ImportError(EXTRA)

    def start(self, space: TuningSpace) -> _ModelSearch:
        return _ModelSearch(space, self)


class _ModelSearch(SearchBase):
    def __init__(self, space: TuningSpace, options: ModelGuided) -> None:
        super().__init__(space, options.generation, options.seed)
        self.options = options
        self.ensemble = _sklearn_ensemble()
        self.encoder = _Encoder(space)
        self._listed: list[tuple[str, Config]] | None = None  # (name, config), named once
        self._features: dict[str, list[float]] = {}
        self._reserve: dict[str, Config] = {}  # random unmeasured configs, in draw order
        self._listed_tried = False

    def ask(self) -> list[Config]:
        timed = self.ranked()
        if len(timed) < 2:  # nothing to fit yet: the initial design, or more of it
            return self.random_unseen(self.options.first if not self.results else self.generation)
        pool = self._pool(timed)
        if not pool:
            return []
        chosen = self._by_improvement(pool, timed)
        return self.propose(chosen)

    # -- the candidate pool -------------------------------------------------------------

    def _listed_space(self) -> list[tuple[str, Config]] | None:
        if not self._listed_tried:
            self._listed_tried = True
            trial = random.Random(self.options.seed)
            valid = sum(self.space.random_config(trial, attempts=1) is not None
                        for _ in range(_TRIAL_DRAWS))
            if valid < _VALID_FRACTION_TO_LIST * _TRIAL_DRAWS and len(self.space) <= _LIST_AT_MOST:
                self._listed = [(self.space.name(c), c) for c in self.space]
        return self._listed

    def _pool(self, timed: list[tuple[float, str]]) -> list[Config]:
        """Unmeasured valid configs: the neighbours of the best few, and a reserve of
        random ones kept between asks and topped up to `pool` (drawing the whole pool
        anew each ask would cost more restriction checks than the fit)."""
        seen = self.asked | set(self.results)
        chosen: dict[str, Config] = {}
        for _, name in timed[:self.options.centres]:
            for radius in (1, 2):
                for config in self.space.neighbours(self.space.config(name), radius):
                    key = self.space.name(config)
                    if key not in seen:
                        chosen.setdefault(key, config)
        self._reserve = {n: c for n, c in self._reserve.items() if n not in seen}
        wanted = self.options.pool - len(self._reserve)
        if wanted > 0:
            exclude = seen | set(self._reserve)
            listed = self._listed_space()
            if listed is not None:
                fresh = [c for n, c in listed if n not in exclude]
                drawn = self.rng.sample(fresh, min(wanted, len(fresh)))
            else:
                drawn = self.space.sample(self.rng, wanted, exclude=exclude)
            for config in drawn:
                self._reserve[self.space.name(config)] = config
        for name, config in self._reserve.items():
            chosen.setdefault(name, config)
        return [chosen[name] for name in sorted(chosen)]

    # -- the model ----------------------------------------------------------------------

    def _training(self, timed: list[tuple[float, str]]) -> tuple[list[list[float]], list[float]]:
        worst = math.log(timed[-1][0]) + math.log(2.0)
        rows, targets = [], []
        for name in sorted(self.results):
            if name not in self.space:
                continue
            seconds = self.results[name]
            rows.append(self._encoded(name, self.space.config(name)))
            targets.append(worst if seconds is None else math.log(max(seconds, 1e-12)))
        return rows, targets

    def _by_improvement(self, pool: list[Config], timed: list[tuple[float, str]]) -> list[Config]:
        import numpy as np

        rows, targets = self._training(timed)
        model = self.ensemble.ExtraTreesRegressor(  # type: ignore[attr-defined]
            n_estimators=self.options.trees, min_samples_leaf=1, max_features=0.6,
            random_state=self.rng.randrange(2**31), n_jobs=1)
        model.fit(np.asarray(rows), np.asarray(targets))
        candidates = np.asarray([self._encoded(self.space.name(c), c) for c in pool])
        per_tree = np.stack([tree.predict(candidates) for tree in model.estimators_])
        mean, spread = per_tree.mean(axis=0), per_tree.std(axis=0)
        best = math.log(timed[0][0])
        scores = _expected_improvement(mean, spread, best - self.options.xi)
        order = sorted(range(len(pool)), key=lambda i: (-scores[i], mean[i], i))
        exploring = min(self.options.explore, self.generation - 1)
        chosen = [pool[i] for i in order[:self.generation - exploring]]
        rest = [pool[i] for i in sorted(order[self.generation - exploring:])]
        return chosen + self.rng.sample(rest, min(exploring, len(rest)))


    def _encoded(self, name: str, config: Config) -> list[float]:
        found = self._features.get(name)
        if found is None:
            found = self._features[name] = self.encoder.encode(config)
        return found


def _expected_improvement(mean: object, spread: object, target: float) -> list[float]:
    """E[max(target - y, 0)] for y ~ Normal(mean, spread), per candidate (a candidate
    whose trees all agree scores its plain improvement)."""
    import numpy as np

    mu, sigma = np.asarray(mean), np.asarray(spread)
    gain = target - mu
    safe = np.where(sigma > 1e-12, sigma, 1.0)
    z = gain / safe
    normal_cdf = 0.5 * (1.0 + np.vectorize(math.erf)(z / math.sqrt(2.0)))
    normal_pdf = np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
    improvement = np.where(sigma > 1e-12, gain * normal_cdf + sigma * normal_pdf,
                           np.maximum(gain, 0.0))
    return [float(x) for x in improvement]


class _Encoder:
    """A config as model features: each value's index along its list, and for every pair
    of parameters whose values are all positive numbers, the sum and the difference of
    their log2 values (the product's and the quotient's logarithm: tiles per item,
    items per group, what GEMM times follow)."""

    def __init__(self, space: TuningSpace) -> None:
        self.space = space
        self.numeric = [p for p in space.params if _positive_numbers(space.values(p))]

    def encode(self, config: Config) -> list[float]:
        features = [float(i) for i in self.space.indices(config)]
        logs = [math.log2(float(config[p])) for p in self.numeric]
        for i, a in enumerate(logs):
            for b in logs[i + 1:]:
                features += [a + b, a - b]
        return features


def _positive_numbers(values: Sequence[object]) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0
               and math.isfinite(v) for v in values)
