"""Cache bundles: export, import, inspect, merge; bad bundles leave the store untouched."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clmodes import bundle
from clmodes.bundle import BundleError
from clmodes.store import Store, StoreEntries

from support.bundles import assert_rejected, fill, fixture_device, public, snapshot
from support.bundles import rewrite_manifest as _rewrite_manifest


def test_round_trip_applies_exact_device(small_bundle, tmp_path, target, signing_key):
    path = tmp_path / "b.clmodes"
    path.write_bytes(small_bundle)
    nvidia = fixture_device("nvidia-rtx4090-550")
    report = bundle.install(path, target, local=[nvidia], trusted_keys=[public(signing_key)])
    assert report["trust"]["trusted"] and report["warnings"] == []
    by_match = {d["match"]: d for d in report["devices"]}
    assert by_match["exact"]["local_device"] == nvidia.label
    assert by_match["exact"]["tune"]["added"] == 2 and by_match["exact"]["binaries"]["added"] == 1
    assert by_match["none"]["model"].startswith("AMD")
    assert "vendor" in by_match["none"]["differs"]
    assert report["added"] == {"tune": 2, "binaries": 1, "kernels": 1}
    assert target.get_tune_json(nvidia.fingerprint.model, "op", json.dumps({"n": 1}), "c0")["winner"] == "w1"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_truncated_bundles_are_rejected(small_bundle, tmp_path, target, signing_key, data):
    length = data.draw(st.integers(0, len(small_bundle) - 1))
    assert_rejected(small_bundle[:length], tmp_path, target, trusted=[public(signing_key)])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_flipped_bytes_are_rejected(small_bundle, tmp_path, target, signing_key, data):
    """One flipped byte anywhere in a signed bundle, its signature block included, even
    with its signer trusted and unsigned bundles allowed."""
    position = data.draw(st.integers(0, len(small_bundle) - 1))
    flip = data.draw(st.integers(1, 255))
    damaged = bytearray(small_bundle)
    damaged[position] ^= flip
    assert_rejected(bytes(damaged), tmp_path, target, trusted=[public(signing_key)],
                    allow_unsigned=True)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(["clmodes", "created", "counts", "devices", "payload_bytes", "format"]),
       value=st.one_of(st.integers(-5, 10**6), st.text(max_size=20), st.none()))
def test_altered_manifest_is_rejected(small_bundle, tmp_path, target, field, value):
    altered = _rewrite_manifest(small_bundle, lambda m: m.__setitem__(field, value))
    if altered == small_bundle:
        return
    assert_rejected(altered, tmp_path, target)


def test_newer_schema_is_named(small_bundle, tmp_path, target):
    def newer(manifest):
        manifest["schema"] = 99  # the old checksum no longer matches: schema is checked first

    with pytest.raises(BundleError, match="schema 99 is newer"):
        path = tmp_path / "new.clmodes"
        path.write_bytes(_rewrite_manifest(small_bundle, newer))
        bundle.install(path, target)


def test_json_whitespace_change_is_rejected(small_bundle, tmp_path, target):
    """Found by hypothesis: a space flipped into a tab parses to the same manifest."""
    position = small_bundle.index(b", ", len(bundle.MAGIC))
    damaged = bytearray(small_bundle)
    damaged[position + 1] ^= 41  # " " -> "\t"
    assert_rejected(bytes(damaged), tmp_path, target)


def test_not_a_bundle(tmp_path, target):
    assert_rejected(b"SQLite format 3\x00" + bytes(100), tmp_path, target)
    assert_rejected(b"", tmp_path, target)


def test_entries_that_do_not_parse_are_rejected(tmp_path, target):
    path = tmp_path / "unparsable.clmodes"
    entries = StoreEntries(
        tune=[(1, "NVIDIA | x | 1CU | 1GiB | OpenCL 3.0", "op", "1", "c", "{not json")],
        binaries=[], kernels=[])
    bundle._write(path, entries)  # a valid container around an invalid entry
    before = snapshot(target)
    with pytest.raises(BundleError, match="does not parse"):
        bundle.install(path, target)
    assert snapshot(target) == before


def test_local_entries_win(tmp_path):
    nvidia = fixture_device("nvidia-rtx4090-550")
    source, local = Store(tmp_path / "source"), Store(tmp_path / "local")
    fill(source, nvidia)
    local.put_tune_json(nvidia.fingerprint.model, "op", json.dumps({"n": 1}), "c0", {"winner": "mine"})
    bundle.export(tmp_path / "b.clmodes", store=source)
    report = bundle.install(tmp_path / "b.clmodes", local, local=[nvidia], allow_unsigned=True)
    assert report["added"]["tune"] == 1  # key 2 only
    assert local.get_tune_json(nvidia.fingerprint.model, "op", json.dumps({"n": 1}), "c0")["winner"] == "mine"


def test_driver_change_keeps_tunes_drops_binaries(tmp_path):
    made_on = fixture_device("nvidia-rtx4090-535")
    here = fixture_device("nvidia-rtx4090-550")
    source, local = Store(tmp_path / "source"), Store(tmp_path / "local")
    fill(source, made_on)
    bundle.export(tmp_path / "b.clmodes", store=source)
    inspected = bundle.inspect(tmp_path / "b.clmodes", local=[here])
    (match,) = inspected["matches"]
    assert match["match"] == "model" and "driver" in match["differs"]
    report = bundle.install(tmp_path / "b.clmodes", local, local=[here], allow_unsigned=True)
    assert report["added"] == {"tune": 2, "binaries": 0, "kernels": 0}
    assert local.count("binaries") == 0


def test_merge_multi_vendor_keeps_every_entry_once(tmp_path):
    machines = {
        "amd": fixture_device("amd-rx7900xtx-rocm-3602"),
        "intel": fixture_device("intel-arc-a770"),
        "nvidia": fixture_device("nvidia-rtx4090-550"),
    }
    paths = []
    for name, device in machines.items():
        store = Store(tmp_path / name)
        fill(store, device)
        if name == "nvidia":
            fill(store, machines["amd"])  # overlaps with the AMD machine's entries
        paths.append(tmp_path / f"{name}.clmodes")
        bundle.export(paths[-1], store=store)
    manifest = bundle.merge(tmp_path / "all.clmodes", paths)
    assert manifest["counts"] == {"tune": 6, "binaries": 3, "kernels": 3, "blobs": 3}
    assert sorted(d["vendor"] for d in manifest["devices"]) == ["AMD", "Intel", "NVIDIA"]
    for name, device in machines.items():
        local = Store(tmp_path / f"user-{name}")
        report = bundle.install(tmp_path / "all.clmodes", local, local=[device], allow_unsigned=True)
        matches = {d["model"]: d["match"] for d in report["devices"]}
        assert matches[device.fingerprint.model] == "exact"
        assert sorted(matches.values()) == ["exact", "none", "none"]
        assert report["added"] == {"tune": 2, "binaries": 1, "kernels": 1}


def test_export_of_an_empty_store_says_so(tmp_path):
    with pytest.raises(BundleError, match="nothing to export"):
        bundle.export(tmp_path / "b.clmodes", store=Store(tmp_path / "empty"))


