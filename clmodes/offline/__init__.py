"""Binaries for devices this machine does not have, built offline.

Intel's offline compiler `ocloc` builds OpenCL C for any Intel GPU family without the
GPU. `clmodes warm WORKLOAD --target intel-gpu:FAMILY[,FAMILY...]` warms the workload
here and builds each batch it stored for those families (`targets`); the binaries are
stored and shipped under an offline identity no real device has (`identity`), and a
bundle's import gives them to a real Intel GPU only where they fit (`fit`: its device ID
is of the family, `families`; its driver is the compiler's release or, graded, newer).

Modules: `families` (family -> PCI device IDs), `identity` (the offline exact string),
`fit` (offline identity against a device description: a pure function), `ocloc` (running
the compiler), `binary` (reading what it wrote: container, kernels, GFX core),
`targets` (the warm for targets).

Honest status: these binaries are built offline and have not been loaded on a real
Intel GPU here (no such GPU was at hand); a driver that refuses one costs a miss with one
warning and a build from source (`clmodes.programs.load`).
"""
