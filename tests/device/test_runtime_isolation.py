"""A `Runtime` of its own is isolated: its streams are measured on its own clients
(their contexts, not the process runtime's), its tunes are recorded in its own store,
and `warm(..., runtime=)` persists into that store."""

from __future__ import annotations

import uuid

import numpy as np
import pyopencl.array as cla

import clmodes
from clmodes.measure import measurement_stream
from clmodes.runtime import Runtime
from support.tunables import make_tunable


def test_a_runtime_measures_and_records_in_its_own_context_and_store(client, tmp_path):
    runtime = Runtime(tmp_path / "other")
    own = runtime.client(client.device)
    assert own is not client and own.context.int_ptr != client.context.int_ptr
    stream = own.stream()
    assert measurement_stream(stream).context.int_ptr == own.context.int_ptr
    name = f"isolated.{uuid.uuid4().hex[:8]}"
    x = cla.to_device(stream.queue, np.arange(256, dtype=np.float32))
    out = cla.zeros_like(x)
    make_tunable(name)(stream, out, x, 256)
    np.testing.assert_array_equal(out.get(), 2 * x.get())
    assert [r.tunable for r in runtime.store.tune_rows()] == [name]
    assert name not in {r.tunable for r in clmodes.default_store().tune_rows()}


def test_warm_into_another_runtime_persists_into_its_store(client, tmp_path):
    runtime = Runtime(tmp_path / "warmed")
    stream = runtime.client(client.device).stream()
    kernel = clmodes.Kernel(f"/* {uuid.uuid4().hex} */ __kernel void seven(__global int* o)"
                            " { o[get_global_id(0)] = 7; }", "seven")
    out = cla.zeros(stream.queue, 16, np.int32)
    stats = clmodes.warm(lambda: stream.launch(kernel, 16, None, out.data), runtime=runtime)
    assert stats.compilation.compiled == 1
    assert runtime.store.kernel_batches(client.device.fingerprint.exact, [kernel.key])
    assert not clmodes.default_store().kernel_batches(client.device.fingerprint.exact, [kernel.key])
