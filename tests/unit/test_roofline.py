"""The throughput probe (`clmodes.probe`) and roofline scoring, on real OpenCL (PoCL in CI).

Tolerance: the CI machines are 2-core CPUs shared with other jobs. Two probes run back to
back agree on the headline figures (best bandwidth, best compute) within 35% there; a
probe that lands while another process holds one of the two cores can read half, so the
stability check allows a third run and asserts that two of the three agree.
"""


import pytest

from clmodes import (
    roofline_fraction,
)
from clmodes.roofline import attainable_gflops
from support.probes import make_result



# -- measuring ---------------------------------------------------------------------------


# -- the store ---------------------------------------------------------------------------


# -- scoring -----------------------------------------------------------------------------


def test_roofline_fraction_arithmetic():
    result = make_result(bandwidth=(10.0, 8.0, 12.0), compute=(5.0, 40.0))
    assert result.bandwidth_gbps == 12.0 and result.compute_gflops == 40.0
    assert result.ridge_intensity == pytest.approx(40 / 12)
    # Memory-bound: 12 GB at 12 GB/s takes 1 s at best; 2 s achieved is half the roofline.
    assert roofline_fraction(result, 2.0, 12e9, 0) == pytest.approx(0.5)
    # Compute-bound: 40 GFLOP at 40 GFLOP/s is 1 s at best.
    assert roofline_fraction(result, 4.0, 0, 40e9) == pytest.approx(0.25)
    # Intensity 1 FLOP/byte: roofline min(12 * 1, 40) = 12 GFLOP/s; 6 GFLOP/s achieved.
    assert attainable_gflops(result, 1.0) == 12.0
    assert roofline_fraction(result, 1.0, 6e9, 6e9) == pytest.approx(0.5)
    # Intensity 80: roofline is the compute ceiling, 40 GFLOP/s; 20 achieved.
    assert attainable_gflops(result, 80.0) == 40.0
    assert roofline_fraction(result, 4.0, 1e9, 80e9) == pytest.approx(0.5)
    # Faster than the measured peaks (a cache, an overstated byte count): reported, not clipped.
    assert roofline_fraction(result, 0.5, 12e9, 0) == pytest.approx(2.0)
    for bad in [(0.0, 1e9, 1e9), (-1.0, 1e9, 1e9), (1.0, 0, 0), (1.0, -5, 1)]:
        with pytest.raises(ValueError):
            roofline_fraction(result, *bad)


