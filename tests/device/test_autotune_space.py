"""A Tunable over a TuningSpace on every device: COMPILE_ONLY queues the first
generation and builds nothing; measuring then builds one batch per generation."""

from __future__ import annotations

import numpy as np
import pytest

from clmodes import ProcessMode, ProcessModeOverride, Tunable, TuningSpace
from support import spaced
from support.tunables import buffers, keys, unique


def test_compile_only_then_one_batch_per_generation(stream, collector, build_spy):
    tunable = spaced.make(unique("space"), generation=6)
    out, x = buffers(stream, 1024)
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY, collector):
        tunable(stream, out, x, 1024)
    assert build_spy.calls == 0 and keys(collector) == 0
    assert stream.server.queued() >= 6  # the first generation's kernels (and what ran)
    with ProcessModeOverride(ProcessMode.EXECUTE, collector):
        tunable(stream, out, x, 1024)
        assert build_spy.calls == 4  # 22 configs, 6 a generation: 4 generations
    assert keys(collector) == 1
    np.testing.assert_allclose(out.get(), 2 * x.get())
    assert tunable.winner(stream, out, x, 1024) in {spaced.space().name(c) for c in spaced.space()}


def test_a_space_tunable_is_declared_whole():
    space = TuningSpace({"A": [1, 2]})
    with pytest.raises(ValueError, match="exactly one of candidates= and space="):
        Tunable("t", key=lambda: 0)
    with pytest.raises(ValueError, match="launch="):
        Tunable("t", key=lambda: 0, space=space)
    with pytest.raises(ValueError, match="go with space="):
        Tunable("t", key=lambda: 0, candidates={"a": print}, launch=print)
    with pytest.raises(ValueError, match="at least one valid config"):
        Tunable("t", key=lambda: 0, space=TuningSpace({"A": [1]}, ["A > 1"]), launch=print)
