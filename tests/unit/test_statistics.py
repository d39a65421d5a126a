import dataclasses

import pytest

import clmodes
from clmodes import ProcessMode, StatisticsReader

SRC = "__kernel void fill(__global int* a, int v) { a[get_global_id(0)] = v; }"


def test_snapshot_is_frozen(collector):
    snapshot = StatisticsReader(collector).statistics()
    with pytest.raises(dataclasses.FrozenInstanceError):
        snapshot.compilation.kernels = 3


def test_reader_opens_nothing(collector):
    StatisticsReader(collector).statistics()
    assert clmodes.process_mode() is ProcessMode.EXECUTE


def test_counts_only_grow(collector):
    with pytest.raises(ValueError):
        collector.add(clmodes.execution.Counter.KERNELS, -1)
