"""`clmodes fleet devices|warm`: the command around `clmodes.fleet` (Ray, optional).

Works without Ray installed up to the point of running: the verbs import nothing of
Ray, and `clmodes.fleet` raises its one line naming the extra. The text renderers live
here rather than in `render.py` because they are the fleet's alone; like those, they are
pure functions of the `--json` payload.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any

from clmodes import fleet
from clmodes.cli.remote import configure_remote
from clmodes.cli.render import emit


def run_fleet_devices(args: argparse.Namespace) -> int:
    """Every alive node's OpenCL devices, grouped by exact fingerprint."""
    with _ray_chatter_to_stderr():
        found = fleet.devices(args.address)
    groups = fleet.group_by_fingerprint(found)
    payload = {
        "nodes": [entry.as_dict() for entry in found],
        "fingerprints": [
            {"exact": exact, "model": places[0][1].model, "vendor": places[0][1].vendor,
             "device": places[0][1].label, "nodes": [node.name for node, _ in places]}
            for exact, places in sorted(groups.items())
        ],
    }
    emit(args.json, payload, fleet_devices_text)
    return 0


def run_fleet_warm(args: argparse.Namespace) -> int:
    """Warm on every distinct device of the cluster; 0 only when OUT holds every target."""
    configure_remote(args)  # publishing: the merged bundle goes to $CLMODES_REMOTE if signed
    runtime_env = {"working_dir": args.working_dir} if args.working_dir else None
    spread = {"spread": args.spread}
    if args.spread_timeout is not None:
        if not args.spread_timeout > 0:
            raise fleet.FleetError(f"--spread-timeout must be positive, got {args.spread_timeout}")
        spread["spread_timeout_s"] = args.spread_timeout
    with _ray_chatter_to_stderr():
        report = fleet.warm(args.workload, args.out, args.address, args.per,
                            allow_partial=args.allow_partial, force=args.force,
                            runtime_env=runtime_env,
                            progress=None if args.json else sys.stderr, sign=args.sign,
                            **spread)
    emit(args.json, report.as_dict(), fleet_warm_text)
    return report.exit_status


def _ray_chatter_to_stderr() -> contextlib.AbstractContextManager:
    """Ray's driver prints cluster events (a raylet that died) on standard output, even
    with `log_to_driver=False`; standard output is the report's (`--json`) alone."""
    return contextlib.redirect_stdout(sys.stderr)


def fleet_devices_text(payload: dict[str, Any]) -> str:
    lines = [f"{len(payload['nodes'])} node(s), "
             f"{len(payload['fingerprints'])} distinct device(s)"]
    for group in payload["fingerprints"]:
        lines += [f"  {group['device']}", f"    exact: {group['exact']}",
                  f"    nodes: {', '.join(group['nodes'])}"]
    for node in payload["nodes"]:
        if node["error"]:
            lines.append(f"  node {node['name']}: {node['error']}")
    return "\n".join(lines)


def fleet_warm_text(payload: dict[str, Any]) -> str:
    lines = [f"fleet warm {payload['workload']} ({len(payload['targets'])} target(s), "
             f"per {payload['per']}) in {payload['seconds']} s"]
    for t in payload["targets"]:
        tried = f" (tried {', '.join(t['attempts'])})" if len(t["attempts"]) > 1 else ""
        lines += [f"  {t['device']} on {t['node'] or '-'}{tried}",
                  f"    {t['fingerprint']}",
                  f"    status: {t['status']}",
                  f"    {t['kernels_compiled']} kernels compiled, {t['keys_tuned']} keys tuned, "
                  f"{t['seconds']} s"]
    for group in payload.get("groups", []):
        reraced = ", ".join(n["node"] for n in group["nodes"] if n["reraced"]) or "none"
        lines.append(f"  spread over {len(group['nodes'])} nodes ({group['configs']} configs "
                     f"measured; finalists re-raced on {reraced}):")
        for n in group["nodes"]:
            extra = f", took over {n['took_over']} share(s)" if n["took_over"] else ""
            lines.append(f"    {n['node']}: {n['configs']} configs{extra}, {n['status']}")
    if payload["complete"]:
        lines.append(f"wrote {payload['out']}")
    elif payload["written"]:
        lines.append(f"wrote {payload['out']} WITHOUT {len(payload['missing'])} target(s): "
                     + "; ".join(payload["missing"]))
    else:
        lines.append(f"{payload['out']} not written: {len(payload['missing'])} target(s) "
                     "missing (--allow-partial writes what succeeded)")
    return "\n".join(lines)
