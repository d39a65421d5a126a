"""Units continued from a shared include prefix's state (`batch/prefix.py`): a batch of
them still builds, and its compiler log points at each unit's own lines."""

from __future__ import annotations

import re

import pyopencl as cl
import pytest

from clmodes import Kernel
from clmodes.batch import Batch, Unit, prepare
from clmodes.building import BUILD_OPTIONS
from support import fresh, is_oclgrind

PREFIX = "#define PYOPENCL_DEFINE_CDOUBLE\n#include <pyopencl-complex.h>\n\n"
GOOD = PREFIX + """__kernel void good(__global cfloat_t* a)
{
  a[0] = cfloat_mul(a[0], a[1]);
}
"""
BROKEN = PREFIX + """__kernel void broken(__global cfloat_t* a)
{
  a[0] = cfloat_mul(a[0], not_declared_here);
}
"""


def _batch(client, sources: list[tuple[str, str]]) -> tuple[Batch, list[Unit]]:
    salt = fresh("")  # one for all: the later units continue from the first one's prefix
    units = [Unit.of(Kernel(salt + source, name)) for source, name in sources]
    prepared = [prepare(u, client.server.macros_for(u.options)) for u in units]
    assert all(p.batchable for p in prepared), [p.reason for p in prepared]
    return Batch.of(prepared, ()), units


def _build(client, batch: Batch) -> None:
    context = cl.Context([client.device.cl_device])
    program = cl.Program(cl._cl._Program(context, batch.source))
    program.build(options=list(BUILD_OPTIONS), devices=[client.device.cl_device])


def test_a_batch_of_resumed_units_builds(client):
    if "cl_khr_fp64" not in client.device.cl_device.extensions.split():
        pytest.skip("pyopencl-complex.h's cdouble needs fp64")
    batch, _ = _batch(client, [(GOOD, "good"), (GOOD.replace("a[1]", "a[2]"), "good")])
    _build(client, batch)


def test_the_build_log_points_at_the_units_own_line(client):
    if is_oclgrind(client.device):
        pytest.skip("Oclgrind's compiler ignores #line file names")
    if "cl_khr_fp64" not in client.device.cl_device.extensions.split():
        pytest.skip("pyopencl-complex.h's cdouble needs fp64")
    batch, units = _batch(client, [(GOOD, "good"), (BROKEN, "broken")])
    with pytest.raises(cl.Error) as failed:
        _build(client, batch)
    broken = units[1]
    # "clmodes-<key>:7:44: error: ..." (Intel), "error: clmodes-<key>:7:44: ..." (PoCL)
    cited = [m.group(1) for row in str(failed.value).splitlines() if "error" in row
             for m in [re.search(rf"{re.escape(broken.tag)}:(\d+):\d+:", row)] if m]
    line = broken.source.splitlines().index("  a[0] = cfloat_mul(a[0], not_declared_here);") + 1
    assert cited and int(cited[0]) == line, str(failed.value)[-2000:]
