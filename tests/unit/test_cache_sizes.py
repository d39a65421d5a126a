"""Sizes (`--max-size`, `$CLMODES_CACHE_MAX_SIZE`), moments (`--since`) and which entries a
prune chooses: the parsing and the choice, hostile input included (no OpenCL needed)."""

from __future__ import annotations

import time
from datetime import datetime, timezone

import pytest
from hypothesis import given, strategies as st

from clmodes.cli.errors import UsageError
from clmodes.cli.when import parse_when
from clmodes.store.footprint import Entry
from clmodes.store.pruning import Warmed, choose
from clmodes.sizes import SizeError, parse_size
from clmodes.store.footprint import BINARY, MEASUREMENT, TUNE, entry_text, last_uses


@pytest.mark.parametrize("text, size", [
    ("4096", 4096), ("800k", 800 << 10), ("800K", 800 << 10), ("500MB", 500 << 20),
    ("2GiB", 2 << 30), ("1.5G", 3 << 29), (" 7 mib ", 7 << 20), ("0", 0), ("1T", 1 << 40),
])
def test_sizes_people_write(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", [
    "", "lots", "-5", "5 GB extra", "1e9", "1,000", "0x100", "nan", "inf", "5XB", "1.5.2G",
    "\u0661\u0662",  # Arabic-Indic digits: \\d would take them
    "9" * 33, "9" * 100_000, "1" + "\x00", "5 G B",
])
def test_what_is_not_a_size_is_one_line_naming_it(text):
    with pytest.raises(SizeError) as refused:
        parse_size(text)
    message = str(refused.value)
    assert "\n" not in message and "is not a size" in message
    assert len(message) < 200  # a hostile value is shown cut, never whole


@given(st.text(max_size=40))
def test_any_text_is_a_size_or_a_size_error(text):
    try:
        assert parse_size(text) >= 0
    except SizeError:
        pass


def test_durations_and_iso_times():
    now = time.time()
    assert parse_when("7d", now) == now - 7 * 86400
    assert parse_when("12h", now) == now - 12 * 3600
    assert parse_when("90s", now) == now - 90
    assert parse_when("2w", now) == now - 14 * 86400
    assert parse_when("2026-01-02T03:04:05Z", now) == \
        datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc).timestamp()
    naive = datetime(2026, 1, 2, 3, 4)
    assert parse_when("2026-01-02T03:04", now) == naive.timestamp()  # local time
    assert parse_when("2026-01-02", now) == datetime(2026, 1, 2).timestamp()


@pytest.mark.parametrize("text, message", [
    ("yesterday", "not a time"), ("7", "not a time"), ("-7d", "not a time"),
    ("7 days", "not a time"), ("3000-01-01", "in the future"), ("1" * 41 + "d", "not a time"),
    ("99999999999999w", "more than 1000 years"), ("2026-13-45", "not a time"),
])
def test_bad_times_are_one_line(text, message):
    with pytest.raises(UsageError) as refused:
        parse_when(text, now=datetime(2026, 12, 1).timestamp())
    assert message in str(refused.value) and "\n" not in str(refused.value)


def entry(kind, name, used, size=100, rows=1, created=0.0):
    key = ("exact", name) if kind == BINARY else (1, "model", "tunable", name) + (
        ("cands",) if kind == TUNE else ())
    return Entry(kind, key, size, used, rows, created)


def test_least_recently_used_go_first_until_under_the_cap():
    found = [entry(BINARY, "old", 1.0), entry(BINARY, "new", 3.0), entry(BINARY, "mid", 2.0)]
    plan = choose(found, set(), 200)
    assert [e.key[1] for e in plan.evict] == ["old"] and plan.bytes_after == 200
    assert [e.key[1] for e in choose(found, set(), 99).evict] == ["old", "mid", "new"]
    assert choose(found, set(), 300).evict == []


def test_binaries_go_before_decisions_whatever_their_age():
    """The user's store: decisions are older than the binaries of their winners (a warm
    writes binaries last), and LRU over all kinds evicted every decision."""
    found = [entry(TUNE, "k1", 1.0, size=10), entry(TUNE, "k2", 2.0, size=10),
             entry(BINARY, "b2", 9.0, size=800), entry(BINARY, "b1", 5.0, size=800),
             entry(BINARY, "b3", 7.0, size=800)]
    plan = choose(found, set(), 1000)
    assert [e.key[1] for e in plan.evict] == ["b1", "b3"]  # least recently used first
    assert plan.bytes_after == 820
    everything = choose(found, set(), 0).evict
    assert [e.kind for e in everything] == [BINARY] * 3 + [TUNE] * 2  # decisions last


def test_a_decided_keys_measurements_go_before_its_decision():
    measured = entry(MEASUREMENT, "k", 0.5, size=50, rows=3)  # older than its decision
    decision = entry(TUNE, "k", 2.0)
    binary = entry(BINARY, "b", 1.0)
    plan = choose([decision, measured, binary], set(), 100)
    assert [e.kind for e in plan.evict] == [BINARY, MEASUREMENT] and plan.bytes_after == 100
    assert [e.kind for e in choose([decision, measured, binary], set(), 0).evict] == [
        BINARY, MEASUREMENT, TUNE]
    # A tune stopped before it decided: its measurements are minutes of measuring, which
    # the next tune resumes from; a binary goes first.
    orphan = entry(MEASUREMENT, "gone", 0.1, size=50)
    assert choose([orphan, binary], set(), 100).evict == [binary]
    assert choose([orphan, binary], set(), 0).evict == [binary, orphan]


def test_what_the_running_warm_made_or_used_is_kept_over_the_cap():
    made = entry(BINARY, "made", 11.0, created=11.0)  # written by the warm (began at 10)
    read = entry(TUNE, "read", 12.0, created=3.0)  # older, read by this warm
    other = entry(TUNE, "other", 12.5, created=4.0)  # read since, by another process
    old = entry(BINARY, "old", 2.0, created=2.0)
    warmed = Warmed(10.0, frozenset({(TUNE, entry_text(read.key))}))
    plan = choose([made, read, other, old], set(), 50, warmed)
    assert plan.evict == [old, other] and plan.bytes_after == 200 > 50
    assert plan.warmed == 2 and plan.warmed_bytes == 200


def test_a_live_leases_key_is_kept_whatever_its_age():
    decision, measured = entry(TUNE, "k", 0.0), entry(MEASUREMENT, "k", 0.0)
    plan = choose([decision, measured, entry(BINARY, "b", 5.0)],
                  {("model", "tunable", "k", "other-cands")}, 0)
    assert [e.kind for e in plan.evict] == [BINARY] and plan.in_use == 2  # both kept
    assert plan.bytes_after == 200


def test_hostile_last_use_rows_are_skipped():
    rows = [("binary", "[]", "soon"), ("binary", "[1]", float("nan")), (None, "x", 1.0),
            ("tune", "[2]", True), ("tune", "[3]", 5.0), ("short",), ("tune", "[4]", 1e300)]
    assert last_uses(rows, now=10.0) == {("tune", "[3]"): 5.0}
