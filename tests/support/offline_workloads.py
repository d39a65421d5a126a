"""Workloads for the offline-build tests: every kernel of kernels_cl's workloads in one
warm (one local warm, one `ocloc` pass), as `clmodes warm support.offline_workloads:both`.
Tunes race with few samples (correctness is tested elsewhere; here only which batches
exist matters)."""

import clmodes
import kernels_cl
from kernels_cl.workloads import attention, mlp


def both() -> None:
    kernels_cl.set_race_policy(clmodes.RacePolicy(warmup=1, first_samples=2, total_samples=3))
    mlp()
    attention()
