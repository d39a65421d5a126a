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
from clmodes.store.pruning import choose
from clmodes.store.sizes import SizeError, parse_size
from clmodes.store.uses import BINARY, MEASUREMENT, TUNE, last_uses


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


def entry(kind, name, used, size=100, rows=1):
    key = ("exact", name) if kind == BINARY else (1, "model", "tunable", name) + (
        ("cands",) if kind == TUNE else ())
    return Entry(kind, key, size, used, rows)


def test_least_recently_used_go_first_until_under_the_cap():
    found = [entry(BINARY, "old", 1.0), entry(BINARY, "new", 3.0), entry(BINARY, "mid", 2.0)]
    plan = choose(found, set(), 200)
    assert [e.key[1] for e in plan.evict] == ["old"] and plan.bytes_after == 200
    assert [e.key[1] for e in choose(found, set(), 99).evict] == ["old", "mid", "new"]
    assert choose(found, set(), 300).evict == []


def test_a_keys_measurements_go_with_its_last_decision():
    measured = entry(MEASUREMENT, "k", 0.5, size=50, rows=3)  # older than its decision
    decision = entry(TUNE, "k", 2.0)
    binary = entry(BINARY, "b", 1.0)
    plan = choose([measured, decision, binary], set(), 100)
    # The measurements alone are never chosen while the decision stays: the binary goes.
    assert [e.kind for e in plan.evict] == [BINARY, TUNE, MEASUREMENT]
    assert plan.bytes_after == 0
    orphan = entry(MEASUREMENT, "gone", 0.1, size=50)  # a tune killed before deciding
    assert choose([orphan, binary], set(), 100).evict == [orphan]


def test_a_live_leases_key_is_kept_whatever_its_age():
    decision, measured = entry(TUNE, "k", 0.0), entry(MEASUREMENT, "k", 0.0)
    plan = choose([decision, measured, entry(BINARY, "b", 5.0)],
                  {("model", "tunable", "k", "other-cands")}, 0)
    assert [e.kind for e in plan.evict] == [BINARY] and plan.in_use == 1
    assert plan.bytes_after == 200


def test_hostile_last_use_rows_are_skipped():
    rows = [("binary", "[]", "soon"), ("binary", "[1]", float("nan")), (None, "x", 1.0),
            ("tune", "[2]", True), ("tune", "[3]", 5.0), ("short",), ("tune", "[4]", 1e300)]
    assert last_uses(rows, now=10.0) == {("tune", "[3]"): 5.0}
