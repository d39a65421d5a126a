"""`clmodes tune plot`'s figure stays readable whatever the candidates are called.

The entries are tune records from the real record types, read through `tune.reporting.report` as
the verb reads them; the figure is `clmodes.cli.plot.figure_for`'s, measured as drawn
(`support.plots`). The GEMM space's real tune is in tests/device/test_tune_replay.py."""

from __future__ import annotations

import json

import pytest

from clmodes.records.measurement import CandidateMeasurement, Outcome
from clmodes.records.tune import TuneRecord
from clmodes.store import FORMAT_VERSION, Store, StoreEntries, TuneRow
from clmodes.tune.reporting import report
from support.plots import MAIN_SHARE, MAIN_WIDTH, main_panel, main_shares, texts_outside

pytest.importorskip("matplotlib", reason="the 'plot' extra is not installed")
from clmodes.cli.plot import figure_for  # noqa: E402 - after the extra's check

MODEL = "PoCL | pthread-Intel(R) Xeon(R) Processor | 2CU | host memory | OpenCL 3.0"


def details_of(times: dict[str, float], key: str, space_size: int | None = None) -> dict:
    """One key of `tune show --json` for a record of `times` (the first one wins)."""
    measured = {name: CandidateMeasurement(Outcome.MEASURED, s, (s * 0.98, s, s * 1.05))
                for name, s in times.items()}
    record = TuneRecord(winner=next(iter(times)), measurements=measured,
                        space_size=space_size)
    store = Store(None)
    store.add_entries(StoreEntries([TuneRow(FORMAT_VERSION, MODEL, "t.plot", key, "c" * 16,
                                            json.dumps(record.to_json()))], [], []))
    (entry,) = report.tuned_keys(store)
    return entry.details()


def readable(details: dict) -> tuple[object, str]:
    figure = figure_for(details)
    assert texts_outside(figure) == []
    area, width = main_shares(figure)
    assert area >= MAIN_SHARE and width >= MAIN_WIDTH, (area, width)
    axes, part = main_panel(figure)
    return axes, " ".join(part.get_suptitle().split())


def test_short_names_are_the_tick_labels_and_the_winner_is_marked():
    axes, title = readable(details_of({"TILE=8,WPT=2": 1e-3, "TILE=4,WPT=1": 1.2e-3,
                                       "TILE=16,WPT=1": 2e-3}, '{"n":64}', space_size=6))
    assert [t.get_text() for t in axes.get_yticklabels()] == [
        "TILE=8,WPT=2  (winner)", "TILE=4,WPT=1", "TILE=16,WPT=1"]
    assert f't.plot {{"n":64}} {MODEL} winner TILE=8,WPT=2, median 1 ms' in title


def test_long_names_and_a_long_key_are_keyed_wrapped_and_whole():
    names = [f"hand_written_candidate_number_{i}_with_a_name_nobody_would_fit_on_an_axis"
             for i in range(12)]
    key = json.dumps({f"field_{i}": f"{2 ** i}..{2 ** (i + 1)}" for i in range(14)},
                     separators=(",", ":"))
    details = details_of({name: 1e-4 * (1 + i) for i, name in enumerate(names)}, key)
    figure = figure_for(details)
    axes, title = readable(details)
    assert [t.get_text() for t in axes.get_yticklabels()][:2] == ["c1  (winner)", "c2"]
    assert key in title.replace(" ", "") and f"winner c1 = {names[0]}" in title
    lines = [t.get_text() for t in figure.subfigs[1].texts][0].splitlines()
    assert lines[0] == f"c1   {names[0]}  (winner)" and lines[11] == f"c12  {names[11]}"
