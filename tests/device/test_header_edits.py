"""A header edited while a process runs: the next `Kernel` made is another kernel, built
from the new text, whether it batches or builds alone (issue 24, item 1)."""

from __future__ import annotations

import os

import numpy as np
import pyopencl.array as cla
import pytest

from clmodes import Kernel, ProcessMode, ProcessModeOverride
from support import fresh
from support.headers import ALONE, FILL

_OLD = 1_000_000_000  # a settled stamp: the first text is cached, as a real header would be
# Queued with the kernel under test, so that a batchable one is built in a real batch
# (from its preprocessed text; a batch of one unit builds the unit's own text).
COMPANION = "__kernel void companion(__global float* out) { out[get_global_id(0)] = 7.0f; }"


@pytest.mark.parametrize("source,name,offset", [(FILL, "fill", 0.0), (ALONE, "fill_alone", 10.0)],
                         ids=["batched", "alone"])
def test_a_header_edited_during_the_process_is_built_anew(stream, collector, tmp_path,
                                                          source, name, offset):
    header = tmp_path / "val.h"
    source, options = fresh(source), ["-I", str(tmp_path)]
    out = cla.zeros(stream.queue, 4, np.float32)
    for stamp, value in [(_OLD, 1.0), (_OLD + 1, 2.0)]:
        header.write_text(f"#define VAL {value}f\n")  # the same size: only the stamp moves
        os.utime(header, (stamp, stamp))
        kernel = Kernel(source, name, options=options)
        companion = Kernel(fresh(COMPANION), "companion")
        with ProcessModeOverride(ProcessMode.COMPILE_ONLY, collector):
            for queued in (kernel, companion):
                stream.launch(queued, (4,), None, out.data)
        stream.launch(kernel, (4,), None, out.data)
        assert float(out.get()[0]) == value + offset
