"""docs/contract.md, Persistence: the SQLite store of tune results."""

import uuid


import clmodes
from support import fresh
from support.tunables import SOURCE, buffers, make_tunable


def test_changed_candidate_set_retunes_that_key_alone(stream, collector, tmp_path):
    name = f"changed-{uuid.uuid4().hex[:8]}"
    source = fresh(SOURCE)
    out, x = buffers(stream)
    with clmodes.ProcessModeOverride(clmodes.ProcessMode.EXECUTE, collector):
        make_tunable(name, source)(stream, out, x, 4096)
        make_tunable(name, source)(stream, out, x, 4096)  # same candidates: hit
        grown = make_tunable(name, source, defines={"ITEMS": [1, 4, 16, 32]})
        grown(stream, out, x, 4096)
    reader = clmodes.StatisticsReader(collector)
    assert reader.statistics().autotune.keys == 2
    rows = clmodes.default_store().query("SELECT candidates FROM tune WHERE tunable=?", (name,))
    assert len({r[0] for r in rows}) == 2


