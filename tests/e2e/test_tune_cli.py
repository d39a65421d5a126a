"""`clmodes tune list|show|plot|forget` on a store warmed by the kernels_cl MLP, per device.

One warm per device (module-scoped, small sizes through the workload's environment
variables); every verb then runs as a user runs it, in a fresh process, and its `--json`
is checked against the schemas in `support.schemas`. The verbs that change the store
(`forget`) work on a copy, so that the order of the tests does not matter.
"""

from __future__ import annotations

import dataclasses
import json
import platform
import sqlite3
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

import clmodes
from support import device_id, is_oclgrind, test_devices
from support.schemas import TUNE_FORGET, TUNE_LIST, TUNE_PLOT, TUNE_SHOW, check
from support.subprocesses import run_cli, run_python

# The hand-written matmul candidates: every verb's table is checked against their names
# (the GEMM space's records are checked in test_tuning_spaces and kernels_cl's tests).
SMALL = {"KERNELS_CL_BATCH": "8", "KERNELS_CL_HIDDEN": "16", "KERNELS_CL_CLASSES": "5",
         "KERNELS_CL_MATMUL": "candidates"}  # two matmul buckets: N 9..16 and N 5..8
MATMUL = "kernels_cl.matmul.float32"
DEVICES = [d for d in test_devices() if not is_oclgrind(d)]  # a simulator: minutes per tune


@dataclasses.dataclass
class Warmed:
    store: Path
    device: clmodes.Device
    keys: int  # tuned by the warm

    def cli(self, *args: str, **extra: str):
        return run_cli(self.store, *args, **{**SMALL, **extra})

    def json(self, *args: str) -> dict:
        out = self.cli(*args, "--json")
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    def copy(self, target: Path) -> Warmed:
        """The same store in another folder (SQLite's backup: consistent, WAL or not)."""
        target.mkdir()
        with sqlite3.connect(self.store / "store.sqlite3") as source, \
                sqlite3.connect(target / "store.sqlite3") as copied:
            source.backup(copied)
        return dataclasses.replace(self, store=target)


@pytest.fixture(scope="module", params=DEVICES, ids=device_id)
def warmed(request, tmp_path_factory) -> Warmed:
    device: clmodes.Device = request.param
    store = tmp_path_factory.mktemp(f"tune-cli-{device_id(device)}")
    out = run_cli(store, "warm", "kernels_cl.workloads:mlp", "--device", str(device.index),
                  "--json", **SMALL)
    assert out.returncode == 0, out.stderr
    keys = json.loads(out.stdout)["autotune"]["keys"]
    assert keys >= 3  # two matmul shapes, softmax, elementwise
    return Warmed(store, device, keys)


def _one_line_error(out, *words: str) -> None:
    assert out.returncode == 2, out.stdout + out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1
    for word in words:
        assert word in out.stderr


# -- list ------------------------------------------------------------------------------


def test_list_has_one_row_per_tuned_key_with_winner_and_runner_up(warmed):
    listed = warmed.json("tune", "list", "--device", str(warmed.device.index))
    check(listed, TUNE_LIST)
    entries = listed["entries"]
    assert len(entries) == warmed.keys
    assert {e["model"] for e in entries} == {warmed.device.fingerprint.model}
    for e in entries:
        assert e["device"] == warmed.device.fingerprint.exact
        assert 1 <= e["measured"] and e["measured"] + e["dropped"] <= e["configs"]
        if e["runner_up"] is not None:
            # The winner is the final's (paired rounds, `tune/measuring/finals.py`), so its pooled
            # median need not be the lowest: a pair's ratio, not a median, decides.
            assert e["runner_up"] != e["winner"]
            assert e["runner_up_ratio"] == pytest.approx(
                e["runner_up_median_s"] / e["winner_median_s"])
        # Where it came from: the host recorded with it, if any (records before it: unknown).
        assert e["origin"] == ("unknown" if e["host"] is None else "here")
        assert e["host"] in (None, platform.node())
    assert sum(e["tunable"] == MATMUL for e in entries) >= 2


