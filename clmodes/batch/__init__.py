"""How queued kernels become program sources (docs/contract.md, Compile queue and batching).

Many units (one source with one set of defines and options each) share one program when
each is preprocessed on its own, as its device's compiler would (`preprocess`, with the
compiler's macros from `predefined`), and its file-scope identifiers are renamed on the
resulting token stream (`tokens`, `symbols`, `rename`). A unit that cannot be proved to
compute the same thing batched builds alone from its own text (`unit`). `program` cuts
a queue into the builds that obtain it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clmodes.batch.predefined import CompilerMacros, DeviceTraits
    from clmodes.batch.program import Batch, plan
    from clmodes.batch.unit import PreparedUnit, Unit, failing_units, prepare

# Loaded on first use (PEP 562): importing `clmodes.batch.predefined` or `.limits` must not
# load pcpp and the preprocessor, which only a source build needs; a warmed process never
# builds (ci/bench/bench_warm_start.py measures its start).
_HOMES = {
    "CompilerMacros": "predefined", "DeviceTraits": "predefined",
    "Batch": "program", "plan": "program",
    "PreparedUnit": "unit", "Unit": "unit", "failing_units": "unit", "prepare": "unit",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'clmodes.batch' has no attribute {name!r}")
    return getattr(importlib.import_module(f"clmodes.batch.{home}"), name)

__all__ = [
    "Batch", "CompilerMacros", "DeviceTraits", "PreparedUnit", "Unit", "failing_units",
    "plan", "prepare",
]
