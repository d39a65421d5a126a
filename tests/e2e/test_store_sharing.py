"""One store shared by processes that open and close it at different moments (docs/store.md,
"Several processes"): a process that closes never takes the writes of one still open,
and after every command and every `close()` the store file is whole on its own.

The trap these guard (`clmodes.store.recovery`): closing any descriptor of the database
file drops all of a process's POSIX locks on it; a check that read the file's header with
`open()` before each write let another process, closing, delete the WAL this one went on
writing into. The suite's older multi-process tests started their processes together
and never saw it."""

import json
import shutil
import sqlite3
import subprocess
import sys

from clmodes.store import FILENAME
from support.subprocesses import environment, last_json, run_cli, run_python

# A process that keeps its store open and writes one probe entry per line it reads.
HOLDER = """
import sys
from clmodes.store import Store
store = Store(sys.argv[1])
for line in sys.stdin:
    name = line.strip()
    store.put_probe(name, {"by": "holder"})
    print("committed", name, flush=True)
"""


def models(directory) -> set[str]:
    """The probe entries a fresh process reads (a fresh connection: what is committed)."""
    out = run_python("import json, sys, sqlite3; c = sqlite3.connect(sys.argv[1]); "
                     "print(json.dumps([m for (m,) in c.execute('SELECT model FROM probe')]))"
                     .replace("sys.argv[1]", repr(str(directory / FILENAME))))
    assert out.returncode == 0, out.stderr
    return set(json.loads(out.stdout))


def test_a_process_that_closes_keeps_the_writes_of_one_still_open(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)], env=environment(),
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    try:
        def write(name: str) -> None:
            holder.stdin.write(name + "\n")
            holder.stdin.flush()
            assert holder.stdout.readline().split() == ["committed", name]

        write("a-before")
        # Another process opens the same store, writes, closes and exits.
        other = run_python("from clmodes.store import Store; import sys; s = Store(sys.argv[1]); "
                           "s.put_probe('b', {'by': 'other'}); s.close()"
                           .replace("sys.argv[1]", repr(str(tmp_path))))
        assert other.returncode == 0, other.stderr
        for name in ("a-after-1", "a-after-2", "a-after-3"):
            write(name)
        # A plain sqlite3 reader meanwhile: no "disk I/O error".
        reader = sqlite3.connect(tmp_path / FILENAME)
        assert reader.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        reader.close()
        assert models(tmp_path) == {"a-before", "b", "a-after-1", "a-after-2", "a-after-3"}
    finally:
        _, err = holder.communicate(timeout=60)  # closes its input: it ends
    assert holder.returncode == 0, err
    assert "Traceback" not in err
    assert models(tmp_path) == {"a-before", "b", "a-after-1", "a-after-2", "a-after-3"}


def test_an_open_process_warms_while_another_came_and_went(tmp_path, runtime):
    """The everyday case: a notebook holds the store, a terminal's warm comes and goes
    (its store closed, as a program's is when it ends), the notebook then warms; while
    the notebook still runs, a fresh process compiles and tunes nothing."""
    code = ("import json, subprocess, sys, clmodes\n"
            "from support import stopping\n"
            "clmodes.default_store().put_probe('notebook', {})\n"  # open, write, keep it open
            "out = subprocess.run([sys.executable, '-c', 'import clmodes; "
            "from support import tunables; clmodes.warm(tunables.workload); "
            "clmodes.default_store().close()'], capture_output=True, text=True)\n"
            "assert out.returncode == 0, out.stderr\n"
            "s = clmodes.warm(stopping.workload)\n"
            "checks = [subprocess.run([sys.executable, '-m', 'clmodes', 'check', w], "
            "capture_output=True, text=True) for w in "
            "('support.stopping:workload', 'support.tunables:workload')]\n"
            "print(json.dumps({'keys': s.autotune.keys, 'checks': "
            "[[c.returncode, c.stdout + c.stderr] for c in checks]}))\n")
    found = last_json(run_python(code, tmp_path, CLMODES_DEVICE=runtime))
    assert found["keys"] == 2
    for status, output in found["checks"]:
        assert status == 0, output


def test_the_store_file_is_whole_on_its_own_after_a_command(tmp_path, runtime):
    """docs/store.md says what to copy: the one file, after a command (or `close()`)."""
    first = run_cli(tmp_path / "made", "warm", "support.stopping:workload", "--json",
                    CLMODES_DEVICE=runtime)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["autotune"]["keys"] == 2
    (tmp_path / "copied").mkdir()
    shutil.copy(tmp_path / "made" / FILENAME, tmp_path / "copied" / FILENAME)  # the file alone
    again = run_cli(tmp_path / "copied", "warm", "support.stopping:workload", "--json",
                    CLMODES_DEVICE=runtime)
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert report["autotune"]["keys"] == 0 and report["compilation"]["compiled"] == 0, report


def test_the_store_file_is_whole_after_close(tmp_path):
    code = ("import sys; from clmodes.store import Store\n"
            "s = Store(sys.argv[1]); keep = Store(sys.argv[1])\n"  # a second connection stays
            "s.put_probe('m', {'x': 1}); s.close()\n"
            "import shutil; shutil.copy(sys.argv[1] + '/store.sqlite3', sys.argv[1] + '/copy')\n"
            "import sqlite3; print(sqlite3.connect(sys.argv[1] + '/copy').execute("
            "'SELECT count(*) FROM probe').fetchone()[0])\n").replace("sys.argv[1]", repr(str(tmp_path)))
    out = run_python(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "1"
