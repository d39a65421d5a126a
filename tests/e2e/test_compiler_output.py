"""The compiler's output of clmodes' own builds goes to the `clmodes` logger, not to
pyopencl's printed CompilerWarning; a user's own pyopencl build still warns."""

import pytest

import clmodes
from support.subprocesses import last_json, run_python

RUN = """
import json, logging, os, sys, clmodes, pyopencl as cl
from support import tunables
if os.environ.get("TEST_DEBUG_LOG"):
    logging.basicConfig(level=logging.DEBUG, format="%(name)s %(message)s")
c = clmodes.StatisticsCollector()
if os.environ.get("TEST_WARM"):
    stats = clmodes.warm(tunables.workload)
else:
    with clmodes.ProcessModeOverride(clmodes.ProcessMode.EXECUTE, c):
        tunables.workload()
    stats = clmodes.StatisticsReader(c).statistics()
print("clmodes done", file=sys.stderr, flush=True)
own = cl.Program(clmodes.client().context, "__kernel void mine(__global float* a) { a[0] = 1.0f; }")
own.build()
print(json.dumps(stats.as_dict()))
"""


@pytest.mark.skipif(not any("Intel(R) OpenCL" in d.platform_name for d in clmodes.devices()),
                    reason="Intel's CPU runtime (whose compiler writes output) is not here")
def test_builds_and_loads_print_no_compiler_warning_and_a_users_build_still_does(tmp_path):
    built = run_python(RUN, tmp_path, CLMODES_DEVICE="intel", TEST_WARM="1")
    loaded = run_python(RUN, tmp_path, CLMODES_DEVICE="intel", TEST_DEBUG_LOG="1")
    assert last_json(built)["compilation"]["compiled"] > 0
    assert last_json(loaded)["compilation"]["loaded"] > 0
    for out in (built, loaded):
        ours, users = out.stderr.split("clmodes done")
        assert "CompilerWarning" not in ours, ours
        assert "CompilerWarning" in users  # no global filter: pyopencl's own warning stays
    assert "clmodes compiler output of the stored binary of batch" in loaded.stderr
