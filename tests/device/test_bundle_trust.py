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
from support.poclbins import (aborting_shared_object, aborting_workgroup, replace_file,
                              shared_object_without_workgroup)

SOURCE = "__kernel void {name}(__global float *a) {{ a[get_global_id(0)] *= 2.0f; }}"


def real_binary(device: clmodes.Device, name: str) -> bytes:
    context = cl.Context([device.cl_device])
    program = cl.Program(context, SOURCE.format(name=name)).build()
    return bytes(program.get_info(cl.program_info.BINARIES)[0])


ARGS = [["a", "float*", True]]  # SOURCE's argument info, as clmodes keeps it


def maker_store(path, device, binaries, args=None) -> Store:
    """A store with a tune result and `binaries` ((batch, kernel name, bytes)) for `device`,
    each kernel row with argument info `args`."""
    store = Store(path)
    store.put_tune_json(device.fingerprint.model, "op", "k", "c0", {"winner": "w"})
    for batch, name, data in binaries:
        store.put_binary(device.fingerprint.exact, batch, [f"unit-{batch}"], data,
                         [(f"kernel-{batch}", name, args)])
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


LATER_RUN = r"""
import sys, numpy as np, pyopencl as cl
platform = cl.get_platforms()[int(sys.argv[1])]
device = platform.get_devices()[int(sys.argv[2])]
context = cl.Context([device]); queue = cl.CommandQueue(context)
buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE, 4096)
for path, name in zip(sys.argv[3::2], sys.argv[4::2]):
    program = cl.Program(context, [device], [open(path, "rb").read()]).build()
    kernel = cl.Kernel(program, name)
    kernel(queue, (16,), (16,), buffer)
    kernel(queue, (1,), (1,), buffer)
queue.finish()
print("ran", flush=True)
"""


def launched_binary(device: clmodes.Device, name: str) -> bytes:
    """A PoCL binary captured after a launch at (16,)/(16,): it ships the kernel's generic
    shared object and its 16-1-1 specialized one, as a warmed store's binaries do."""
    context = cl.Context([device.cl_device])
    queue = cl.CommandQueue(context)
    program = cl.Program(context, SOURCE.format(name=name)).build()
    cl.Kernel(program, name)(queue, (16,), (16,), cl.Buffer(context, cl.mem_flags.READ_WRITE, 64))
    queue.finish()
    return bytes(program.get_info(cl.program_info.BINARIES)[0])


def pocl_devices() -> list[clmodes.Device]:
    """Every usable PoCL here (PyPI's 3.0, Debian's 3.1), the one the tests run on first."""
    first = pocl_device()
    return [first] + [d for d in clmodes.devices() if "portable" in d.label.lower()
                      and d.fingerprint.exact != first.fingerprint.exact and clmodes.usability(d).usable]


def test_pocl_native_code_that_breaks_a_run_is_refused_and_later_runs_are_unharmed(tmp_path, signing_key):
    """Shared objects that load cleanly but break the run that launches them, in PoCL
    binaries signed by a trusted key: building the program never loads them and a
    `dlopen` alone passes them; later runs abort (rc 134) in the launch PoCL loads them
    for, the generic one under POCL_WORK_GROUP_SPECIALIZATION=0 included. The load check
    resolves each one's work-group symbol and launches each kernel once per shipped
    shape, so each is refused, in one line naming it, and a later run of what was
    imported, under either variant, runs."""
    import os
    import subprocess
    import sys

    import pyopencl as cl

    for pocl in pocl_devices():
        folder = tmp_path / pocl.fingerprint.exact.replace(" ", "").replace("|", "-")[:40]
        folder.mkdir()
        special = b"/%s/16-1-1-goffs0-smallgrid/%s.so"
        built = {name: launched_binary(pocl, name) for name in ("twice", "thrice", "halve", "third")}
        assert special % (b"third", b"third") in built["third"], "no specialized shared object shipped"
        maker = maker_store(folder / "maker", pocl, [
            ("batch-good", "twice", built["twice"]),
            ("batch-nosymbol", "thrice", replace_file(built["thrice"], b"/thrice/0-0-0/thrice.so",
                                                      shared_object_without_workgroup(folder))),
            ("batch-generic", "halve", replace_file(built["halve"], b"/halve/0-0-0/halve.so",
                                                    aborting_workgroup(folder, "halve"))),
            ("batch-special", "third", replace_file(built["third"], special % (b"third", b"third"),
                                                    aborting_workgroup(folder, "third"))),
        ], args=ARGS)
        path = folder / "ship.clmodes"
        bundle.export(path, store=maker, sign=signing_key)
        user = Store(folder / "user")
        report = bundle.install(path, user, local=[pocl], trusted_keys=[public(signing_key)])
        reasons = {r["batch"]: r["reason"] for r in report["refused"]}
        assert set(reasons) == {"batch-nosymbol", "batch-generic", "batch-special"}, (pocl.label, reasons)
        assert all("\n" not in r for r in reasons.values())
        assert "lacks its work-group function _pocl_kernel_thrice_workgroup" in reasons["batch-nosymbol"]
        assert reasons["batch-generic"] == ("crashed the OpenCL loader under "
                                            "POCL_WORK_GROUP_SPECIALIZATION=0 (SIGABRT)"), reasons
        assert reasons["batch-special"] == "crashed the OpenCL loader (SIGABRT)", reasons
        assert report["added"] == {"tune": 1, "binaries": 1, "kernels": 1}
        exact = pocl.fingerprint.exact
        stored = [(b, n) for b, n in [("batch-good", "twice"), ("batch-nosymbol", "thrice"),
                                      ("batch-generic", "halve"), ("batch-special", "third")]
                  if user.get_binary(exact, b) is not None]
        assert stored == [("batch-good", "twice")]
        args = []
        for batch, name in stored:
            (folder / f"{batch}.bin").write_bytes(user.get_binary(exact, batch)[0])
            args += [str(folder / f"{batch}.bin"), name]
        platforms = cl.get_platforms()
        platform = next(p for p in platforms if p == pocl.cl_device.platform)
        where = [str(platforms.index(platform)), str(platform.get_devices().index(pocl.cl_device))]
        for variant in ({}, {"POCL_WORK_GROUP_SPECIALIZATION": "0"}):
            env = {**os.environ, **variant, "POCL_CACHE_DIR": str(folder / f"cache{len(variant)}")}
            later = subprocess.run([sys.executable, "-c", LATER_RUN, *where, *args], env=env,
                                   capture_output=True, text=True, timeout=120)
            assert later.returncode == 0 and "ran" in later.stdout, (pocl.label, variant, later.stderr[-500:])


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
