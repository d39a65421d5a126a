"""Signed bundles of real program binaries, and the import's child-process load check,
on the real runtimes."""

import pyopencl as cl
import pytest

import clmodes
from support.devices import usable_runtime
from clmodes import bundle
from clmodes.bundle import BundleError
from clmodes.store import Store

from support.bundles import public
from support.poclbins import aborting_shared_object, replace_file

SOURCE = "__kernel void {name}(__global float *a) {{ a[get_global_id(0)] *= 2.0f; }}"


def real_binary(device: clmodes.Device, name: str) -> bytes:
    context = cl.Context([device.cl_device])
    program = cl.Program(context, SOURCE.format(name=name)).build()
    return bytes(program.get_info(cl.program_info.BINARIES)[0])


def maker_store(path, device, binaries) -> Store:
    """A store with a tune result and `binaries` ((batch, kernel name, bytes)) for `device`."""
    store = Store(path)
    store.put_tune(device.fingerprint.model, "op", "k", "c0", {"winner": "w"})
    for batch, name, data in binaries:
        store.put_binary(device.fingerprint.exact, batch, [f"unit-{batch}"], data,
                         [(f"kernel-{batch}", name, None)])
    return store


def test_signed_round_trip_of_real_binaries(client, tmp_path, signing_key):
    device = client.device
    maker = maker_store(tmp_path / "maker", device, [("batch-twice", "twice", real_binary(device, "twice"))])
    path = tmp_path / "ship.clmodes"
    bundle.export(path, store=maker, sign=signing_key)
    inspected = bundle.inspect(path, local=[device], trusted_keys=[public(signing_key)])
    assert inspected["trust"]["trusted"] and [m["match"] for m in inspected["matches"]] == ["exact"]
    user = Store(tmp_path / "user")
    with pytest.raises(BundleError, match="does not trust"):
        bundle.install(path, user, local=[device])
    assert user.count("binaries") == 0
    report = bundle.install(path, user, local=[device], trusted_keys=[public(signing_key)])
    assert report["added"] == {"tune": 1, "binaries": 1, "kernels": 1} and report["refused"] == []
    binary, _ = user.get_binary(device.fingerprint.exact, "batch-twice")
    context = cl.Context([device.cl_device])
    program = cl.Program(context, [device.cl_device], [binary]).build()
    assert cl.Kernel(program, "twice").function_name == "twice"


def pocl_device() -> clmodes.Device:
    return usable_runtime("PoCL")  # a skip with the reason when no PoCL here can build


def test_a_binary_that_crashes_its_loader_is_refused_and_the_others_import(tmp_path, signing_key):
    """A shared object whose constructor aborts, in a PoCL binary signed by a trusted key:
    building the program never loads it (PoCL does when a launch runs, in every later
    process), so the child loads it and dies instead, and only its entry is refused."""
    pocl = pocl_device()
    good, other = real_binary(pocl, "twice"), real_binary(pocl, "thrice")
    tampered = replace_file(other, b"/thrice/0-0-0/thrice.so", aborting_shared_object(tmp_path))
    maker = maker_store(tmp_path / "maker", pocl, [
        ("batch-good", "twice", good),
        ("batch-ctor", "thrice", tampered),
        ("batch-misnamed", "absent", good),  # loads, but holds no kernel by that name
    ])
    path = tmp_path / "ship.clmodes"
    bundle.export(path, store=maker, sign=signing_key)
    user = Store(tmp_path / "user")
    report = bundle.install(path, user, local=[pocl], trusted_keys=[public(signing_key)])
    reasons = {r["batch"]: r["reason"] for r in report["refused"]}
    assert set(reasons) == {"batch-ctor", "batch-misnamed"}, reasons
    assert "crashed the OpenCL loader (SIGABRT)" in reasons["batch-ctor"]
    assert reasons["batch-misnamed"].startswith("failed to load")
    assert report["added"] == {"tune": 1, "binaries": 1, "kernels": 1}
    exact = pocl.fingerprint.exact
    assert user.get_binary(exact, "batch-good") is not None
    assert user.get_binary(exact, "batch-ctor") is None
    assert user.kernel_batches(exact, ["kernel-batch-ctor", "kernel-batch-good"]) == {
        "kernel-batch-good": "batch-good"}


