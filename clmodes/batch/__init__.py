"""How queued kernels become program sources (docs/contract.md, Compile queue and batching).

Many units (one source with one set of defines and options each) share one program when
each is preprocessed on its own, as its device's compiler would (`preprocess`, with the
compiler's macros from `predefined`), and its file-scope identifiers are renamed on the
resulting token stream (`tokens`, `symbols`, `rename`). A unit that cannot be proved to
compute the same thing batched builds alone from its own text (`unit`). `program` cuts
a queue into the builds that obtain it.
"""

from clmodes.batch.predefined import CompilerMacros, DeviceTraits
from clmodes.batch.program import Batch, plan
from clmodes.batch.unit import PreparedUnit, Unit, failing_units, prepare

__all__ = [
    "Batch", "CompilerMacros", "DeviceTraits", "PreparedUnit", "Unit", "failing_units",
    "plan", "prepare",
]
