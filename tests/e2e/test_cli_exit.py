"""The command's process ends with the status it decided, after what a normal exit does
that anyone relies on (`clmodes/cli/exiting.py`): a workload's non-daemon threads are
waited for, its `atexit` handlers run, and what it printed reaches the reader."""

from __future__ import annotations

import json
from pathlib import Path

from support.subprocesses import run_cli

WORKLOAD = '''
import atexit, os, threading, time
from pathlib import Path
from support import checked

OUT = Path(os.environ["EXIT_TEST_DIR"])

def _late():
    time.sleep(0.3)
    (OUT / "thread").write_text("joined")

def workload():
    atexit.register(lambda: (OUT / "atexit").write_text("ran"))
    threading.Thread(target=_late, daemon=False).start()
    checked.workload()
'''


def _workload(tmp_path: Path) -> Path:
    (tmp_path / "exit_hooks.py").write_text(WORKLOAD)
    return tmp_path


def test_a_workloads_threads_and_atexit_handlers_finish_before_the_command_exits(
        tmp_path, monkeypatch):
    here = _workload(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(here))  # run_cli puts tests/ before it
    out = run_cli(tmp_path / "store", "warm", "exit_hooks:workload", "--json",
                  EXIT_TEST_DIR=str(here))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["workload"] == "exit_hooks:workload"
    assert (here / "atexit").read_text() == "ran"
    assert (here / "thread").read_text() == "joined"


def test_the_status_is_the_one_the_command_decided(tmp_path):
    out = run_cli(tmp_path, "warm", "no_such_module_here:workload")
    assert out.returncode == 2
    assert out.stderr.startswith("clmodes: ") and "Traceback" not in out.stderr
