"""How queued kernels become program sources (docs/contract.md, Compile queue and batching).

Many units (one source with one set of defines and options each) share one program when
each is preprocessed on its own, as its device's compiler would (`preprocess`, with the
compiler's macros from `predefined`), and its file-scope identifiers are renamed on the
resulting token stream (`tokens`, `symbols`, `rename`). A unit that cannot be proved to
compute the same thing batched builds alone from its own text (`unit`). `program` cuts
a queue into the builds that obtain it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clmodes.lazy import on_first_use

if TYPE_CHECKING:
    from clmodes.batch.predefined import CompilerMacros, DeviceTraits
    from clmodes.batch.program import Batch, plan
    from clmodes.batch.unit import PreparedUnit, Unit, failing_units, prepare

# Loaded on first use (PEP 562): importing `clmodes.batch.predefined` or `.limits` must not
# load pcpp and the preprocessor, which only a source build needs; a warmed process never
# builds (ci/bench/bench_warm_start.py measures its start).
_HOMES = {
    **dict.fromkeys(("CompilerMacros", "DeviceTraits"), "clmodes.batch.predefined"),
    **dict.fromkeys(("Batch", "plan"), "clmodes.batch.program"),
    **dict.fromkeys(("PreparedUnit", "Unit", "failing_units", "prepare"), "clmodes.batch.unit"),
}

__getattr__, __dir__ = on_first_use(globals(), _HOMES)

__all__ = [
    "Batch", "CompilerMacros", "DeviceTraits", "PreparedUnit", "Unit", "failing_units",
    "plan", "prepare",
]
