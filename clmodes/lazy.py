"""Public names a package loads at first use (PEP 562), for what most processes never use.

Why: a warmed process needs neither tuning nor the batch planner (pcpp), yet
`import clmodes` and `clmodes.batch` once loaded both for their public names
(docs/decisions/start-and-launch-floors.md). A package keeps its names, typed for mypy
by a `TYPE_CHECKING` import beside the table, and loads each module on first use.

A package's public submodules load the same way: `import clmodes; clmodes.tune.Exhaustive()`
is how docs/contract.md writes a strategy, and a submodule nobody imported yet is no
attribute of its package, so the first read of such a name imports it (names starting
with `_` never: `__main__` is the command, and dunder probes are Python's own).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping, MutableMapping


def on_first_use(namespace: MutableMapping[str, object],
                 homes: Mapping[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The package's `__getattr__` and `__dir__`: `homes` maps each lazy name to the module
    that defines it; a name, once loaded, is kept in `namespace` (the package's globals),
    so later reads are plain attribute reads."""
    def load(name: str) -> object:
        home = homes.get(name)
        value = _submodule(str(namespace.get("__name__")), name) if home is None else \
            getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    def listing() -> list[str]:
        return sorted(set(namespace) | set(homes))

    return load, listing


def _submodule(package: str, name: str) -> object:
    """The public submodule `name` of `package`, imported now; AttributeError if none."""
    if not name.startswith("_") and name.isidentifier():
        try:
            found = importlib.util.find_spec(f"{package}.{name}")
        except (ImportError, ValueError):  # `package` is a plain module: no submodules
            found = None
        if found is not None:
            return importlib.import_module(f"{package}.{name}")
    raise AttributeError(f"module {package!r} has no attribute {name!r}")
