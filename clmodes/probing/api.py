"""`probe()`: a device's peaks, cached, else measured and cached (see `clmodes.probing`).

Why the modes matter here: a cached result is returned in every mode (reading it
measures nothing); under COMPILE_ONLY an uncached probe only queues its kernels, so they
build with the workload's next batch, and returns None.
"""

from __future__ import annotations

import logging

from clmodes.execution import ProcessMode, process_mode
from clmodes.probing.lookup import cached, resolve_client
from clmodes.runtime import default_runtime
from clmodes.probing.kernels import launch_small
from clmodes.probing.measurement import measure_result
from clmodes.probing.result import ProbePolicy, ProbeResult

log = logging.getLogger("clmodes")

STREAM_NAME = "clmodes.probe"


def probe(
    client: object = None, *, refresh: bool = False, policy: ProbePolicy | None = None
) -> ProbeResult | None:
    """The device's peak bandwidth and compute: cached, else measured and cached.

    `client`: a `Client`, or what `clmodes.client()` takes (default: the default device).
    `refresh=True` measures again and replaces the cached result. Under `COMPILE_ONLY`
    an uncached probe only queues its kernels and returns None (see the package notes).
    """
    chosen = resolve_client(client)
    policy = policy or ProbePolicy()
    if not refresh:
        found = cached(chosen)
        if found is not None:
            return found
    stream = chosen.stream(STREAM_NAME)
    if process_mode() is ProcessMode.COMPILE_ONLY:
        launch_small(stream, policy.widths)  # the stream's own verdict: QUEUE
        log.info("probe of %s: kernels queued (COMPILE_ONLY); nothing measured",
                 chosen.device.label)
        return None
    model = chosen.device.fingerprint.model
    probes = default_runtime().probes
    with probes.model_lock(model):
        found = None if refresh else probes.in_memory(model)
        if found is not None:  # measured by another thread meanwhile
            return found
        result = measure_result(stream, policy)
        probes.remember(model, result)
    log.info(
        "probed %s in %.2f s: read %.3g, write %.3g, copy %.3g GB/s; %s GFLOP/s",
        result.device, result.seconds, result.read_gbps, result.write_gbps, result.copy_gbps,
        ", ".join(f"{f.name} {f.value:.3g}" for f in result.compute),
    )
    return result
