"""Fingerprints of recorded devices (tests/fixtures/devices/*.json) and of the local ones.

Each fixture is one device as `clinfo` shows it: the fields of `DeviceDescription`, plus a
"source" saying where the values come from (keys that are not fields are ignored).
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from clmodes import DeviceDescription, Fingerprint
from clmodes.device import normalize_vendor
from support.recorded_devices import ALL, FIELD_NAMES, FIXTURES, fp

REQUIRED = {f.name for f in dataclasses.fields(DeviceDescription)
            if f.default is dataclasses.MISSING}


# The model string of every fixture. These strings key stored tune results: a change here
# orphans every store, so it must be deliberate (and bump the store's format version).
MODELS = {
    "amd-radeon-680m-gfx1035": "AMD | AMD Radeon Graphics (gfx1035) | 6CU | 8GiB | OpenCL 2.0",
    "amd-radeon-780m-gfx1103": "AMD | AMD Radeon Graphics (gfx1103) | 6CU | 8GiB | OpenCL 2.0",
    "amd-rx7900xtx-rocm-3602": "AMD | AMD Radeon RX 7900 XTX (gfx1100) | 48CU | 24GiB | OpenCL 2.0",
    "amd-rx7900xtx-rocm-3635": "AMD | AMD Radeon RX 7900 XTX (gfx1100) | 48CU | 24GiB | OpenCL 2.0",
    "intel-arc-a770": "Intel | Intel(R) Arc(TM) A770 Graphics | 512CU | 15GiB | OpenCL 3.0",
    "intel-iris-xe-tgl-22.43": "Intel | Intel(R) Iris(R) Xe Graphics [0x9a49] | 96CU | 12GiB | OpenCL 3.0",
    "intel-uhd770-rpls-22.43": "Intel | Intel(R) Graphics [0xa780] | 32CU | 25GiB | OpenCL 3.0",
    "intel-cpu-runtime-epyc-7763":
        "Intel | AMD EPYC 7763 64-Core Processor | 4CU | host memory | OpenCL 3.0",
    "intel-cpu-runtime-xeon-8272cl":
        "Intel | Intel(R) Xeon(R) Platinum 8272CL CPU @ 2.60GHz | 2CU | host memory | OpenCL 3.0",
    "nvidia-h200": "NVIDIA | NVIDIA H200 | 132CU | 140GiB | OpenCL 3.0",
    "nvidia-rtx4090-535": "NVIDIA | NVIDIA GeForce RTX 4090 | 128CU | 24GiB | OpenCL 3.0",
    "nvidia-rtx4090-550": "NVIDIA | NVIDIA GeForce RTX 4090 | 128CU | 24GiB | OpenCL 3.0",
    "oclgrind": "Oclgrind | Oclgrind Simulator | 1CU | 128MiB | OpenCL 1.2",
    "pocl-amd-epyc": "PoCL | pthread-AMD EPYC | 2CU | host memory | OpenCL 3.0",
}

VENDORS = {name: model.split(" | ")[0] for name, model in MODELS.items()}

# The same board under two drivers.
SAME_MODEL = [
    ("amd-rx7900xtx-rocm-3602", "amd-rx7900xtx-rocm-3635"),
    ("nvidia-rtx4090-535", "nvidia-rtx4090-550"),
]


def test_every_fixture_is_a_full_description_with_a_source():
    assert len(ALL) >= 9
    for path in sorted(FIXTURES.glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        assert REQUIRED <= raw.keys(), f"{path.name} lacks {REQUIRED - raw.keys()}"
        assert "board_name" in raw, f"{path.name}: write board_name (null where there is none)"
        assert raw.get("source"), f"{path.name}: say where the values come from"
        assert isinstance(raw["compute_units"], int) and isinstance(raw["global_mem_size"], int)


def test_every_fixture_has_an_expected_model():
    assert sorted(MODELS) == sorted(ALL), "add the new fixture's model to MODELS"


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_strings(name):
    assert fp(name).model == MODELS[name]


@pytest.mark.parametrize("name", sorted(VENDORS))
def test_vendor_is_normalized(name):
    assert fp(name).vendor == VENDORS[name]
    assert fp(name).fields()["vendor"] == VENDORS[name]


def test_vendors_cover_the_runtimes():
    assert set(VENDORS.values()) == {"AMD", "Intel", "NVIDIA", "PoCL", "Oclgrind"}


@pytest.mark.parametrize(
    "platform, vendor, expected",
    [
        ("AMD Accelerated Parallel Processing", "Advanced Micro Devices, Inc.", "AMD"),
        ("AMD Accelerated Parallel Processing", "AuthenticAMD", "AMD"),  # AMD's old CPU runtime
        ("Intel(R) OpenCL Graphics", "Intel(R) Corporation", "Intel"),
        ("Intel(R) OpenCL", "Intel(R) Corporation", "Intel"),
        ("Intel(R) OpenCL HD Graphics", "Intel(R) Corporation", "Intel"),
        ("NVIDIA CUDA", "NVIDIA Corporation", "NVIDIA"),
        # PoCL names itself whatever it runs on: the CPU maker, or a GPU through its CUDA driver.
        ("Portable Computing Language", "AuthenticAMD", "PoCL"),
        ("Portable Computing Language", "GenuineIntel", "PoCL"),
        ("Portable Computing Language", "NVIDIA Corporation", "PoCL"),
        ("Oclgrind", "University of Bristol", "Oclgrind"),
        ("Apple", "Apple", "Apple"),
        ("ARM Platform", "ARM", "ARM"),
        ("QUALCOMM Snapdragon(TM)", "QUALCOMM", "Qualcomm"),
        ("Some Platform", "  Some   Vendor\tInc. ", "Some Vendor Inc."),
        ("Some Platform", "", "unknown"),
    ],
)
def test_normalize_vendor(platform, vendor, expected):
    assert normalize_vendor(platform, vendor) == expected


def test_amd_is_named_by_its_board_not_its_gfx_target():
    for name in ("amd-rx7900xtx-rocm-3602", "amd-rx7900xtx-rocm-3635"):
        device_name = fp(name).fields()["name"]
        assert device_name.startswith("AMD Radeon RX 7900 XTX")
        assert device_name != "gfx1100"


def test_amd_without_a_board_name_falls_back_to_the_device_name():
    description = dataclasses.replace(ALL["amd-rx7900xtx-rocm-3602"], board_name=None)
    assert Fingerprint.of(description).fields()["name"] == "gfx1100"
    blank = dataclasses.replace(ALL["amd-rx7900xtx-rocm-3602"], board_name="  ")
    assert Fingerprint.of(blank).fields()["name"] == "gfx1100"


def test_a_generic_board_name_does_not_merge_different_targets():
    """AMD APUs all say "AMD Radeon Graphics"; a gfx1035 binary must not go to a gfx1103."""
    a, b = fp("amd-radeon-680m-gfx1035"), fp("amd-radeon-780m-gfx1103")
    assert a.model != b.model
    assert a.exact != b.exact
    assert {k for k in FIELD_NAMES if a.fields()[k] != b.fields()[k]} == {"name"}


@pytest.mark.parametrize("first, second", SAME_MODEL)
def test_same_model_other_driver(first, second):
    a, b = fp(first), fp(second)
    assert a.model == b.model
    assert a.exact != b.exact
    differing = {k for k in FIELD_NAMES if a.fields()[k] != b.fields()[k]}
    assert "driver" in differing
    assert differing <= {"driver", "platform"}


def test_drivers_reporting_slightly_different_memory_share_the_model():
    a, b = ALL["nvidia-rtx4090-535"], ALL["nvidia-rtx4090-550"]
    assert a.global_mem_size != b.global_mem_size
    assert fp("nvidia-rtx4090-535").fields()["memory"] == "24GiB"
    assert fp("nvidia-rtx4090-550").fields()["memory"] == "24GiB"


def test_different_models_differ():
    same = {frozenset(pair) for pair in SAME_MODEL}
    names = sorted(ALL)
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            if frozenset((first, second)) in same:
                continue
            assert fp(first).model != fp(second).model, (first, second)
    assert len({fp(n).exact for n in names}) == len(names)


def test_one_model_field_changes_the_model():
    base = ALL["nvidia-h200"]
    for change in (
        {"name": "NVIDIA H100 80GB HBM3"},
        {"compute_units": 114},
        {"global_mem_size": 80 * 2**30},
        {"version": "OpenCL 1.2 CUDA"},
        {"vendor": "Advanced Micro Devices, Inc.", "platform_name": "AMD Accelerated Parallel Processing"},
    ):
        other = Fingerprint.of(dataclasses.replace(base, **change))
        assert other.model != fp("nvidia-h200").model, change


@pytest.mark.parametrize("name", sorted(MODELS))
def test_fields_name_every_part_of_exact(name):
    f = fp(name)
    parts = f.fields()
    assert list(parts) == FIELD_NAMES
    assert " | ".join(parts.values()) == f.exact
    assert f.exact.startswith(f.model + " | ")
    assert parts["driver"] == f"driver {' '.join(ALL[name].driver_version.split())}"


@pytest.mark.parametrize("name", sorted(MODELS))
def test_fingerprints_are_whitespace_normalized(name):
    f = fp(name)
    for key, value in f.fields().items():
        assert value == " ".join(value.split()), (key, value)
        assert value, key


def test_padding_does_not_change_a_fingerprint():
    d = ALL["pocl-amd-epyc"]
    assert "  " in d.platform_version  # as the runtime reports it
    assert "PoCL 3.0-rc2 Linux," in fp("pocl-amd-epyc").fields()["platform"]
    padded = DeviceDescription(**{
        k: (f"  {v.replace(' ', '   ')}\t " if isinstance(v, str) else v)
        for k, v in dataclasses.asdict(d).items()
    })
    assert Fingerprint.of(padded) == fp("pocl-amd-epyc")
    # a padded name, as Intel's CPU runtime reports it
    assert ALL["intel-cpu-runtime-epyc-7763"].name.endswith("  ")
    assert fp("intel-cpu-runtime-epyc-7763").fields()["name"] == "AMD EPYC 7763 64-Core Processor"


def test_a_field_separator_inside_a_value_cannot_shift_the_fields():
    d = dataclasses.replace(ALL["oclgrind"], name="Odd | Device", platform_version="v | 2")
    parts = Fingerprint.of(d).fields()
    assert list(parts) == FIELD_NAMES
    assert parts["name"] == "Odd / Device"
    assert parts["platform"] == "v / 2"
    assert parts["compute_units"] == "1CU"


def test_opencl_version_drops_the_vendor_suffix():
    assert fp("nvidia-h200").fields()["opencl"] == "OpenCL 3.0"
    assert fp("oclgrind").fields()["opencl"] == "OpenCL 1.2"
    assert fp("amd-rx7900xtx-rocm-3602").fields()["opencl"] == "OpenCL 2.0"
    odd = dataclasses.replace(ALL["oclgrind"], version="  Custom  1.0 ")
    assert Fingerprint.of(odd).fields()["opencl"] == "Custom 1.0"


def test_memory_labels():
    def label(size: int) -> str:
        return Fingerprint.of(dataclasses.replace(ALL["oclgrind"], global_mem_size=size)).fields()["memory"]

    assert label(128 * 2**20) == "128MiB"
    assert label(2**30 - 1) == "1023MiB"
    assert label(2**30) == "1GiB"
    assert label(5 * 2**29) == "3GiB"  # 2.5 GiB: half up, on every Python
    assert label(7 * 2**29) == "4GiB"
    assert fp("nvidia-h200").fields()["memory"] == "140GiB"


@pytest.mark.parametrize("name", sorted(MODELS))
def test_fingerprints_hold_no_object_reprs(name):
    f = fp(name)
    for text in (f.vendor, f.model, f.exact):
        assert isinstance(text, str)
        assert " object at " not in text and "<" not in text, text


# ---- the devices of this machine ----------------------------------------------------------


