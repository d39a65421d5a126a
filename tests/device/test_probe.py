"""The throughput probe (`clmodes.probe`) and roofline scoring, on real OpenCL (PoCL in CI).

Tolerance: the CI machines are 2-core CPUs shared with other jobs. Two probes run back to
back agree on the headline figures (best bandwidth, best compute) within 35% there; a
probe that lands while another process holds one of the two cores can read half, so the
stability check allows a third run and asserts that two of the three agree.
"""

import dataclasses
import itertools
import json
import logging
import os
import uuid

import pytest

import clmodes
from clmodes import (
    ProcessMode,
    ProcessModeOverride,
    ProbeResult,
    StatisticsReader,
    roofline_fraction,
)
from clmodes import bundle
from clmodes.probing import PROBE_VERSION, cached, forget
from clmodes.store import Store
from support.tunables import buffers
from support.probes import TOLERANCE, agree, cost_tunable, figures, make_result



# -- measuring ---------------------------------------------------------------------------


def test_probe_measures_positive_stable_figures(client, collector):
    runs = [clmodes.probe(client, refresh=True) for _ in range(2)]
    headline = [(r.bandwidth_gbps, r.compute_gflops) for r in runs]

    def two_agree() -> bool:
        return any(agree(x[0], y[0]) and agree(x[1], y[1])
                   for x, y in itertools.combinations(headline, 2))

    while not two_agree() and len(runs) < 4:  # a shared 2-core machine: retry, don't widen
        runs.append(clmodes.probe(client, refresh=True))
        headline.append((runs[-1].bandwidth_gbps, runs[-1].compute_gflops))
    assert any(
        agree(x[0], y[0]) and agree(x[1], y[1]) for x, y in itertools.combinations(headline, 2)
    ), f"no two probes agree within {TOLERANCE:.0%}: {headline}"

    result = runs[-1]
    assert [f.name for f in result.bandwidth] == ["read", "write", "copy"]
    assert [f.name for f in result.compute] == ["float", "float4", "float8"]
    for figure in figures(result):
        assert figure.value > 0 and figure.seconds > 0 and figure.work > 0
        assert figure.unit == ("GB/s" if figure in result.bandwidth else "GFLOP/s")
        assert figure.value == pytest.approx(figure.work / figure.seconds / 1e9)
        assert figure.global_size % figure.local_size == 0
        assert figure.samples >= 2 and 2 <= figure.rounds <= 8
    copy = result.figure("copy")
    assert copy.work == 2 * result.figure("read").work  # a copy's bytes count both ways
    assert result.buffer_bytes >= 16 << 20 and "median" in result.statistic
    assert result.model == client.device.fingerprint.model
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.bandwidth = ()

    # The latest measurement is what is cached, in memory and in the store; nothing re-runs.
    with ProcessModeOverride(ProcessMode.EXECUTE, collector):
        again = clmodes.probe(client)
    assert again is result
    assert StatisticsReader(collector).statistics().compilation.kernels == 0
    stored = clmodes.default_store().get_probe(result.model)
    assert ProbeResult.from_dict(json.loads(json.dumps(stored))) == result


def test_compile_only_with_a_cached_result_returns_it_and_refresh_measures_nothing(client):
    known = clmodes.probe(client)
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY):
        assert clmodes.probe(client) is known
        assert clmodes.probe(client, refresh=True) is None
    assert cached(client) is known
    stored = clmodes.default_store().get_probe(known.model)
    assert stored["measured_at"] == known.measured_at


# -- the store ---------------------------------------------------------------------------


def test_store_keeps_probe_results_as_json(tmp_path, caplog):
    store = Store(tmp_path)
    result = make_result()
    store.put_probe(result.model, result.as_dict())
    assert ProbeResult.from_dict(store.get_probe(result.model)) == result
    assert store.info()["devices"][result.model]["probe_results"] == 1
    text = store.query("SELECT value FROM probe")[0][0]
    assert json.loads(text)["bandwidth"][0]["name"] == "read"

    with store.transaction() as connection:
        connection.execute("UPDATE probe SET value = '{not json'")
    with caplog.at_level(logging.WARNING, logger="clmodes"):
        assert store.get_probe(result.model) is None
    assert "unreadable probe entry" in caplog.text
    assert store.clear(result.model) == 1 and store.count("probe") == 0


def test_result_from_another_probe_version_is_a_miss(client, tmp_path, caplog):
    stale = {**make_result().as_dict(), "version": PROBE_VERSION + 1}
    with pytest.raises(ValueError, match="probe format"):
        ProbeResult.from_dict(stale)
    broken = make_result().as_dict()
    broken["bandwidth"] = broken["bandwidth"][:1]
    with pytest.raises(ValueError, match="figures missing"):
        ProbeResult.from_dict(broken)

    store = clmodes.set_cache_dir(tmp_path)
    forget()
    try:
        store.put_probe(client.device.fingerprint.model, stale)
        with caplog.at_level(logging.WARNING, logger="clmodes"):
            assert cached(client) is None
        assert "re-measured" in caplog.text
    finally:
        clmodes.set_cache_dir(os.environ["CLMODES_CACHE_DIR"])
        forget()


# -- scoring -----------------------------------------------------------------------------


def test_tune_records_roofline_per_candidate_when_a_probe_is_cached(stream, tmp_path):
    probed = clmodes.probe(stream.device)  # cached by now, else measured here
    tunable = cost_tunable(f"roofline-{uuid.uuid4().hex[:8]}")
    out, x = buffers(stream, n=1 << 16)
    tunable(stream, out, x, 1 << 16)
    key = tunable.tune_key(stream, (out, x, 1 << 16))
    record = clmodes.default_store().get_tune_json(*key)
    assert record["cost"]["bytes_moved"] == 8 * (1 << 16) and record["cost"]["flops"] == 0
    for measurement in record["measurements"].values():
        assert measurement["roofline"] == pytest.approx(
            roofline_fraction(probed, measurement["median_s"], 8 * (1 << 16), 0))
        assert measurement["roofline"] > 0
    assert record["roofline"] == record["measurements"][record["winner"]]["roofline"]

    # `bundle inspect` shows it per tuned key.
    shipped = Store(tmp_path / "ship")
    shipped.put_tune_json(*key, record)
    bundle.export(tmp_path / "b.clmodes", store=shipped)
    (row,) = bundle.inspect(tmp_path / "b.clmodes")["roofline"]
    assert row["tunable"] == tunable.name and row["winner"] == record["winner"]
    assert row["roofline"] == record["roofline"]


def test_tune_never_triggers_a_probe(stream, tmp_path):
    clmodes.set_cache_dir(tmp_path)
    forget()
    try:
        tunable = cost_tunable(f"no-probe-{uuid.uuid4().hex[:8]}")
        out, x = buffers(stream)
        tunable(stream, out, x, 4096)
        record = clmodes.default_store().get_tune_json(*tunable.tune_key(stream, (out, x, 4096)))
        assert "roofline" not in record and "cost" not in record
        assert all("roofline" not in m for m in record["measurements"].values())
        assert cached(stream.device) is None and clmodes.default_store().count("probe") == 0
    finally:
        clmodes.set_cache_dir(os.environ["CLMODES_CACHE_DIR"])
        forget()

