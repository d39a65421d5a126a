"""Search strategies over a `TuningSpace`, as ask/tell: the tuner asks for a generation,
builds its kernels in one batch, measures them and tells the times back.

    search = strategy.start(space)
    search.tell(already_measured)          # optional: a resumed tune
    while generation := search.ask():      # [] once the strategy is done
        search.tell({space.name(c): seconds_or_None for c in generation})

Rules every strategy keeps (tests/unit/test_strategies.py):
- `ask` proposes only valid configs that were never told nor asked before, so a resumed
  tune never measures a config twice; results told before the first `ask` are used (a
  local search starts from the best of them);
- given its seed and the results told, what it proposes is determined (its own
  `random.Random(seed)`, never the global one, no set or dict iteration over hashes);
- `None` is a config that failed to build or run: never proposed again, never a parent.

Budgets are not the strategies' business (`clmodes.tune.search.budget`): the tuner trims.

Measured (ci/bench/bench_strategies.py, the GEMM space, smooth, rugged and noisy
synthetic objectives, 100 seeds): at 32-128 configs `LocalSearch` finds configs closer to
the best than `RandomSample` and `Genetic` (tied with a 16-config genetic generation only
at 128 noisy configs); it is the default (`DEFAULT_STRATEGY`). `ModelGuided` (a surrogate
model; the `search` extra) stays an option: on a recorded GEMM subspace it needed more
measurements than `LocalSearch` to reach 1.05 of the best
(docs/decisions/model-guided-search.md).
"""

from typing import TYPE_CHECKING

from clmodes import lazy as _lazy
from clmodes.tune.search.strategies.base import DEFAULT_GENERATION, Results, Search, SearchBase, Strategy
from clmodes.tune.search.strategies.local_search import LocalSearch

if TYPE_CHECKING:
    from clmodes.tune.search.strategies.exhaustive import Exhaustive
    from clmodes.tune.search.strategies.genetic import Genetic
    from clmodes.tune.search.strategies.model_guided import ModelGuided
    from clmodes.tune.search.strategies.random_sample import RandomSample
    from clmodes.tune.search.strategies.running import run_search

DEFAULT_STRATEGY = LocalSearch

# The other strategies load at first use (`clmodes.lazy`): a process that names none of
# them (every process on the default, a warmed one above all) never pays their import.
_LAZY = {
    "Exhaustive": "clmodes.tune.search.strategies.exhaustive",
    "Genetic": "clmodes.tune.search.strategies.genetic",
    "ModelGuided": "clmodes.tune.search.strategies.model_guided",
    "RandomSample": "clmodes.tune.search.strategies.random_sample",
    "run_search": "clmodes.tune.search.strategies.running",
}
__getattr__, __dir__ = _lazy.on_first_use(globals(), _LAZY)

__all__ = ["DEFAULT_GENERATION", "DEFAULT_STRATEGY", "Exhaustive", "Genetic", "LocalSearch",
           "ModelGuided", "RandomSample", "Results", "Search", "SearchBase", "Strategy", "run_search"]
