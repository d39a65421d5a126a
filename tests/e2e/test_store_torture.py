"""A few rounds of several processes opening, tuning, warming, reading, pruning,
exporting, importing and closing one store, some stopped by SIGKILL, SIGINT or SIGTERM
at random moments (`support.torture`; `ci/torture_store.py` runs several hundred):
every write a process reported committed is there for a fresh process, the file passes
`PRAGMA integrity_check`, and a final warm then `clmodes check` pass with results
checked. On the code before the store kept SQLite's locks, round 0 lost 12 committed
decisions."""

from support.torture import torture


def test_processes_stopped_at_random_moments_lose_nothing_committed(tmp_path, runtime):
    lines: list[str] = []
    problems = torture(tmp_path, rounds=4, seed=3, device=runtime, report=lines.append)
    assert not problems, "\n".join(lines + problems[:10])


def test_a_full_disk_and_signals_at_start_up_lose_nothing_and_lie_about_nothing(tmp_path, runtime):
    """Issue 55: the torture with the store on a small file system of its own, full for
    a moment in some rounds, and a `clmodes` command stopped by Ctrl-C or SIGTERM from its
    first line on (`ci/torture_store.py --full-disk`; 30+ rounds are its own run)."""
    import subprocess
    import sys
    from pathlib import Path

    import pytest

    script = Path(__file__).resolve().parents[2] / "ci" / "torture_store.py"
    probe = subprocess.run(["unshare", "--mount", "sh", "-c", 'mount -t tmpfs tmpfs "$0"',
                            str(tmp_path)], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {probe.stderr.decode().strip()}")
    out = subprocess.run([sys.executable, str(script), "--rounds", "3", "--seed", "21",
                          "--device", runtime, "--full-disk", "--store", str(tmp_path)],
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
