"""`python -m clmodes.fleet.node_warm MODULE:FUNCTION BUNDLE`: one target's job on a node.

Run by `tasks.warm_target` in a fresh process whose environment names the device
(`CLMODES_DEVICE`) and a fresh store (`CLMODES_CACHE_DIR`), and, in a spread group,
its role there (`CLMODES_FLEET_SPREAD`: it then joins the group's ledger and every tune
is shared, `clmodes.tune.fleet.sharing`). It warms the workload with
`clmodes.warm` (refusing a store in memory: a target must never ship an empty bundle),
exports that store to BUNDLE and prints one JSON line: the device it warmed, what it
compiled and tuned, or the failure's last line (the exception's own `Type: message`).
It dies with the Ray worker that started it (`PR_SET_PDEATHSIG`): a node killed mid-warm
must not leave a job running on.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
import traceback
from typing import Any

from clmodes import settings

PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """Linux only; elsewhere an orphaned job simply finishes and its result is dropped."""
    parent = settings.FLEET_PARENT.get()
    if not sys.platform.startswith("linux") or not parent:
        return
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if str(os.getppid()) != parent:  # the parent died before the call took effect
        os._exit(1)


def failure_line(error: BaseException) -> str:
    """The line a traceback ends with (`ValueError: ...`); of a message of several lines
    (a build log under a build error) the first, which names what failed. clmodes' own
    errors are already written for a person (`cannot import module 'x'`): their message
    alone, as the CLI prints them."""
    from clmodes.errors import ClmodesError

    if isinstance(error, ClmodesError):
        text = str(error).strip() or type(error).__name__
    else:
        text = "".join(traceback.format_exception_only(type(error), error)).strip()
    return text.splitlines()[0] if text else type(error).__name__


def run(workload_name: str, bundle_path: str) -> dict[str, Any]:
    # Imported here: the loader gives one-line errors for a bad MODULE:FUNCTION.
    from clmodes import bundle
    from clmodes.runtime import client
    from clmodes.warming import warm
    from clmodes.workload import load_workload

    workload = load_workload(workload_name)
    device = client().device
    role = settings.FLEET_SPREAD.get()
    spread: dict[str, Any] | None = None
    if role:
        from clmodes.fleet.ledger import joined
        from clmodes.tune.fleet.sharing import installed

        with joined(json.loads(role)) as (hook, join_s), installed(hook):
            statistics = warm(workload, allow_memory=False, sign=False).as_dict()
        spread = {**hook.summary(), "join_s": round(join_s, 3)}
    else:
        statistics = warm(workload, allow_memory=False, sign=False).as_dict()
    bundle.export(bundle_path)
    return {"status": "ok", "device": device.label, "exact": device.fingerprint.exact,
            "model": device.fingerprint.model,
            "kernels_compiled": statistics["compilation"]["compiled"],
            "keys_tuned": statistics["autotune"]["keys"], "spread": spread}


def main(argv: list[str]) -> int:
    _die_with_parent()
    if len(argv) != 2:
        print(json.dumps({"status": "failed", "line": "usage: node_warm MODULE:FUNCTION BUNDLE"}))
        return 2
    try:
        report = run(*argv)
    except BaseException as error:  # noqa: BLE001 - every failure is this target's report
        traceback.print_exc()
        print(json.dumps({"status": "failed", "line": failure_line(error)}))
        return 1
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
