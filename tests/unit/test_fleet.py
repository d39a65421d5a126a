"""The fleet's planning, report and bundle acceptance, on recorded devices (no Ray)."""

from __future__ import annotations

import io

import pytest

from clmodes.bundle import BundleError
from clmodes.fleet import FleetError, FleetReport, Status, TargetReport
from clmodes.fleet.assembly import accept, check_output
from clmodes.fleet.cluster import Node, cpus_for
from clmodes.fleet.discovery import NodeDevice, NodeDevices
from clmodes.fleet.progress import FleetProgress
from clmodes.fleet.spread import plan_groups
from clmodes.fleet.targets import plan
from clmodes.cli.fleet import fleet_warm_text
from support.bundles import fixture_device


def listed(name: str, index: int = 0) -> NodeDevice:
    device = fixture_device(name, index)
    fp = device.fingerprint
    return NodeDevice(index, device.label, fp.vendor, fp.model, fp.exact)


NVIDIA = "nvidia-rtx4090-550"
AMD = "amd-rx7900xtx-rocm-3602"


def node(n: int) -> Node:
    return Node(f"{n:02d}" + "ab" * 20, "10.0.0.1")


def fleet_of(*nodes: tuple[str, ...]) -> list[NodeDevices]:
    return [NodeDevices(node(i), tuple(listed(name, k) for k, name in enumerate(names)))
            for i, names in enumerate(nodes)]


def test_one_target_per_exact_fingerprint_spread_over_nodes():
    found = fleet_of((NVIDIA,), (NVIDIA, AMD), (AMD,))
    targets = plan(found, "exact")
    assert len(targets) == 2
    first = {t.fingerprint.split(" | ")[0]: t.places[0][0] for t in targets}
    assert first["AMD"] != first["NVIDIA"]  # two targets, two different nodes
    for target in targets:  # the others are where a lost task is retried
        assert len(target.places) == 2 and len({n for n, _ in target.places}) == 2


def test_per_model_groups_drivers_of_one_model():
    other_driver = listed(NVIDIA)
    other_driver = NodeDevice(0, other_driver.label, other_driver.vendor, other_driver.model,
                              other_driver.exact.replace("driver 550", "driver 999"))
    found = [NodeDevices(node(0), (listed(NVIDIA),)), NodeDevices(node(1), (other_driver,))]
    assert len(plan(found, "exact")) == 2
    (model,) = plan(found, "model")
    assert model.fingerprint == other_driver.model and len(model.places) == 2


def test_per_must_be_exact_or_model():
    with pytest.raises(FleetError, match="--per"):
        plan(fleet_of((NVIDIA,)), "vendor")


def test_report_exit_status_and_missing():
    ok = TargetReport("a", "dev a", status=Status.OK)
    lost = TargetReport("b", "dev b", status=Status.LOST)
    failed = TargetReport("c", "dev c", status=Status.FAILED, line="ValueError: no")
    assert FleetReport("m:f", "o", "exact", [ok], written=True).exit_status == 0
    partial = FleetReport("m:f", "o", "exact", [ok, lost, failed], written=True)
    assert partial.exit_status == 3 and partial.missing == ["b", "c"]
    assert FleetReport("m:f", "o", "exact", [ok, lost]).exit_status == 1
    assert FleetReport("m:f", "o", "exact", []).exit_status == 1  # no target: not complete
    statuses = [t["status"] for t in partial.as_dict()["targets"]]
    assert statuses == ["ok", "lost: node died", "failed: ValueError: no"]


def test_damaged_bundle_is_rejected_and_removed(tmp_path, small_bundle):
    exact = fixture_device(NVIDIA).fingerprint.exact
    assert accept(tmp_path, "good", small_bundle, exact, "exact").exists()
    damaged = bytearray(small_bundle)
    damaged[-10] ^= 0xFF
    with pytest.raises(BundleError) as caught:
        accept(tmp_path, "bad", bytes(damaged), exact, "exact")
    assert "\n" not in str(caught.value) and not (tmp_path / "bad").exists()


