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
