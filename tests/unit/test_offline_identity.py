"""Offline identities and where their binaries fit (`clmodes.offline`): pure functions,
tested with recorded Intel GPUs (tests/fixtures/devices) this machine does not have.

- an offline identity is a parseable exact string that no real device's fingerprint can
  be, and no real fingerprint (recorded, local, or made of any text) parses as one;
- a binary built for a family fits a device only if the device's PCI ID is of that
  family and its driver is the compiler's release (exact) or newer (graded);
- a bundle's matching and import follow that: re-keyed to the fitting device, a
  newer-driver fit only through the load check.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clmodes
from clmodes import bundle
from clmodes.device import DeviceDescription, Fingerprint, ask_intel_device_id, fingerprint_fields, model_of
from clmodes.offline.families import FAMILIES, family_named, family_of
from clmodes.offline.fit import Fit, device_id_of, fit
from clmodes.offline.identity import OfflineIdentity, is_offline, parse
from clmodes.offline.targets import TargetError, parse_targets
from clmodes.store import Store, StoreEntries

from support.bundles import fixture_device, public
from support.recorded_devices import ALL

COMPILER = "22.43.24595"  # Debian bookworm's intel-opencl-icd 22.43.24595.41: `ocloc query`
TGLLP = OfflineIdentity(family_named("tgllp"), COMPILER)
ADL_S = OfflineIdentity(family_named("adl-s"), COMPILER)
ACM_G10 = OfflineIdentity(family_named("acm-g10"), COMPILER)


def test_identity_round_trips_and_splits_like_a_fingerprint():
    for identity in (TGLLP, ACM_G10):
        assert parse(identity.exact) == identity
        assert model_of(identity.exact) == identity.model
        fields = fingerprint_fields(identity.exact)
        assert fields["vendor"] == "Intel" and fields["compute_units"] == "offline"
        assert is_offline(identity.exact) and is_offline(identity.model)
    assert "not loaded on a real device here" in TGLLP.describe()
    assert f"ocloc {COMPILER} for tgllp" in TGLLP.describe()


@pytest.mark.parametrize("text", [
    TGLLP.exact.replace("tgllp", "nosuchgpu"),  # a family this clmodes does not know
    TGLLP.exact.replace(f"| ocloc {COMPILER}", "| ocloc 22.43.1"),  # two versions disagree
    TGLLP.exact + " ",
    TGLLP.model,
    "",
])
def test_parse_refuses_anything_else(text):
    assert parse(text) is None


def test_no_recorded_or_local_fingerprint_is_offline():
    real = [Fingerprint.of(d) for d in ALL.values()] + [d.fingerprint for d in clmodes.devices()]
    offline = [OfflineIdentity(f, COMPILER) for f in FAMILIES.values()]
    for fingerprint in real:
        assert parse(fingerprint.exact) is None and not is_offline(fingerprint.exact)
        assert not is_offline(fingerprint.model)
        for identity in offline:
            assert identity.exact != fingerprint.exact and identity.model != fingerprint.model


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=40), units=st.integers(0, 10**6), memory=st.integers(0, 2**50),
       kind=st.sampled_from([None, "GPU", "CPU", "ACCELERATOR"]))
def test_a_fingerprint_of_any_text_is_never_offline(text, units, memory, kind):
    """Whatever a driver reports (even the word "offline" everywhere), its fingerprint's
    compute-units field is `<integer>CU`: never an offline identity."""
    d = DeviceDescription(text, text, "Intel " + text, f"offline intel-gpu:tgllp{text}", units,
                          memory, text, f"ocloc {COMPILER}", None, kind)
    exact = Fingerprint.of(d).exact
    assert parse(exact) is None and not is_offline(exact)


def test_every_device_id_is_in_one_family():
    seen: dict[int, str] = {}
    for family in FAMILIES.values():
        for device_id in family.device_ids:
            assert device_id not in seen, f"0x{device_id:04x} in {seen.get(device_id)} and {family.name}"
            seen[device_id] = family.name
    assert family_of(0x9A49).name == "tgllp" and family_of(0x56A0).name == "acm-g10"
    assert family_of(0x1234) is None
    with pytest.raises(KeyError, match="unknown Intel GPU family 'gen99'"):
        family_named("gen99")


def newer(name: str, driver: str = "23.17.26241.33", **fields) -> DeviceDescription:
    return dataclasses.replace(ALL[name], driver_version=driver, **fields)


def test_fit_with_recorded_intel_gpus():
    tgl, uhd770, arc = ALL["intel-iris-xe-tgl-22.43"], ALL["intel-uhd770-rpls-22.43"], ALL["intel-arc-a770"]
    assert device_id_of(tgl) == 0x9A49 and device_id_of(uhd770) == 0xA780
    # The compiler's own release: with its hotfix number (22.43.24595.41) or without.
    assert fit(TGLLP, tgl).fit is Fit.EXACT
    assert fit(ADL_S, uhd770).fit is Fit.EXACT
    # The wrong family, either way.
    assert fit(TGLLP, uhd770).fit is None and "not of family tgllp" in fit(TGLLP, uhd770).reason
    assert fit(ADL_S, tgl).fit is None
    # A newer driver is graded; an older one never fits.
    assert fit(TGLLP, newer("intel-iris-xe-tgl-22.43")).fit is Fit.NEWER
    older = fit(TGLLP, newer("intel-iris-xe-tgl-22.43", "22.35.24055"))
    assert older.fit is None and "older than ocloc" in older.reason
    # A recent driver names the Arc A770 without its ID: unknown unless the driver tells it.
    assert fit(ACM_G10, arc).fit is None and "device ID" in fit(ACM_G10, arc).reason
    assert fit(ACM_G10, dataclasses.replace(arc, device_id=0x56A0)).fit is Fit.NEWER
    assert fit(ACM_G10, dataclasses.replace(arc, device_id=0x56A5)).fit is None  # an A380: G11
    # Not Intel GPUs at all.
    for name in ("intel-cpu-runtime-xeon-8272cl", "nvidia-rtx4090-550", "pocl-amd-epyc"):
        assert fit(TGLLP, ALL[name]).fit is None


def offline_store(tmp_path, identity: OfflineIdentity, blob: bytes = b"an ocloc binary") -> Store:
    store = Store(tmp_path / "made")
    store.put_binary(identity.exact, "batch-1", ["unit-1"], blob, [("kernel-1", "k", None)])
    return store


def test_bundle_matches_offline_binaries_to_the_device_they_fit(tmp_path, signing_key):
    store = offline_store(tmp_path, TGLLP)
    manifest = bundle.export(tmp_path / "b.clmodes", store=store, sign=signing_key)
    assert [d["model"] for d in manifest["devices"]] == [TGLLP.model]
    here = [fixture_device("intel-uhd770-rpls-22.43", 0), fixture_device("intel-iris-xe-tgl-22.43", 1)]
    (match,) = bundle.match_devices(manifest, here)
    assert (match.match, match.local, match.grade) == ("offline", here[1], "exact")
    (nothing,) = bundle.match_devices(manifest, here[:1])
    assert nothing.match == "none" and "not of family tgllp" in nothing.differs[0]
    report = bundle.inspect(tmp_path / "b.clmodes", local=here, trusted_keys=[public(signing_key)])
    assert report["offline"][0]["note"] == TGLLP.describe()


def test_import_rekeys_offline_binaries_to_the_fitting_device(tmp_path, signing_key):
    store = offline_store(tmp_path, TGLLP)
    bundle.export(tmp_path / "b.clmodes", store=store, sign=signing_key)
    tgl = fixture_device("intel-iris-xe-tgl-22.43")
    target = Store(tmp_path / "target")
    report = bundle.install(tmp_path / "b.clmodes", target, local=[tgl],
                            trusted_keys=[public(signing_key)])
    assert report["added"] == {"tune": 0, "binaries": 1, "kernels": 1}
    assert report["devices"][0]["binaries"] == {"in_bundle": 1, "added": 1, "used": True}
    assert target.get_binary(tgl.fingerprint.exact, "batch-1") == (b"an ocloc binary", ["unit-1"])
    assert target.kernel_batches(tgl.fingerprint.exact, ["kernel-1"]) == {"kernel-1": "batch-1"}
    assert target.entries().binaries[0].exact == tgl.fingerprint.exact  # never the offline identity


def test_a_newer_driver_gets_offline_binaries_only_through_the_load_check(tmp_path, signing_key):
    """Graded: a device that cannot be loaded on here (a recorded one), or an import
    without the load check, refuses them."""
    store = offline_store(tmp_path, TGLLP)
    bundle.export(tmp_path / "b.clmodes", store=store, sign=signing_key)
    later = fixture_device("intel-iris-xe-tgl-22.43")
    later = dataclasses.replace(later, description=newer("intel-iris-xe-tgl-22.43"))
    for load_check in (True, False):
        target = Store(tmp_path / f"target-{load_check}")
        report = bundle.install(tmp_path / "b.clmodes", target, local=[later], load_check=load_check,
                                trusted_keys=[public(signing_key)])
        assert report["devices"][0]["grade"] == "newer"
        assert report["added"]["binaries"] == 0 and len(report["refused"]) == 1
        assert "only the load check admits it" in report["refused"][0]["reason"]
        assert target.entries() == StoreEntries.empty()


def test_offline_binaries_need_a_trusted_signature(tmp_path):
    store = offline_store(tmp_path, TGLLP)
    bundle.export(tmp_path / "b.clmodes", store=store)
    with pytest.raises(bundle.BundleError, match="binaries"):
        bundle.install(tmp_path / "b.clmodes", Store(tmp_path / "t"),
                       local=[fixture_device("intel-iris-xe-tgl-22.43")])
    assert json.loads(json.dumps(bundle.inspect(tmp_path / "b.clmodes", local=[])["offline"]))


def test_targets_parse_to_families_or_one_line():
    assert [f.name for f in parse_targets(["intel-gpu:tgllp,acm-g10", "intel-gpu:tgllp"])] == [
        "tgllp", "acm-g10"]
    for bad, said in [("intel-gpu:gen99", "unknown Intel GPU family 'gen99'"),
                      ("nvidia:sm_80", "expected intel-gpu:FAMILY"), ("intel-gpu:", "expected")]:
        with pytest.raises(TargetError, match=said) as caught:
            parse_targets([bad])
        assert "\n" not in str(caught.value)


def test_the_intel_device_id_is_asked_only_where_the_driver_answers_it():
    """CL_DEVICE_ID_INTEL, asked through the ICD loader (pyopencl has no name for it), of
    the drivers with cl_intel_device_attribute_query only: Intel's CPU runtime here
    answers (its CPU's ID, no GPU family's), the others are never asked; a device's
    description holds it for a GPU only (no GPU here: None everywhere)."""
    for device in clmodes.devices():
        asked = ask_intel_device_id(device.cl_device)
        if "cl_intel_device_attribute_query" in device.cl_device.extensions:
            assert isinstance(asked, int) and asked > 0
            assert fit(TGLLP, device.description).reason.startswith("not an Intel GPU")
        else:
            assert asked is None
        assert device.description.device_id is None


def test_the_command_says_how_an_offline_build_applies(tmp_path, signing_key):
    """`bundle import`/`inspect` text for a device an offline build fits, and `warm
    --target`'s report line: honest about where it was built and loaded."""
    from clmodes.cli.render import bundle_import_text, bundle_inspect_text, warm_text

    store = offline_store(tmp_path, TGLLP)
    bundle.export(tmp_path / "b.clmodes", store=store, sign=signing_key)
    tgl = fixture_device("intel-iris-xe-tgl-22.43")
    imported = bundle.install(tmp_path / "b.clmodes", Store(tmp_path / "t"), local=[tgl],
                              trusted_keys=[public(signing_key)])
    text = bundle_import_text(imported)
    assert f"built offline, fits {tgl.label} (exact driver)" in text
    assert "program binaries: 1 of 1 added" in text and "tune results" not in text
    inspected = bundle_inspect_text(bundle.inspect(tmp_path / "b.clmodes", local=[]))
    assert f"1 binaries {TGLLP.describe()}" in inspected
    assert "no match here (no Intel GPU of family tgllp here): skipped" in inspected
    report = {"workload": "w:f", "devices": ["d"], "seconds": 1.0, "store": "s",
              "compilation": {"compiled": 1, "loaded": 0, "builds": 1}, "autotune": {"keys": 0},
              "offline": {"batches": 1, "compiler_version": COMPILER, "families": ["tgllp"],
                          "binaries": 1, "offline_s": 0.5, "local_warm_s": 1.0,
                          "refused": ["ocloc refused batch x (k) for tgllp: why"]}}
    line = warm_text(report)
    assert "built offline, not loaded on a real device here" in line
    assert "offline: ocloc refused batch x (k) for tgllp: why" in line


def test_merge_carries_offline_builds_of_several_families(tmp_path, signing_key):
    bundle.export(tmp_path / "tgl.clmodes", store=offline_store(tmp_path / "a", TGLLP, b"gen12lp"))
    bundle.export(tmp_path / "acm.clmodes", store=offline_store(tmp_path / "b", ACM_G10, b"xe-hpg"))
    bundle.merge(tmp_path / "all.clmodes", [tmp_path / "tgl.clmodes", tmp_path / "acm.clmodes"],
                 sign=signing_key)
    merged = bundle.read(tmp_path / "all.clmodes")
    assert {(r.exact, r.binary) for r in merged.entries.binaries} == {
        (TGLLP.exact, b"gen12lp"), (ACM_G10.exact, b"xe-hpg")}
    report = bundle.inspect(tmp_path / "all.clmodes", local=[], trusted_keys=[public(signing_key)])
    assert report["trust"]["trusted"]
    assert sorted(x["family"] for x in report["offline"]) == ["acm-g10", "tgllp"]
