"""`clmodes.probe(client)`: a device's sustained memory bandwidth and float32 compute
throughput, measured once per device model, cached in the store, used to score kernels.

Why: a tune result says which candidate is fastest, not whether the fastest is any good.
Scoring a kernel against the device's roofline (`clmodes.roofline_fraction`) needs the
device's peaks. Datasheet peaks are not what a driver sustains, and a CPU runtime has no
datasheet, so they are measured, with the instrument autotuning uses (profiling events,
START..END of each launch's event: device time only, no host overhead).

What is measured, on the client's dedicated stream "clmodes.probe":
- bandwidth, in GB/s (1e9 bytes per second): `read` (each work-item sums `items` float4
  loads strided by the global size, so neighbouring work-items touch neighbouring
  addresses), `write` (stores a constant) and `copy` (its bytes count the load and the
  store, as STREAM does). Each buffer holds 1/64 of global memory, raised to 4x the
  global-memory cache (so data streams from memory, not from cache), within 16..256 MiB
  and the device's largest allocation; filled with 1.0f first. A device whose read of
  that takes over `max_launch_s` (a simulator) is measured over a smaller range.
- compute, in GFLOP/s: 8 independent chains of `x = x * a + b` per work-item (FP_CONTRACT
  on: the compiler fuses each step into one FMA where the hardware has one; the `fma()`
  and `mad()` builtins are avoided, PoCL lowers them to library calls ~30x slower), for
  float, float4 and float8; 2 FLOPs per element per step. 8 work-groups of 256 (or the
  device maximum) per compute unit; the iteration count, a kernel argument, is calibrated
  until a launch takes about `target_launch_s`.

How a figure is timed: one warm-up launch (PoCL generates code at the first enqueue per
local size), then rounds of `samples` launches; a round's statistic is the median of its
device times. Rounds stop when two consecutive medians agree within `tolerance` (5%) —
the device reached a steady state — or after `max_rounds`, or once `budget_s` is spent
(two rounds at least); `stable` records which. The figure is the median of those last two
rounds' samples. Not the fastest sample, as STREAM reports: on PoCL the fastest of a few
dozen launches was seen 2x above the median and above the hardware's peak (timestamps of
a preempted worker thread), while medians of two probes agreed within ~10-20% on a busy
2-core machine. Compute launches are kept short (~2 ms): on a CPU runtime sharing its
cores, 10 ms launches measured half the throughput of 2 ms ones (a preempted worker
stalls the whole launch), and the probe wants the device's peak, not the machine's
current share. Bounded like this a probe takes a few seconds on PoCL with 2 cores.

Modes (docs/contract.md, Modes). A measurement opens `StreamModeOverride(stream, EXECUTE)` on its
stream, covering calibration, warm-up and samples, so a probe measures under
`COMPILE_AND_AUTOTUNE` while every other stream's launches are dropped. Under
`COMPILE_ONLY` a probe that is not cached launches its kernels on that stream *without*
the override: their verdict is QUEUE, so they join the compile queue and build with the
next batch; nothing is measured or cached, and it returns None. A cached result is
returned in every mode (reading it measures nothing). Its kernels go through
`stream.launch`, so they count as obtained (compiled or loaded) like any other.

A probe is **not an autotune key**: `AutotuneStatistics.keys` counts tunable keys
measured, each one a tune entry in the store and in bundles, each a choice among
candidates for one call's shapes. A probe chooses nothing and is per device model, not
per call; counting it would make `keys` disagree with the tune entries, and a CI check
"a warmed workload tunes nothing" (keys == 0) would fail for a workload that refreshes
its probe although every tunable is cached. It shows elsewhere: in the log (INFO), the
store (`clmodes cache info`) and the kernels it obtains.

Cached per device **model** fingerprint (like tune results: peaks are the hardware's,
a driver update rarely moves them), as JSON; `refresh=True` re-measures and replaces.

Layout: `kernels` (the OpenCL sources), `result` (`ProbeResult`, `ProbePolicy`, their
stored form), `cache` (per model, memory and store), `timing` (rounds until stable),
`measurement` (bandwidth and compute figures), `api` (`probe()`). The instrument itself,
gather / build / time by profiling events, is `clmodes.measure`, shared with autotuning.
"""

from clmodes.probing.api import STREAM_NAME, probe
from clmodes.probing.lookup import cached, forget
from clmodes.probing.kernels import COPY, READ, WRITE, compute_kernel
from clmodes.probing.measurement import buffer_bytes
from clmodes.probing.result import PROBE_VERSION, Figure, ProbeError, ProbePolicy, ProbeResult

__all__ = [
    "COPY",
    "Figure",
    "PROBE_VERSION",
    "ProbeError",
    "ProbePolicy",
    "ProbeResult",
    "READ",
    "STREAM_NAME",
    "WRITE",
    "buffer_bytes",
    "cached",
    "compute_kernel",
    "forget",
    "probe",
]
