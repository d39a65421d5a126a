"""Roofline scoring of a tune record: each measured candidate's fraction of the device's
peak, from the tunable's cost function and a cached throughput probe.

Never measured from here: a probe costs seconds, and a tune that happens to run before
one is cached simply records no roofline."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from clmodes.device import Device
from clmodes.probing.lookup import cached as cached_probe
from clmodes.roofline import roofline_fraction
from clmodes.records.tune import Cost as RecordCost, TuneRecord

log = logging.getLogger("clmodes")

Cost = Callable[..., tuple[float, float]]  # cost(*args) -> (bytes moved, FLOPs) of one call


def score(entry: TuneRecord, device: Device, cost: Cost, args: tuple[object, ...],
          described: str) -> TuneRecord:
    """`entry` with each measured candidate's roofline fraction, when a probe is cached
    (else `entry` as it is)."""
    probed = cached_probe(device)
    if probed is None:
        log.debug("%s: no probe cached for %s; no roofline recorded", described, device.label)
        return entry
    try:
        moved, flops = (float(v) for v in cost(*args))
        fractions = {
            name: roofline_fraction(probed, measured.median_s, moved, flops)
            for name, measured in entry.measurements.items() if measured.median_s is not None
        }
    except Exception as error:  # noqa: BLE001 - a scoring problem never fails a tune
        log.warning("%s: cost function failed (%s); no roofline recorded", described, error)
        return entry
    measurements = {name: dataclasses.replace(measured, roofline=fractions[name])
                    for name, measured in entry.measurements.items()}
    return dataclasses.replace(
        entry, measurements=measurements, roofline=fractions[entry.winner],
        cost=RecordCost(moved, flops, probed.bandwidth_gbps, probed.compute_gflops))
