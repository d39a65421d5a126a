"""What the command writes besides its report: logs (-v/-q, $CLMODES_LOG) and progress.

Standard output is the report (JSON with `--json`); logs and the progress line go to
standard error, the progress line only when it is a terminal (a pseudo-terminal here)."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys

import pytest

from support.subprocesses import environment, require_runtime, run_cli

WORKLOAD = "support.tunables:workload"  # 15 kernels, one tuned key


def test_verbose_logs_the_tune_at_info_and_keeps_stdout_json(tmp_path):
    out = run_cli(tmp_path, "warm", WORKLOAD, "-v", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["autotune"]["keys"] == 1
    info = [line for line in out.stderr.splitlines() if line.startswith("clmodes INFO: ")]
    assert any("tuned on" in line for line in info), out.stderr
    assert not any(" DEBUG: " in line for line in out.stderr.splitlines())


def test_the_environment_sets_the_level_and_quiet_lowers_it(tmp_path):
    debug = run_cli(tmp_path / "a", "warm", WORKLOAD, "--json", CLMODES_LOG="debug")
    assert debug.returncode == 0 and "clmodes DEBUG: " in debug.stderr
    quiet = run_cli(tmp_path / "b", "-q", "warm", WORKLOAD, "--json", CLMODES_LOG="info")
    assert quiet.returncode == 0 and quiet.stderr == ""
    bad = run_cli(tmp_path / "c", "devices", CLMODES_LOG="loud")
    assert bad.returncode == 2 and bad.stderr.strip().splitlines() == [
        "clmodes: $CLMODES_LOG must be one of debug, info, warning, error, critical; got 'loud'"]


def _run_on_a_terminal(args: list[str], env: dict[str, str]) -> tuple[str, str, int]:
    """Run with standard error on a pseudo-terminal; (stdout, what the terminal got, rc)."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=terminal, env=env)
    os.close(terminal)
    seen = b""
    while True:
        ready, _, _ = select.select([controller], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # the other end closed: the process is gone
                break
            if not chunk:
                break
            seen += chunk
        elif process.poll() is not None:
            break
    stdout = process.stdout.read().decode()
    os.close(controller)
    return stdout, seen.decode(errors="replace"), process.wait(timeout=600)


def test_progress_shows_keys_done_of_found_on_a_terminal_only(tmp_path):
    args = [sys.executable, "-m", "clmodes", "warm", WORKLOAD, "--json"]
    stdout, shown, status = _run_on_a_terminal(args, environment(tmp_path))
    assert status == 0, shown
    assert json.loads(stdout)["autotune"]["keys"] == 1  # nothing of the progress in it
    last = shown.strip().split("\r")[-1].replace("\x1b[K", "")
    assert "clmodes warm" in last and "1 of 1 keys tuned" in last, shown
    assert "15 of 15 kernels obtained" in last and last.endswith(" s")
    quiet, shown, status = _run_on_a_terminal([*args, "-q"], environment(tmp_path / "q"))
    assert status == 0 and shown == "" and json.loads(quiet)["autotune"]["keys"] == 1


def test_compiler_output_goes_on_its_own_line_above_the_progress_line(tmp_path):
    """C code writes to file descriptor 2 while the progress line is shown without a
    newline: the text must land on a line of its own, never at the end of (or inside) a
    progress line (`clmodes.shared_terminal`). PoCL's clang's "1 warning generated." is
    not shown at all: clmodes' builds log it (`clmodes.compiler_output`)."""
    pocl = require_runtime("Portable Computing Language")
    args = [sys.executable, "-m", "clmodes", "warm", "support.asserting:chatty_on_a_terminal"]
    # PoCL's own kernel cache would skip the compiler (and its warning) on a rerun.
    env = environment(tmp_path, CLMODES_DEVICE=pocl, POCL_KERNEL_CACHE="0")
    _, shown, status = _run_on_a_terminal(args, env)
    assert status == 0, shown
    lines = shown.replace("\r\n", "\n").split("\n")
    pieces = [piece.replace("\x1b[K", "").strip() for line in lines for piece in line.split("\r")]
    assert "a line written to descriptor 2" in pieces, shown  # whole, on its own
    assert any(piece.startswith("clmodes warm [") for piece in pieces), shown  # progress drawn
    assert not any("clmodes warm" in piece and "descriptor 2" in piece for piece in pieces), shown
    assert "generated." not in shown, shown
    assert lines[-1] == "" and lines[-2].rsplit("\r", 1)[-1].replace("\x1b[K", "").startswith(
        "clmodes warm [persisting]"), shown  # the last progress line ends the output


@pytest.mark.parametrize("verb", [["cache", "info"], ["devices"], ["tune", "list"], ["--help"]])
def test_a_reader_that_leaves_early_ends_the_command_quietly(tmp_path, verb):
    proc = subprocess.Popen([sys.executable, "-m", "clmodes", *verb], env=environment(tmp_path),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.close()  # `| head` gone before the command writes
    _, stderr = proc.communicate(timeout=120)
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr
    assert proc.returncode in (0, 141)


def test_tune_list_fits_the_terminal_and_a_pipe_gets_every_value_whole(tmp_path):
    from clmodes.store import Store

    key, winner = "k" * 150, "w" * 90
    Store(tmp_path).put_tune_json("model-x", "a_rather_long_tunable_name", key, "c", {"winner": winner})
    narrow = run_cli(tmp_path, "tune", "list", COLUMNS="100")
    assert narrow.returncode == 0, narrow.stderr
    rows = narrow.stdout.splitlines()[2:]
    assert rows and all(len(line) <= 100 for line in rows), rows
    assert "…" in rows[1] and key not in narrow.stdout
    whole = run_cli(tmp_path, "tune", "list", COLUMNS="")
    assert key in whole.stdout and winner in whole.stdout