def test_list_filters_by_tunable_and_reads_json_before_the_verb(warmed):
    only = warmed.cli("--json", "tune", "list", "--tunable", MATMUL)
    assert only.returncode == 0, only.stderr
    entries = json.loads(only.stdout)["entries"]
    assert entries and {e["tunable"] for e in entries} == {MATMUL}
    text = warmed.cli("tune", "list")
    assert text.returncode == 0 and MATMUL in text.stdout
    assert "median device time" in text.stdout  # the unit is stated


# -- show ------------------------------------------------------------------------------


def _matmul_keys(warmed: Warmed) -> list[str]:
    return [e["key"] for e in warmed.json("tune", "list", "--tunable", MATMUL)["entries"]]


def test_show_sorts_candidates_and_states_spread_samples_and_drops(warmed):
    key = _matmul_keys(warmed)[0]
    shown = warmed.json("tune", "show", MATMUL, key)
    check(shown, TUNE_SHOW)
    (entry,) = shown["keys"]
    candidates = entry["candidates"]
    medians = [c["median_s"] for c in candidates]
    assert medians == sorted(medians)
    assert [c["name"] for c in candidates if c["winner"]] == [entry["winner"]]
    for c in candidates:
        assert c["min_s"] <= c["q1_s"] <= c["median_s"] <= c["q3_s"] <= c["max_s"]
        assert c["samples"] == len(c["samples_s"]) >= 1
    # matmul's candidates are configurations: their parameters are read from the names
    assert all(c["parameters"].get("family") in ("naive", "tiled", "reg", "blocked")
               for c in candidates)
    assert len(candidates) + len(entry["dropped_candidates"]) == entry["configs"]

    text = warmed.cli("tune", "show", MATMUL, key)
    assert text.returncode == 0, text.stderr
    assert "times in" in text.stdout and "device time from profiling events" in text.stdout
    for c in candidates:
        assert c["name"] in text.stdout
    for d in entry["dropped_candidates"]:
        assert d["name"] in text.stdout


def test_show_finds_a_key_written_another_way_or_by_a_part_of_it(warmed):
    key = _matmul_keys(warmed)[0]
    spaced = json.dumps(dict(reversed(list(json.loads(key).items()))), indent=1)
    assert warmed.json("tune", "show", MATMUL, spaced)["keys"][0]["key"] == key
    every = warmed.json("tune", "show", MATMUL)["keys"]
    assert len(every) == len(_matmul_keys(warmed))
    _one_line_error(warmed.cli("tune", "show", MATMUL, '"K"'), "ambiguous")
    _one_line_error(warmed.cli("tune", "show", MATMUL, '{"M": 999}'), "has no key", MATMUL)
    _one_line_error(warmed.cli("tune", "show", "no.such.tunable"), "'no.such.tunable'", MATMUL)


# -- plot ------------------------------------------------------------------------------


def test_plot_writes_png_and_svg_with_the_winner_named(warmed, tmp_path):
    pytest.importorskip("matplotlib", reason="the 'plot' extra is not installed")
    key = _matmul_keys(warmed)[0]
    png, svg = tmp_path / "tune.png", tmp_path / "tune.svg"
    report = warmed.json("tune", "plot", MATMUL, key, "-o", str(png))
    check(report, TUNE_PLOT)
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") and png.stat().st_size > 10_000
    warmed.json("tune", "plot", MATMUL, key, "-o", str(svg))
    root = ElementTree.parse(svg).getroot()
    assert root.tag.endswith("svg")
    texts = " ".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
    assert report["winner"] in texts and "roofline" not in texts  # no cost: no ceiling
    assert "against RM" in texts or "against TILE" in texts  # the tuning space's view


