"""Does preparing a unit for a batch pay? The cost rule `plan()` applies before preparing.

Batching a unit saves at most one build's fixed cost (`limits.build_fixed_s`: ~0.2 s on
PoCL, ~50 ms on Intel's CPU runtime); preparing it costs pcpp's pass over its text and
every header it includes, about 15 us per byte on the machine it was measured on (John
the Ripper's ten kernels, 1.15 MB with their headers: 22 s of preparation; pyopencl's
complex header, 40 KB: 0.3-0.6 s). A big unit alone in its kind (its own source, its own
defines) costs seconds to prepare and saves 0.05-0.2 s: John the Ripper's batch took 59 s
on PoCL and 109 s on Intel against 8 and 68 s of plain builds (`ci/bench/
bench_preparation.py`). Such a unit builds alone, from its own text, without being
prepared.

What one preparation serves is counted: the variants of one source share one (its defines
stay symbolic where its directives do not read them: a tunable's hundreds of configs), and
units with equal headers and defines share their include prefix's (CLBlast's kernels
behind `common.opencl`). So a unit's cost is its bytes over the most units sharing either.
The rule errs towards batching: a GPU driver's fixed cost is unknown here and taken large.

`$CLMODES_BATCH_ALL=1` prepares every unit that can batch, whatever it costs (the tests
of batching on real libraries' code use it; so may a runtime whose builds cost more than
`limits` knows).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from clmodes import settings
from clmodes.batch.unit import Unit
from clmodes.includes import included_files

PREPARE_S_PER_BYTE = 15e-6
ALL_ENV = settings.BATCH_ALL.name


def every_unit_batches() -> bool:
    """`$CLMODES_BATCH_ALL` set to 1: no unit is kept from a batch for its cost."""
    return settings.BATCH_ALL.get()


def unit_bytes(unit: Unit) -> int:
    """Its source's bytes and those of every header it may include."""
    _files, size = included_files(unit.source, unit.options, dict(unit.defines))
    return len(unit.source.encode()) + size


def too_costly(units: Iterable[Unit], fixed_s: float) -> dict[str, float]:
    """Per unit key, the estimated preparation seconds of each unit whose preparation
    would cost more than batching it saves (`fixed_s`, one build's fixed cost)."""
    listed = list(units)
    if every_unit_batches():
        return {}
    by_source = Counter(u.source for u in listed)
    by_kind = Counter((u.includes, u.defines, u.options) for u in listed)
    costly: dict[str, float] = {}
    for unit in listed:
        sharing = max(by_source[unit.source], by_kind[(unit.includes, unit.defines, unit.options)])
        cost = PREPARE_S_PER_BYTE * unit_bytes(unit) / sharing
        if cost > fixed_s:
            costly[unit.unit_key] = cost
    return costly
