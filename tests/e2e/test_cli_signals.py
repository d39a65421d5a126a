"""Ctrl-C and SIGTERM at any moment of a command's life get one line and 128 + the
signal (issue 55, item 3): during clmodes' and pyopencl's import, before `main()`,
while the verb runs, and while the command ends.

Before, a Ctrl-C during the imports printed a `KeyboardInterrupt` traceback and died by
the signal (12 of 12 `clmodes cache info` at 0.3 s), and a SIGTERM there or at exit
killed the command with no line at all.

The child is the `clmodes` script's own code (`clmodes_start.run`, what the console
script calls). It says "ready" once `clmodes_start.install()` has run: the moments
before that are Python's own start-up (the interpreter and `site`), the same for every
Python program, which no code of clmodes runs in. From "ready" on, the signal lands at
moments spread over the whole command, its imports first.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from support.subprocesses import environment

CHILD = ("import os, sys, clmodes_start; clmodes_start.install(); os.write(1, b'ready\\n'); "
         "sys.argv[1:] = {argv!r}; clmodes_start.run()")
ROUNDS = 8


def start(tmp_path, argv: list[str]) -> tuple[subprocess.Popen, float]:
    child = subprocess.Popen([sys.executable, "-c", CHILD.format(argv=argv)],
                             env=environment(tmp_path), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    assert child.stdout is not None
    assert child.stdout.readline() == b"ready\n"
    return child, time.perf_counter()


def whole_run_s(tmp_path, argv: list[str]) -> float:
    child, began = start(tmp_path, argv)
    child.communicate(timeout=120)
    assert child.returncode == 0
    return time.perf_counter() - began


@pytest.mark.parametrize("argv", [["cache", "info"], ["devices"]], ids=["cache-info", "devices"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_at_any_moment_gets_one_line_and_its_status(tmp_path, argv, signum):
    length = min(whole_run_s(tmp_path, argv) for _ in range(2))  # the first may be colder
    outcomes = []
    for round_ in range(ROUNDS):
        child, began = start(tmp_path, argv)
        delay = length * round_ / (ROUNDS - 1) * 1.1  # the last lands at (or past) its end
        time.sleep(max(0.0, began + delay - time.perf_counter()))
        try:
            os.kill(child.pid, signum)
        except ProcessLookupError:
            pass
        _, stderr = child.communicate(timeout=120)
        text = stderr.decode(errors="replace")
        outcomes.append((round(delay, 3), child.returncode))
        assert "Traceback" not in text, (delay, text)
        assert child.returncode in (0, 128 + signum), (delay, child.returncode, text)
        if child.returncode == 128 + signum:
            lines = [line for line in text.splitlines() if line.startswith("clmodes: ")]
            assert len(lines) == 1, (delay, text)
            word = "interrupted (Ctrl-C)" if signum == signal.SIGINT else "terminated (SIGTERM)"
            assert word in lines[0], (delay, text)
    stopped = sum(1 for _, status in outcomes if status == 128 + signum)
    assert stopped >= ROUNDS // 4, outcomes  # moments inside the command's life (load varies)