def test_plot_refuses_a_bad_target_or_several_keys_and_writes_nothing(warmed, tmp_path):
    key = _matmul_keys(warmed)[0]
    _one_line_error(warmed.cli("tune", "plot", MATMUL, key, "-o", str(tmp_path / "x.jpg")),
                    ".png or .svg")
    _one_line_error(warmed.cli("tune", "plot", MATMUL, key, "-o", str(tmp_path / "no" / "x.png")),
                    "does not exist")
    _one_line_error(warmed.cli("tune", "plot", MATMUL, "-o", str(tmp_path / "x.png")),
                    "draws one entry", "give KEY")
    assert list(tmp_path.iterdir()) == []


def test_plot_without_matplotlib_names_the_extra(warmed, tmp_path):
    key = _matmul_keys(warmed)[0]
    code = (f"import sys; sys.modules['matplotlib'] = None\n"
            f"from clmodes.cli import main\n"
            f"sys.exit(main(['tune', 'plot', {MATMUL!r}, {key!r}, '-o', {str(tmp_path / 'x.png')!r}]))")
    out = run_python(code, cache_dir=warmed.store)
    _one_line_error(out, "matplotlib", "'plot' extra", "clmodes[plot]")
    assert not (tmp_path / "x.png").exists()


# -- forget ----------------------------------------------------------------------------


def test_forget_drops_a_key_so_that_the_next_warm_tunes_it_again(warmed, tmp_path):
    copy = warmed.copy(tmp_path / "store")
    key = _matmul_keys(copy)[0]
    forgot = copy.json("tune", "forget", MATMUL, key)
    check(forgot, TUNE_FORGET)
    assert forgot["deleted"] == 1 and forgot["entries"][0]["key"] == key
    assert key not in _matmul_keys(copy)
    assert len(copy.json("tune", "list")["entries"]) == warmed.keys - 1

    again = copy.json("warm", "kernels_cl.workloads:mlp", "--device", str(warmed.device.index))
    assert again["autotune"]["keys"] == 1  # the forgotten key, and only it
    assert key in _matmul_keys(copy)

    everything = copy.json("tune", "forget", MATMUL)
    assert everything["deleted"] == len(everything["entries"]) >= 2
    assert _matmul_keys(copy) == []


def test_forget_of_an_unknown_key_is_one_line_and_changes_nothing(warmed, tmp_path):
    copy = warmed.copy(tmp_path / "store")
    before = copy.json("tune", "list")
    _one_line_error(copy.cli("tune", "forget", MATMUL, '{"M": 12345}'), "has no key")
    _one_line_error(copy.cli("tune", "forget", "kernels_cl.nothing"), "'kernels_cl.nothing'")
    assert copy.json("tune", "list") == before


def test_show_names_a_candidate_that_failed_to_build_with_the_logs_first_line(tmp_path):
    warm = run_cli(tmp_path, "warm", "support.tunables:broken_candidate_workload", "--json")
    assert warm.returncode == 0, warm.stderr
    shown = run_cli(tmp_path, "tune", "show", "tests.broken_candidate", "--json")
    check(json.loads(shown.stdout), TUNE_SHOW)
    (entry,) = json.loads(shown.stdout)["keys"]
    failed = [d for d in entry["dropped_candidates"] if d["kind"] == "failed"]
    assert sorted(d["name"] for d in failed) == ["ITEMS=1,SCALE=undeclared_scale",
                                                 "ITEMS=4,SCALE=undeclared_scale"]
    assert {c["name"] for c in entry["candidates"]} <= {"ITEMS=1,SCALE=2.0f", "ITEMS=4,SCALE=2.0f"}
    text = run_cli(tmp_path, "tune", "show", "tests.broken_candidate").stdout
    for d in failed:
        assert "failed to build" in d["reason"]
        assert "undeclared_scale" in d["summary"].split(" — ", 1)[1]  # the log's first line
        assert d["summary"] in text
