"""`clmodes fleet` on a real three-node Ray cluster: a PoCL-only head and two Intel-only
workers, inside a network and PID namespace of its own (`support.fleet_cluster`).

One cluster for the module (Ray's start-up costs seconds per node); the tests run in
order and the later ones kill nodes: the retry kills one Intel node, `lost` the other,
and `--allow-partial` a third started for it. The spread tests (`--spread`, the two
Intel nodes sharing one tune) run before any node is killed.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest

from clmodes.cli.fleet import fleet_devices_text, fleet_warm_text
from support.fleet_cluster import FleetCluster
from support.fleet_workloads import SPACED, SPACED_OPTIONS
from support.subprocesses import (RUN_WORKLOAD, environment, last_json, run_cli, run_python,
                                 run_reporting)

pytest.importorskip("ray", reason="the fleet needs Ray: pip install 'clmodes[fleet]'")

SMALL = "support.fleet_workloads:small"


@pytest.fixture(scope="module")
def cluster():
    reason = FleetCluster.unusable()
    if reason:
        pytest.skip(reason)
    # A short path: Ray's sockets live under it, and a Unix socket path has 107 bytes.
    workdir = Path(tempfile.mkdtemp(prefix="clf-", dir="/tmp"))
    fleet = FleetCluster(workdir, ("intel-a", "intel-b"))
    try:
        fleet.start(environment())
        yield fleet
    finally:
        fleet.close()
        shutil.rmtree(workdir, ignore_errors=True)


def report(answer: dict) -> dict:
    assert answer["stdout"].strip(), answer["stderr"][-3000:]
    return json.loads(answer["stdout"])


def by_vendor(payload: dict) -> dict[str, dict]:
    return {t["fingerprint"].split(" | ")[0]: t for t in payload["targets"]}


def test_devices_lists_every_node_grouped_by_exact_fingerprint(cluster):
    answer = cluster.cli("fleet", "devices", "--json")
    assert answer["rc"] == 0, answer["stderr"][-3000:]
    payload = json.loads(answer["stdout"])
    assert len(payload["nodes"]) == 3
    groups = {g["vendor"]: g for g in payload["fingerprints"]}
    assert sorted(groups) == ["Intel", "PoCL"]
    assert len(groups["Intel"]["nodes"]) == 2 and len(groups["PoCL"]["nodes"]) == 1
    for node in payload["nodes"]:  # each node has exactly its own runtime
        assert len(node["devices"]) == 1 and node["error"] is None
    text = fleet_devices_text(payload)  # what the command prints without --json
    assert "3 node(s), 2 distinct device(s)" in text
    assert text.count("exact: ") == 2


def test_warm_ships_one_bundle_that_starts_every_runtime_warm(cluster, tmp_path):
    out = tmp_path / "fleet.clmodes"
    key = tmp_path / "release.key"
    assert run_cli(tmp_path / "keys", "bundle", "keygen", str(key)).returncode == 0
    answer = cluster.cli("fleet", "warm", SMALL, "-o", str(out), "--json", "--sign", str(key))
    payload = report(answer)
    assert answer["rc"] == 0 and payload["complete"] and payload["written"]
    targets = by_vendor(payload)
    assert sorted(targets) == ["Intel", "PoCL"]
    for target in targets.values():
        assert target["status"] == "ok"
        assert target["kernels_compiled"] >= 13 and target["keys_tuned"] == 1
        assert target["seconds"] > 0
    assert targets["PoCL"]["node"] != targets["Intel"]["node"]
    assert payload["manifest"]["counts"]["binaries"] == 2  # one per device, in one file
    inspected = json.loads(run_cli(tmp_path / "inspect", "bundle", "inspect", "--json",
                                   str(out)).stdout)
    assert sorted(d["vendor"] for d in inspected["manifest"]["devices"]) == ["Intel", "PoCL"]
    assert {m["match"] for m in inspected["matches"]} == {"exact"}
    for vendor, selector in (("Intel", "intel"), ("PoCL", "portable")):
        store = tmp_path / f"store-{vendor}"
        imported = run_cli(store, "bundle", "import", str(out), "--trust", f"{key}.pub")
        assert imported.returncode == 0, imported.stderr
        run = last_json(run_python(RUN_WORKLOAD, store, CLMODES_DEVICE=selector))
        assert run["demo_ok"] and run["tuned_ok"]
        assert run["compilation"]["compiled"] == 0 and run["source_builds"] == 0
        assert run["compilation"]["loaded"] == 13 and run["autotune"]["keys"] == 0


def test_working_dir_ships_a_workload_the_nodes_do_not_have(cluster, tmp_path):
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    (shipped / "fleet_shipped_workload.py").write_text(
        "from support import fleet_workloads\n\n\ndef main():\n"
        "    fleet_workloads.tiny()\n")
    out = tmp_path / "fleet.clmodes"
    answer = cluster.cli("fleet", "warm", "fleet_shipped_workload:main", "-o", str(out),
                         "--json", "--working-dir", str(shipped))
    payload = report(answer)
    assert answer["rc"] == 0 and out.exists(), answer["stderr"][-3000:]
    assert [t["status"] for t in payload["targets"]] == ["ok", "ok"]
    # Without it, the nodes cannot import it: every target fails with the reason.
    answer = cluster.cli("fleet", "warm", "fleet_shipped_workload:main", "-o",
                         str(tmp_path / "no.clmodes"), "--json")
    statuses = {t["status"] for t in report(answer)["targets"]}
    assert answer["rc"] == 1 and statuses == {
        "failed: cannot import module 'fleet_shipped_workload': "
        "No module named 'fleet_shipped_workload'"}


def test_workload_raising_on_one_runtime_fails_that_target_only(cluster, tmp_path):
    out = tmp_path / "fleet.clmodes"
    answer = cluster.cli("fleet", "warm", "support.fleet_workloads:raises_on_intel",
                         "-o", str(out), "--json")
    payload = report(answer)
    targets = by_vendor(payload)
    assert answer["rc"] == 1 and not out.exists() and not payload["written"]
    # The node's warm names the workload's own exception (it raised before gathering
    # anything: `NothingWarmedError`, naming it).
    status = targets["Intel"]["status"]
    assert status.startswith("failed: ") and "RuntimeError" in status, status
    assert "refused on Intel on purpose" in status, status
    assert targets["PoCL"]["status"] == "ok"
    assert payload["missing"] == [targets["Intel"]["fingerprint"]]
    text = fleet_warm_text(payload)  # what the command prints without --json
    assert "not written" in text
    assert f"status: {status}" in text


def test_spread_shares_one_tune_over_the_two_intel_nodes(cluster, tmp_path):
    out = tmp_path / "fleet.clmodes"
    answer = cluster.cli("fleet", "warm", "support.fleet_workloads:spaced_space", "-o",
                         str(out), "--json", "--spread")
    payload = report(answer)
    assert answer["rc"] == 0 and payload["complete"] and payload["spread"], \
        answer["stderr"][-3000:]
    targets = by_vendor(payload)
    assert [t["status"] for t in targets.values()] == ["ok", "ok"]
    [group] = payload["groups"]  # PoCL is on one node only: a plain warm
    assert group["model"].startswith("Intel") and len(group["nodes"]) == 2
    leader, other = group["nodes"]
    assert leader["node"] == group["leader"] == targets["Intel"]["node"]
    # Each measured its share, none twice, none taken over: together exactly the budget.
    assert leader["configs"] >= 1 and other["configs"] >= 1
    assert leader["configs"] + other["configs"] == group["configs"] == SPACED_OPTIONS["configs"]
    assert leader["took_over"] == other["took_over"] == 0
    assert (leader["reraced"], other["reraced"]) == (1, 0)  # finalists on one device only
    assert leader["keys"] == other["keys"] == 1
    assert [n["status"] for n in group["nodes"]] == ["ok", "ok"]
    assert targets["Intel"]["keys_tuned"] == 1
    # The leader compiled its share and the finalists (3) it re-raced, not all 8 configs.
    assert targets["Intel"]["kernels_compiled"] <= leader["configs"] + 3
    assert targets["Intel"]["kernels_compiled"] < SPACED_OPTIONS["configs"]
    text = fleet_warm_text(payload)
    assert f"{leader['node']}: {leader['configs']} configs, ok" in text
    # The shipped decision: one config, the group's measurements, re-raced on the leader.
    store = tmp_path / "store"
    imported = run_cli(store, "bundle", "import", str(out), "--allow-unsigned")
    assert imported.returncode == 0, imported.stderr
    options = {**SPACED_OPTIONS}
    run = tune_reported(store, SPACED, options)
    assert run["keys"] == 0 and run["ok"], run["stderr"][-3000:]  # a fresh process tunes nothing
    assert isinstance(run["winner"], str) and "ITEMS=" in run["winner"]
    assert run["measured_here"] == SPACED_OPTIONS["configs"]
    assert len(run["measured"]) + len(run["dropped"]) == SPACED_OPTIONS["configs"]
    spread = run["spread"]
    assert spread["nodes"] == 2 and spread["reraced_on"] == leader["node"]
    assert spread["measured_on"] == {leader["node"]: leader["configs"],
                                     other["node"]: other["configs"]}
    assert "adopted_on" not in spread  # the leader's own bundle ships (same exact device)
    shown = json.loads(run_cli(store, "tune", "show", SPACED, "--json").stdout)
    [key] = [k for k in shown["keys"] if k["model"].startswith("Intel")]  # PoCL's is there too
    assert key["spread"] == {**spread, "adopted_on": None} and key["winner"] == run["winner"]


def test_spread_peer_that_dies_has_its_share_measured_by_the_leader(cluster, tmp_path):
    out = tmp_path / "fleet.clmodes"
    answer = cluster.cli("fleet", "warm", "support.fleet_workloads:spaced_peer_dies", "-o",
                         str(out), "--json", "--spread", "--spread-timeout", "4")
    payload = report(answer)
    assert answer["rc"] == 0 and payload["complete"], answer["stderr"][-3000:]
    [group] = payload["groups"]
    leader, other = group["nodes"]
    assert other["status"].startswith("failed") and leader["status"] == "ok"
    assert leader["took_over"] >= 1 and leader["reraced"] == 1
    assert by_vendor(payload)["Intel"]["node"] == leader["node"]
    store = tmp_path / "store"
    assert run_cli(store, "bundle", "import", str(out), "--allow-unsigned").returncode == 0
    run = tune_reported(store, "tests.fleet.spaced.dies", dict(SPACED_OPTIONS))
    assert run["keys"] == 0 and run["ok"], run["stderr"][-3000:]
    # Nothing measured twice, nothing missing: the budget exactly, mostly by the leader.
    measured_on = run["spread"]["measured_on"]
    assert sum(measured_on.values()) == run["measured_here"] == SPACED_OPTIONS["configs"]
    assert measured_on[leader["node"]] >= SPACED_OPTIONS["configs"] - 2


def tune_reported(store, name: str, options: dict) -> dict:
    return run_reporting("spaced", store, "intel", name, **options)


def test_task_of_a_killed_node_is_retried_on_another_with_the_same_device(cluster, tmp_path):
    out = tmp_path / "fleet.clmodes"
    answer = cluster.cli("fleet", "warm", "support.fleet_workloads:hangs_on_intel_once",
                         "-o", str(out), "--json", kill=True)
    payload = report(answer)
    assert answer["killed"] is not None
    intel = by_vendor(payload)["Intel"]
    assert answer["rc"] == 0 and out.exists(), answer["stderr"][-3000:]
    assert intel["status"] == "ok" and len(intel["attempts"]) == 2
    assert intel["attempts"][0] != intel["attempts"][1] == intel["node"]


def test_node_killed_mid_warm_with_no_other_is_lost_and_nothing_written(cluster, tmp_path):
    out = tmp_path / "fleet.clmodes"
    answer = cluster.cli("fleet", "warm", "support.fleet_workloads:hangs_on_intel_once",
                         "-o", str(out), "--json", kill=True)
    payload = report(answer)
    targets = by_vendor(payload)
    assert answer["killed"] is not None
    assert answer["rc"] == 1 and not out.exists()
    assert targets["Intel"]["status"] == "lost: node died"
    assert targets["PoCL"]["status"] == "ok"


def test_allow_partial_writes_the_survivors_bundle(cluster, tmp_path):
    assert cluster.ask("start_node", name="intel-c", kind="intel")["rc"] == 0
    out = tmp_path / "fleet.clmodes"
    answer = cluster.cli("fleet", "warm", "support.fleet_workloads:hangs_on_intel_once",
                         "-o", str(out), "--json", "--allow-partial", kill=True)
    payload = report(answer)
    assert answer["rc"] == 3 and payload["written"] and not payload["complete"]
    assert by_vendor(payload)["Intel"]["status"] == "lost: node died"
    inspected = json.loads(run_cli(tmp_path / "inspect", "bundle", "inspect", "--json",
                                   str(out)).stdout)
    assert [d["vendor"] for d in inspected["manifest"]["devices"]] == ["PoCL"]
