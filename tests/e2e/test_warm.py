"""Warm start: program binaries in the store, clmodes.warm(), progress."""

import io
import sqlite3


from clmodes.store import FILENAME, Store
from support.subprocesses import RUN_WORKLOAD, last_json, run_python

WARM = ("import json, clmodes; from support import tunables; "
        "print(json.dumps(clmodes.warm(tunables.{}).as_dict()))")


def test_warmed_workload_starts_warm_in_a_fresh_process(tmp_path):
    warmed = last_json(run_python(WARM.format("workload"), tmp_path))
    assert warmed["compilation"]["builds"] == 1  # one batch for every kernel and candidate
    assert warmed["compilation"]["compiled"] >= 15
    assert warmed["autotune"]["keys"] == 1
    run = last_json(run_python(RUN_WORKLOAD, tmp_path))
    assert run["demo_ok"] and run["tuned_ok"]
    assert run["compilation"]["compiled"] == 0 and run["compilation"]["builds"] == 0
    assert run["compilation"]["loaded"] == run["compilation"]["kernels"] == 13
    assert run["autotune"]["keys"] == 0
    assert run["source_builds"] == 0
    # The store holds the winner, not the two losing candidates it was built with.
    connection = sqlite3.connect(tmp_path / FILENAME)
    names = [name for (name,) in connection.execute("SELECT name FROM kernels")]
    assert len(names) == 13 and names.count("twice") == 1


def test_refused_binary_is_rebuilt_from_source(tmp_path):
    last_json(run_python(WARM.format("workload"), tmp_path))
    connection = sqlite3.connect(tmp_path / FILENAME)
    with connection:
        connection.execute("UPDATE binaries SET binary = substr(binary, 1, length(binary) / 2)")
    connection.close()
    out = run_python(RUN_WORKLOAD, tmp_path)
    run = last_json(out)
    assert "fails its checksum" in out.stderr
    assert run["demo_ok"] and run["tuned_ok"]
    assert run["compilation"]["loaded"] == 0 and run["compilation"]["compiled"] == 13
    assert run["autotune"]["keys"] == 0  # tune results survive a lost binary


def test_a_workload_raising_its_own_exception_keeps_what_it_gathered(tmp_path):
    """An ordinary exception of the workload in a discarding pass (its own check of values
    the dropped launches never computed, most often) is reported, not raised: everything
    launched before it is compiled, tuned and persisted."""
    warmed = last_json(run_python(WARM.format("failing_workload"), tmp_path))
    error = warmed["workload_error"]
    assert (error["type"], error["message"], error["phase"]) == (
        "ValueError", "the workload failed on purpose", "gathering")
    assert error["where"].endswith("tunables.py:85"), error
    assert warmed["autotune"]["keys"] == 1 and warmed["compilation"]["compiled"] >= 15
    run = last_json(run_python(RUN_WORKLOAD, tmp_path))
    assert run["compilation"]["compiled"] == 0 and run["autotune"]["keys"] == 0


def test_a_workload_that_exits_leaves_the_store_untouched(tmp_path):
    """A `BaseException` that is not an `Exception` (here `SystemExit`; Ctrl-C and SIGTERM
    in test_interrupted_warm.py) stops the warm all or nothing, as before."""
    out = run_python(WARM.format("exiting_workload"), tmp_path)
    assert out.returncode == 1 and "the workload exited on purpose" in out.stderr
    store = Store(tmp_path)
    assert store.count("tune") == 0 and store.count("binaries") == 0 and store.count("kernels") == 0


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