def test_a_cut_pocl_binary_is_refused_before_anything_loads_it(tmp_path, signing_key, target):
    """A truncated binary with a matching checksum once crashed its loader (SIGSEGV):
    its records no longer add up to its length."""
    pocl = pocl_device()
    other = real_binary(pocl, "thrice")
    maker = maker_store(tmp_path / "maker", pocl, [("batch-cut", "thrice", other[: len(other) // 2])])
    bundle.export(tmp_path / "cut.clmodes", store=maker, sign=signing_key)
    with pytest.raises(BundleError, match="batch-cut is not laid out as PoCL writes one"):
        bundle.install(tmp_path / "cut.clmodes", target, local=[pocl], trusted_keys=[public(signing_key)])


@pytest.mark.parametrize("old, new", [
    (b"/program.bc", b"/../evil.bc"),
    (b"/twice/0-0-0/twice.so", b"/twice/\x01/../../abc.so"),  # hid the `..` from a search
])
def test_a_pocl_binary_with_a_path_out_of_its_cache_is_refused(tmp_path, signing_key, target, old, new):
    """PoCL writes a binary's files under its cache by their stored paths: `..` in one
    once created a file outside. Refused before anything loads it, even signed: only the
    shape PoCL writes is accepted."""
    pocl = pocl_device()
    good = real_binary(pocl, "twice")
    assert len(old).to_bytes(4, "little") + old in good  # the stored path, length-prefixed
    evil = good.replace(old, new, 1)
    maker = maker_store(tmp_path / "maker", pocl, [("batch-evil", "twice", evil)])
    path = tmp_path / "ship.clmodes"
    bundle.export(path, store=maker, sign=signing_key)
    before = target.entries()
    with pytest.raises(BundleError, match="is not laid out as PoCL writes one"):
        bundle.install(path, target, local=[pocl], trusted_keys=[public(signing_key)])
    assert target.entries() == before
    clean = maker_store(tmp_path / "clean", pocl, [("batch-good", "twice", good)])
    bundle.export(tmp_path / "clean.clmodes", store=clean, sign=signing_key)
    assert bundle.install(tmp_path / "clean.clmodes", target, local=[pocl],
                          trusted_keys=[public(signing_key)])["added"]["binaries"] == 1


def test_every_pocl_binary_has_the_layout_the_path_check_accepts():
    """Every PoCL here (PyPI's 3.0; Debian's 3.1 with OCL_ICD_VENDORS=/etc/OpenCL/vendors):
    a program launched at several sizes, captured, parses with every file where PoCL
    puts it, work-group-specialized shared objects included."""
    import numpy as np

    from clmodes.bundle import poclbin

    usable_runtime("PoCL")  # a skip with the reason when no PoCL here can build
    found = [d for d in clmodes.devices()
             if "portable" in d.label.lower() and clmodes.usability(d).usable]
    for device in found:
        context = cl.Context([device.cl_device])
        queue = cl.CommandQueue(context)
        program = cl.Program(context, SOURCE.format(name="twice") + SOURCE.format(name="thrice")).build()
        buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE, 4096)
        cl.Kernel(program, "twice")(queue, (64,), (16,), buffer)
        cl.Kernel(program, "thrice")(queue, (64,), None, buffer, global_offset=(4,))
        queue.finish()
        binary = bytes(program.get_info(cl.program_info.BINARIES)[0])
        paths = [f.path.decode() for f in poclbin.files(binary)]
        assert poclbin.path_problem(binary) is None, device.label
        assert paths[0] == "/program.bc" and "/twice/0-0-0/twice.so" in paths, (device.label, paths)
        assert any(p.startswith("/twice/16-1-1") for p in paths), (device.label, paths)
