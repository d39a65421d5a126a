"""A tunable whose kernels a test edits between processes (stale winners, issue 13).

`run(...)` is called in a fresh process: it builds the tunable from the given variant of
its sources, calls it once and reports what was measured, from the tune record.
"""

from __future__ import annotations

import json

import numpy as np

import clmodes
from clmodes import Kernel, Tunable, kernel_variants
from support.tunables import SOURCE, buffers, launch_twice

# A kernel body edit that changes nothing numerically but is a different kernel.
EDITED = SOURCE.replace("2.0f * x[i]", "x[i] + x[i]")
OTHER = """
__kernel void plain(__global float* out, __global const float* x, int n)
{
    int i = get_global_id(0);
    if (i < n) out[i] = BODY;
}
"""


def make(name: str, edit_all: bool = False, edit_plain: bool = False,
         extra: bool = False) -> Tunable:
    candidates = kernel_variants(Kernel(EDITED if edit_all else SOURCE, "twice"), launch_twice,
                                 defines={"ITEMS": [1, 4]})
    plain = Kernel(OTHER.replace("BODY", "x[i] * 2.0f" if edit_plain else "2.0f * x[i]"), "plain")
    candidates["plain"] = lambda stream, out, x, n: stream.launch(plain, n, None, out.data, x.data, n)
    if extra:
        candidates["ITEMS=16"] = kernel_variants(Kernel(SOURCE, "twice"), launch_twice,
                                                 defines={"ITEMS": [16]})["ITEMS=16"]
    return Tunable(name, key=lambda out, x, n: {"n": n}, candidates=candidates)


def run(name: str, n: int = 2048, **edits: bool) -> str:
    stream = clmodes.client().stream()
    out, x = buffers(stream, n)
    tunable = make(name, **edits)
    collector = clmodes.StatisticsCollector()
    with clmodes.ProcessModeOverride(clmodes.ProcessMode.EXECUTE, collector):
        tunable(stream, out, x, n)
    key = tunable.tune_key(stream, (out, x, n))
    record = clmodes.default_store().get_tune_json(*key) or {}
    return json.dumps({
        "keys": clmodes.StatisticsReader(collector).statistics().autotune.keys,
        "ok": bool(np.allclose(out.get(), 2 * x.get())),
        "winner": tunable.winner(stream, out, x, n),
        "measured_here": record.get("measured_here"),
        "identities": record.get("identities"),
        "key": list(key),
    })
