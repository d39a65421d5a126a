"""Probe test helpers: the stability tolerance, CLI and subprocess runners, results."""

import json
import textwrap
from pathlib import Path

import clmodes
from clmodes import Kernel, ProbeResult, Tunable, kernel_variants
from clmodes.probing import Figure
from support.devices import fresh
from support.subprocesses import last_json, run_cli, run_python
from support.tunables import SOURCE, launch_twice

# The CI machines are 2-core CPUs shared with other jobs: two probes back to back agree
# on the headline figures within this fraction there.
TOLERANCE = 0.35


def cli(cache_dir: Path, *args: str) -> dict:
    out = run_cli(cache_dir, "probe", "--json", *args)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def script(cache_dir: Path, code: str) -> dict:
    return last_json(run_python(textwrap.dedent(code), cache_dir))


def agree(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE * max(a, b)


def figures(result: ProbeResult) -> list[Figure]:
    return [*result.bandwidth, *result.compute]


def make_result(model="test | model", bandwidth=(10.0, 8.0, 12.0), compute=(5.0, 40.0)) -> ProbeResult:
    def figure(name, unit, value):
        return Figure(name, unit, value, 1.0, int(value * 1e9), 1024, 256, 4, 10, 2, True, 0.01)

    return ProbeResult(
        device="test device", model=model, exact=model + " | driver 1",
        bandwidth=tuple(figure(n, "GB/s", v) for n, v in zip(("read", "write", "copy"), bandwidth)),
        compute=tuple(figure(n, "GFLOP/s", v) for n, v in zip(("float", "float4"), compute)),
        buffer_bytes=64 << 20, statistic="median", tolerance=0.05, seconds=1.0,
        measured_at=1.0, clmodes=clmodes.__version__,
    )


def cost_tunable(name: str) -> Tunable:
    candidates = kernel_variants(Kernel(fresh(SOURCE), "twice"), launch_twice,
                                 defines={"ITEMS": [1, 4]})
    return Tunable(name, key=lambda out, x, n: {"n": n}, candidates=candidates,
                   cost=lambda out, x, n: (8 * n, 0))  # reads 4 bytes and writes 4 per element