def test_bundle_without_the_target_device_is_rejected(tmp_path, small_bundle):
    other = fixture_device(NVIDIA).fingerprint.exact.replace("driver 550", "driver 999")
    with pytest.raises(BundleError, match="holds no entries for the target"):
        accept(tmp_path, "b", small_bundle, other, "exact")
    model = fixture_device(NVIDIA).fingerprint.model  # per model: any driver of it will do
    assert accept(tmp_path, "m", small_bundle, model, "model").exists()


def test_output_refused_before_any_work(tmp_path):
    (tmp_path / "out").write_bytes(b"mine")
    with pytest.raises(BundleError, match="exists"):
        check_output(tmp_path / "out", force=False)
    check_output(tmp_path / "out", force=True)
    with pytest.raises(BundleError, match="does not exist"):
        check_output(tmp_path / "missing" / "out", force=False)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_line_only_on_a_terminal():
    targets = [TargetReport("a", "dev a", status=Status.OK), TargetReport("b", "dev b")]
    quiet = io.StringIO()
    FleetProgress(quiet).draw(targets)
    assert quiet.getvalue() == ""
    shown = Terminal()
    progress = FleetProgress(shown)
    progress.draw(targets)
    progress.close()
    assert "1/2 targets ok" in shown.getvalue() and "running: dev b" in shown.getvalue()


def test_a_job_asks_no_cpu_of_a_node_that_offers_none():
    assert cpus_for(Node("n", "a", 0.0)) == 0.0  # a one-CPU task would never start there
    assert cpus_for(Node("n", "a", 8.0)) == 1.0


def test_spread_groups_nodes_by_model_leader_first():
    other_driver = listed(NVIDIA)
    other_driver = NodeDevice(0, other_driver.label, other_driver.vendor, other_driver.model,
                              other_driver.exact.replace("driver 550", "driver 999"))
    found = [NodeDevices(node(0), (listed(AMD),)),
             NodeDevices(node(1), (listed(NVIDIA), listed(NVIDIA, 1))),  # one counts
             NodeDevices(node(2), (other_driver,)),
             NodeDevices(node(3), (listed(NVIDIA),))]
    targets = plan(found, "exact")
    groups, plain = plan_groups(found, targets, "exact")
    assert [t.fingerprint.split(" | ")[0] for t in plain] == ["AMD"]  # one node: no group
    (group,) = groups
    assert group.model == other_driver.model and len(group.targets) == 2  # two drivers
    assert [m.rank for m in group.members] == [0, 1, 2]
    assert sorted(m.node.node_id for m in group.members) == sorted(
        node(n).node_id for n in (1, 2, 3))
    first_target = next(t for t in targets if t in group.targets)
    assert group.leader.node == first_target.places[0][0]  # where a plain warm would run
    holders = {t.fingerprint: [m.rank for m in group.members if m.holds(t, "exact")]
               for t in group.targets}
    assert sorted(len(h) for h in holders.values()) == [1, 2]
    role = group.role(group.members[1], "ledger-x", 5.0)
    assert role == {"ledger": "ledger-x", "rank": 1, "nodes": 3,
                    "node": group.members[1].node.name, "timeout_s": 5.0}


def test_spread_report_renders_each_nodes_share():
    payload = FleetReport("m:f", "o", "exact", [TargetReport("a", "dev a", status=Status.OK)],
                          written=True, spread=True, groups=[{
                              "model": "m", "leader": "n0", "configs": 8, "nodes": [
                                  {"node": "n0", "configs": 6, "took_over": 1, "reraced": 1,
                                   "status": "ok"},
                                  {"node": "n1", "configs": 2, "took_over": 0, "reraced": 0,
                                   "status": "failed: exit status 7"}]}]).as_dict()
    text = fleet_warm_text(payload)
    assert "spread over 2 nodes (8 configs measured; finalists re-raced on n0)" in text
    assert "n0: 6 configs, took over 1 share(s), ok" in text
    assert "n1: 2 configs, failed: exit status 7" in text
