"""`clmodes probe`: the device's peak bandwidth and compute, measured once and cached."""

from __future__ import annotations

import argparse

from clmodes.runtime import client
from clmodes.errors import ClmodesError
from clmodes.probing import cached, probe
from clmodes.cli.devices import select_device
from clmodes.cli.render import emit, probe_text


def run_probe(args: argparse.Namespace) -> int:
    """Report the probe's figures, and whether they were measured now or read back."""
    select_device(args)
    chosen = client(args.device)
    # Asked before probing: afterwards there is always a cached result.
    from_cache = not args.refresh and cached(chosen) is not None
    result = probe(chosen, refresh=args.refresh)
    if result is None:  # only under COMPILE_ONLY, which a command never opens
        raise ClmodesError("the probe measured nothing (process mode COMPILE_ONLY)")
    report = {**result.as_dict(), "from_cache": from_cache,
              "bandwidth_gbps": result.bandwidth_gbps, "compute_gflops": result.compute_gflops}
    emit(args.json, report, probe_text)
    return 0
