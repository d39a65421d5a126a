"""Nearest-device grading (`clmodes.tune.answers.nearest`) on the recorded fingerprints
(tests/fixtures/devices): family, vendor, across, and the config best across devices."""

from __future__ import annotations

import dataclasses

import pytest

from clmodes import Fingerprint
from clmodes.records.tune import TuneRecord
from clmodes.tune.answers.nearest import Grade, best_across, family_of, grade_of, nearest
from support.recorded_devices import ALL, fp


def model(recorded: str, **changes) -> str:
    """A recorded device's model fingerprint, with fields changed (another SKU)."""
    return Fingerprint.of(dataclasses.replace(ALL[recorded], **changes)).model


XTX = fp("amd-rx7900xtx-rocm-3602").model
XT = model("amd-rx7900xtx-rocm-3602", board_name="AMD Radeon RX 7900 XT", compute_units=42,
           global_mem_size=20 * 2**30)
H200 = fp("nvidia-h200").model
H200_NVL = model("nvidia-h200", name="NVIDIA H200 NVL", global_mem_size=141 * 2**30)
RTX4090 = fp("nvidia-rtx4090-550").model
ARC = fp("intel-arc-a770").model
XEON = fp("intel-cpu-runtime-xeon-8272cl").model
EPYC_INTEL = fp("intel-cpu-runtime-epyc-7763").model
M680 = fp("amd-radeon-680m-gfx1035").model
M780 = fp("amd-radeon-780m-gfx1103").model


def test_two_drivers_of_one_model_are_exact():
    assert fp("nvidia-rtx4090-535").model == RTX4090
    assert grade_of(RTX4090, fp("nvidia-rtx4090-535").model) is Grade.EXACT


@pytest.mark.parametrize("here, there, grade", [
    (XT, XTX, Grade.FAMILY),            # one ISA target (gfx1100), other CUs and memory
    (H200_NVL, H200, Grade.FAMILY),     # one name stem, other memory
    (RTX4090, H200, Grade.VENDOR),      # NVIDIA, another architecture
    (M780, M680, Grade.VENDOR),         # same marketing name, other ISA target
    (M780, XTX, Grade.VENDOR),          # gfx1103 is not gfx1100
    (XEON, EPYC_INTEL, Grade.VENDOR),   # Intel's CPU runtime on two CPUs
    (ARC, XEON, None),                  # Intel, but a GPU never follows a CPU
    (XEON, ARC, None),
    (RTX4090, XTX, None),               # another vendor: only across
])
def test_grades_of_recorded_devices(here, there, grade):
    assert grade_of(here, there) is grade


def test_families_name_the_architecture():
    assert family_of(XTX) == ("AMD", "gfx1100")
    assert family_of(H200_NVL) == family_of(H200) == ("NVIDIA", "NVIDIA H200")
    assert family_of("NVIDIA | NVIDIA H100 80GB HBM3 | 132CU | 80GiB | OpenCL 3.0") == \
        family_of("NVIDIA | NVIDIA H100 PCIe | 114CU | 80GiB | OpenCL 3.0")


def raw(**medians: float) -> dict:
    """A decision's JSON: the fastest wins."""
    ranked = sorted(medians, key=medians.get)
    return {"winner": ranked[0], "measurements": {n: {"median_s": medians[n]} for n in ranked}}


def record(**medians: float) -> TuneRecord:
    return TuneRecord.from_json(raw(**medians))


def test_nearest_orders_family_then_vendor_then_across():
    stored = {H200: record(a=1, b=2), XTX: record(b=1, a=3), RTX4090: record(c=1, a=2)}
    answers = nearest(H200_NVL, stored)
    assert [(a.grade, a.sources) for a in answers[:2]] == [
        (Grade.FAMILY, (H200,)), (Grade.VENDOR, (RTX4090,))]
    assert answers[-1].grade is Grade.ACROSS
    assert answers[0].as_record().grade == "family"
    assert answers[0].as_record().graded_from == (H200,)
    # another vendor only: the across answer
    (only,) = nearest(ARC, {XTX: record(b=1, a=3), RTX4090: record(c=1, a=2)})
    assert only.grade is Grade.ACROSS


def test_vendor_answers_nearest_compute_units_first():
    near = model("nvidia-h200", name="NVIDIA L40", compute_units=126)  # 2 CUs from 128
    answers = nearest(RTX4090, {H200: record(a=1), near: record(b=1)})  # H200: 4 CUs
    assert [a.sources for a in answers if a.grade is Grade.VENDOR] == [(near,), (H200,)]


def test_best_across_is_the_lowest_geometric_mean_slowdown():
    # a wins on two devices by a hair and loses 4x on the third; b is 1.1x everywhere
    stored = {XTX: record(a=1.0, b=1.1), H200: record(a=1.0, b=1.1), ARC: record(b=1.0, a=4.0)}
    answer = best_across(stored)
    assert answer.record.winner == "b"
    assert list(answer.record.measurements)[:2] == ["b", "a"]  # the runner-up second
    assert answer.sources == tuple(sorted(stored))
    # a candidate measured on fewer devices does not win on a better average
    assert best_across({XTX: record(a=1.0, c=0.5), H200: record(a=1.0)}).record.winner == "a"


def test_a_cpu_is_answered_across_cpus_first():
    stored = {XTX: record(g=1, c=2), EPYC_INTEL.replace("Intel |", "PoCL |"): record(c=1, g=2)}
    (answer,) = nearest(XEON, stored)
    assert answer.grade is Grade.ACROSS and answer.record.winner == "c"


def test_bundle_inspect_names_the_grade_each_local_device_gets():
    import types

    from clmodes.bundle.inspecting import answers_here
    from clmodes.store import Store

    store = Store(None)
    store.put_tune_json(H200, "mm", "{}", "c", raw(a=1))
    store.put_tune_json(XTX, "mm", "{}", "c", {**raw(a=1), "grade": "vendor"})
    local = [types.SimpleNamespace(label=label, fingerprint=types.SimpleNamespace(model=m))
             for label, m in (("nvl", H200_NVL), ("xt", XT), ("arc", ARC))]
    answers = {a["local_device"]: a for a in answers_here(store.entries(), local)}
    assert (answers["nvl"]["grade"], answers["nvl"]["from"]) == ("family", [H200])
    assert (answers["xt"]["grade"], answers["xt"]["graded_records"]) == ("family", 1)
    assert answers["arc"]["grade"] == "across" and answers["arc"]["from"] == sorted([H200, XTX])
