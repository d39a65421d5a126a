"""A tunable over a small tuning space, for the tests of issue 15 in fresh processes.

Configs: ITEMS (work per item) x WG (work-group size) x BODY, restricted to
ITEMS * WG <= 256; BODY selects one of two kernel sources ("mul" or "add"), so a test
can edit one of them and see exactly the configs that launch it re-measured. A BODY of
"broken" does not compile: it must be dropped with its build log, never fail the tune.
"""

from __future__ import annotations

import json
import os
import time

import numpy as np

import clmodes
from clmodes import Kernel, TuningSpace, Tunable
from clmodes.tune import Budget, Exhaustive
from support.tunables import SOURCE, buffers

BODIES = {
    "mul": SOURCE,
    "add": SOURCE.replace("2.0f * x[i]", "x[i] + x[i]"),
    "broken": SOURCE.replace("2.0f * x[i]", "2.0f * x[i] +"),
}


def space(items=(1, 2, 4, 8), bodies=("mul", "add")) -> TuningSpace:
    return TuningSpace({"ITEMS": list(items), "WG": [16, 32, 64], "BODY": list(bodies)},
                       ["ITEMS * WG <= 256"])


def make(name: str, items=(1, 2, 4, 8), bodies=("mul", "add"), edit: str | None = None,
         generation: int = 4, configs: int | None = None, strategy=None,
         on_launch=None, salt: str | None = None) -> Tunable:
    """`salt`: a comment in every source, so that no kernel this process obtained before
    (another test's) is reused."""
    sources = dict(BODIES)
    if edit is not None:
        sources[edit] = sources[edit].replace("int first", "int  first")  # same math, new text
    if salt is not None:
        sources = {body: f"{text}\n/* {salt} */\n" for body, text in sources.items()}
    pause = float(os.environ.get("SPACED_PAUSE_S", "0"))

    def launch(stream, config, out, x, n):
        if on_launch is not None:
            on_launch(config)
        if pause:
            time.sleep(pause)  # slow enough for a test to kill it mid-tune
        kernel = Kernel(sources[config["BODY"]], "twice",
                        defines={"ITEMS": config["ITEMS"], "WG": config["WG"]})
        items = config["ITEMS"]
        groups = -(-n // (items * config["WG"]))
        return stream.launch(kernel, groups * config["WG"], config["WG"], out.data, x.data, n)

    return Tunable(name, key=lambda out, x, n: {"n": n}, space=space(items, bodies),
                   launch=launch, strategy=strategy or Exhaustive(generation=generation),
                   budget=Budget(configs=configs) if configs else None)


def run(name: str, n: int = 4096, mode: str = "EXECUTE", **options) -> str:
    from support import BuildSpy

    spy = BuildSpy().install()
    stream = clmodes.client().stream()
    out, x = buffers(stream, n)
    tunable = make(name, **options)
    collector = clmodes.StatisticsCollector()
    with clmodes.ProcessModeOverride(clmodes.ProcessMode[mode], collector):
        tunable(stream, out, x, n)
        builds = spy.calls
    key = tunable.tune_key(stream, (out, x, n))
    record = clmodes.default_store().get_tune_json(*key) or {}
    return json.dumps({
        "keys": clmodes.StatisticsReader(collector).statistics().autotune.keys,
        "ok": bool(np.allclose(out.get(), 2 * x.get())) if mode == "EXECUTE" else None,
        "winner": record.get("winner"),
        "measured_here": record.get("measured_here"),
        "measured": sorted(record.get("measurements", {})),
        "dropped": record.get("dropped", {}),
        "space_size": record.get("space_size"),
        "spread": record.get("spread"),
        "builds": builds,
    })
