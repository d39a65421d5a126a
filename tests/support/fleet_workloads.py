"""Workloads the fleet tests warm on every node (the nodes import them from this tree).

`CLMODES_FLEET_TEST_MARKERS` (set on every node of the test cluster) is a directory the
hanging workload marks, so that the test knows when, and on which node, to kill.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import clmodes
from support import spaced, tunables

HANG_SECONDS = 300
SPACED = "tests.fleet.spaced"
SPACED_OPTIONS = {"configs": 8, "generation": 4}  # two generations of four


TINY = tunables.make_tunable("tests.fleet.tiny")


def small() -> dict:
    """Thirteen kernels and one tuned key (`support.tunables.workload`)."""
    return tunables.workload()


def tiny() -> None:
    """One tuned key (three candidates, one batch build): for the fault tests, where what
    is warmed matters less than how the fleet reports it, on a loaded 2-core machine."""
    stream = clmodes.client().stream()
    out, x = tunables.buffers(stream, 1024)
    TINY(stream, out, x, 1024)


def spaced_space() -> None:
    """One key over a tuning space (`support.spaced`): a budget of 8 configs in
    generations of 4, for the spread tests (each node measures its share)."""
    stream = clmodes.client().stream()
    out, x = tunables.buffers(stream, 4096)
    spaced.make(SPACED, **SPACED_OPTIONS)(stream, out, x, 4096)


def spaced_peer_dies() -> None:
    """`spaced_space`, but the spread group's second node dies (its job exits at once)
    at the first launch of its second generation: its first share is posted, the
    second never is, and the leader must measure it after the deadline."""
    role = json.loads(os.environ.get("CLMODES_FLEET_SPREAD", "{}"))
    seen: set[str] = set()

    def on_launch(config) -> None:
        if clmodes.process_mode() is not clmodes.ProcessMode.COMPILE_AND_AUTOTUNE:
            return
        seen.add(repr(sorted(config.items())))
        if role.get("rank") == 1 and len(seen) > 2:  # 2 configs: its first generation's share
            os._exit(7)

    stream = clmodes.client().stream()
    out, x = tunables.buffers(stream, 4096)
    spaced.make("tests.fleet.spaced.dies", on_launch=on_launch, **SPACED_OPTIONS)(
        stream, out, x, 4096)


def gemm_space() -> None:
    """One 256x256x256 float32 GEMM key over `kernels_cl`'s GEMM space (local search,
    generations of 8, 16 configs): the spread benchmark's workload
    (`ci/bench/bench_fleet.py --spread`), where measuring is most of the warm."""
    import numpy as np
    import pyopencl.array as cla

    import kernels_cl

    os.environ["KERNELS_CL_MATMUL"] = "space"
    stream = clmodes.client().stream()
    rng = np.random.default_rng(0)
    a, b = (cla.to_device(stream.queue, rng.random((256, 256), dtype=np.float32))
            for _ in range(2))
    kernels_cl.matmul(stream, a, b)


def _on_intel() -> bool:
    return clmodes.client().device.fingerprint.vendor == "Intel"


def raises_on_intel() -> None:
    if _on_intel():
        raise RuntimeError("refused on Intel on purpose")
    tiny()


def hangs_on_intel_once() -> None:
    """On Intel, the first time in a run: mark `<markers>/<node>` and wait to be killed.
    A later attempt (the retry, on another node) finds a mark and warms as usual."""
    markers = Path(os.environ["CLMODES_FLEET_TEST_MARKERS"])
    if _on_intel() and not any(markers.iterdir()):
        (markers / os.environ["CLMODES_FLEET_TEST_NODE"]).write_text(str(os.getpid()))
        time.sleep(HANG_SECONDS)
        raise RuntimeError("was not killed")
    tiny()
