"""A workload that reads device memory while warm drops its launches: counted, the first
read named once, the count in warm's report."""

import json

from support.subprocesses import run_cli, run_python

FIRST_READ = "reading.py:19"  # `a.get()` in support/reading.py


def test_reads_under_warm_are_counted_and_the_first_named_once(tmp_path):
    out = run_cli(tmp_path, "warm", "support.reading:reads_back", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["reads"] == {"discarded": 8}  # four reads in each of the two passes
    assert out.stderr.count("read device memory") == 1, out.stderr
    assert FIRST_READ in out.stderr and "COMPILE_ONLY" in out.stderr
    text = run_cli(tmp_path, "warm", "support.reading:reads_back")
    assert "reads: the workload read device memory 8 time(s)" in text.stdout


def test_a_shape_driven_workload_reads_nothing_and_reads_run_normally_after(tmp_path):
    out = run_cli(tmp_path, "warm", "support.reading:shapes_only", "--json")
    assert json.loads(out.stdout)["reads"] == {"discarded": 0}
    assert "read device memory" not in out.stderr
    code = ("import json, pyopencl as cl, clmodes; from support import reading\n"
            "original = cl.enqueue_copy\n"
            "stats = clmodes.warm(reading.reads_back)\n"
            "c = clmodes.StatisticsCollector()\n"
            "with clmodes.ProcessModeOverride(clmodes.ProcessMode.EXECUTE, c):\n"
            "    reading.reads_back()\n"
            "print(json.dumps({'warm': stats.reads.discarded, 'execute': "
            "clmodes.StatisticsReader(c).statistics().reads.discarded, "
            "'unhooked': cl.enqueue_copy is original}))")
    report = json.loads(run_python(code, tmp_path).stdout.strip().splitlines()[-1])
    assert report == {"warm": 8, "execute": 0, "unhooked": True}
