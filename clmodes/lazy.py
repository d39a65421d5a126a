"""Public names a package loads at first use (PEP 562), for what most processes never use.

Why: a warmed process needs neither tuning nor the batch planner (pcpp), yet
`import clmodes` and `clmodes.batch` once loaded both for their public names
(docs/decisions/start-and-launch-floors.md). A package keeps its names, typed for mypy
by a `TYPE_CHECKING` import beside the table, and loads each module on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping


def on_first_use(namespace: MutableMapping[str, object],
                 homes: Mapping[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The package's `__getattr__` and `__dir__`: `homes` maps each lazy name to the module
    that defines it; a name, once loaded, is kept in `namespace` (the package's globals),
    so later reads are plain attribute reads."""
    def load(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {namespace.get('__name__')!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    def listing() -> list[str]:
        return sorted(set(namespace) | set(homes))

    return load, listing
