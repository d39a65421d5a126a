"""Cache bundles: export, import, inspect, merge; bad bundles leave the store untouched."""

import pytest

import clmodes
from clmodes import bundle
from clmodes.store import Store

from support.bundles import fill


def test_bundle_from_one_runtime_does_not_match_another(tmp_path):
    made_on, *others = clmodes.devices()
    other = next((d for d in others if d.fingerprint.vendor != made_on.fingerprint.vendor), None)
    if other is None:
        pytest.skip("needs devices of two OpenCL runtimes")
    store = Store(tmp_path / "store")
    fill(store, made_on)
    bundle.export(tmp_path / "b.clmodes", store=store)
    (match,) = bundle.inspect(tmp_path / "b.clmodes", local=[other])["matches"]
    assert match["match"] == "none" and "vendor" in match["differs"]
    report = bundle.install(tmp_path / "b.clmodes", Store(tmp_path / "user"), local=[other],
                            allow_unsigned=True)
    assert report["added"] == {"tune": 0, "binaries": 0, "kernels": 0}
    (same,) = bundle.inspect(tmp_path / "b.clmodes", local=[made_on])["matches"]
    assert same["match"] == "exact"
