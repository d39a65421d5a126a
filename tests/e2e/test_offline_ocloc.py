"""Binaries for Intel GPUs built offline by Intel's `ocloc` (`clmodes.offline`), for real.

- every batch a warm of kernels_cl's workloads stores builds for two families (Gen12LP
  `tgllp`, Xe-HPG `acm-g10`), each binary an Intel OpenCL ELF whose device binary is for
  the family's GFX core and holds every kernel the batch indexes;
- so does every batch of the batching corpus, but the one `ocloc` refuses for a reason
  the GPU shares (a double constant under -Werror on a GPU without fp64);
- the refusal path on real devices: a driver that refuses such a binary, handed it by
  the store (one warning, a source build) or by a bundle's import (its load check);
- `ocloc` missing: one line naming the Debian packages.

The tests that run `ocloc` are skipped, with the reason, where it is not installed
(Debian's intel-opencl-icd); the missing-`ocloc` and bad-target lines are tested anyway.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import shutil
import sqlite3
import uuid

import numpy as np
import pyopencl.array as cla
import pytest

import clmodes
from clmodes import bundle
from clmodes.batch import plan
from clmodes.batch import Batch
from clmodes.batch.limits import max_units
from clmodes.device import Device
from clmodes.kernel import Kernel, unit_suffix
from clmodes.offline import ocloc
from clmodes.offline.binary import device_binary, sections
from clmodes.offline.families import family_named
from clmodes.offline.identity import OfflineIdentity, parse
from clmodes.offline.targets import Source, build_offline
from clmodes.runtime import Runtime
from clmodes.store import FILENAME, KernelRow, Store

from corpus import CASES
from support.bundles import fixture_device, public
from support.subprocesses import run_cli

needs_ocloc = pytest.mark.skipif(
    shutil.which("ocloc") is None,
    reason="ocloc not installed (Debian: apt-get install intel-opencl-icd)")

FAMILIES = [family_named("tgllp"), family_named("acm-g10")]
TARGET = "intel-gpu:tgllp,acm-g10"


def entry_present(row: KernelRow, units: list[str], held: set[str]) -> bool:
    """The kernel is in the binary: under its own name (built alone) or renamed by one
    of the batch's units."""
    return row.name in held or any(row.name + unit_suffix(u) in held for u in units)


def assert_binaries_hold_their_kernels(store: Store, batches: int) -> None:
    entries = store.entries()
    for family in FAMILIES:
        identities = {r.exact for r in entries.binaries
                      if (found := parse(r.exact)) is not None and found.family == family}
        assert len(identities) == 1, identities
        (exact,) = identities
        binaries = [r for r in entries.binaries if r.exact == exact]
        assert len(binaries) == batches
        for row in binaries:
            read = device_binary(row.binary)
            assert read.core == family.core, (family.name, read)
            assert b"-cl-kernel-arg-info" in sections(row.binary)["BuildOptions"]
            kernels = [k for k in entries.kernels if k.exact == exact and k.batch == row.batch]
            assert kernels, f"no kernel indexed to {row.batch[:12]}"
            for kernel in kernels:
                assert entry_present(kernel, json.loads(row.units), set(read.kernels)), kernel.name


@needs_ocloc
def test_workload_batches_build_for_two_intel_families(tmp_path):
    """kernels_cl's MLP and attention in one warm, on PoCL (the quickest to warm here)."""
    out = run_cli(tmp_path, "warm", "support.offline_workloads:both", "--target", TARGET, "--json",
                  CLMODES_DEVICE="Portable Computing Language")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    offline = report["offline"]
    assert offline["families"] == ["tgllp", "acm-g10"] and offline["refused"] == []
    assert offline["batches"] >= 1 and offline["binaries"] == 2 * offline["batches"]
    store = Store(tmp_path)
    local = {r.exact for r in store.entries().binaries if parse(r.exact) is None}
    assert len(local) == 1  # the local warm is kept too, one binary per batch
    assert len([r for r in store.entries().binaries if r.exact in local]) == offline["batches"]
    assert_binaries_hold_their_kernels(store, offline["batches"])
    # Its kernel index is the local build's: same kernels, names and argument info.
    rows = store.entries().kernels
    local_rows = {(k.kernel_key, k.batch, k.name, k.args) for k in rows if k.exact in local}
    for family in FAMILIES:
        exact = OfflineIdentity(family, offline["compiler_version"]).exact
        assert {(k.kernel_key, k.batch, k.name, k.args) for k in rows if k.exact == exact} == local_rows


def corpus_kernels() -> list[Kernel]:
    # Gen12LP and Xe-HPG have no cl_khr_fp64: a double case does not build there from source either.
    return [Kernel(c.source, c.name, defines=dict(c.defines), options=c.options)
            for c in CASES if "fp64" not in c.requires]


@needs_ocloc
def test_corpus_batches_build_for_two_intel_families(monkeypatch):
    """The corpus planned as the local device plans it, every batch built for both
    families. All build but the -Werror batch, which `ocloc` refuses; split by the units
    its log blames, everything builds but the one kernel at fault (`to_radians` writes
    M_PI, a double constant, which Intel's compiler makes an error on GPUs without fp64)."""
    monkeypatch.setenv("CLMODES_BATCH_ALL", "1")
    server = clmodes.client().server
    kernels = corpus_kernels()
    batches = plan(kernels, server.macros_for, max_units(server.device.platform_name),
                   server.compiler.ask, None)
    tool = ocloc.find()
    entries, refused = build_offline(tool, ocloc.version(tool), [source_of(b, kernels) for b in batches],
                                     FAMILIES)
    werror = [b for b in batches if "-Werror" in b.options]
    assert len(werror) == 1 and len(batches) >= 3
    assert len(refused) == len(FAMILIES), refused
    assert all("to_radians" in line and "cl_khr_fp64" in line for line in refused)
    for row in entries.binaries:
        held = set(device_binary(row.binary).kernels)
        for kernel in (k for k in entries.kernels if (k.exact, k.batch) == (row.exact, row.batch)):
            assert entry_present(kernel, json.loads(row.units), held), kernel.name
    at_fault = {k.key for k in kernels if k.name == "to_radians" and k.unit_key in werror[0].keys}
    assert len(at_fault) == 1
    for family in FAMILIES:
        indexed = {k.kernel_key for k in entries.kernels if parse(k.exact).family == family}
        assert indexed == {k.key for k in kernels} - at_fault
    # The -Werror batch's other kernels were built together, apart from the one at fault.
    split = {r.batch for r in entries.binaries} - {b.content_hash for b in batches}
    assert len(split) == 1


def source_of(batch: Batch, kernels: list[Kernel]) -> Source:
    keys = set(batch.keys)
    members = [k for k in kernels if k.unit_key in keys]
    return Source(batch, tuple(KernelRow("local", k.key, batch.content_hash, k.name, "null") for k in members),
                  {k.key: k.unit_key for k in members})


SEVEN = "__kernel void seven(__global int* o) { o[get_global_id(0)] = 7; }"


@needs_ocloc
def test_a_binary_the_driver_refuses_is_one_warning_and_a_source_build(client, tmp_path, caplog):
    """An ocloc binary in the store where the device's binary should be (a driver that
    refuses the family's binary sees exactly this): the same loading code as every run
    (`programs.load`) warns once, drops it and builds from source; the result is right."""
    kernel = Kernel(f"/* {uuid.uuid4().hex} */ " + SEVEN, "seven")
    first = Runtime(tmp_path / "store")
    stream = first.client(client.device).stream()
    out = cla.zeros(stream.queue, 16, np.int32)
    clmodes.warm(lambda: stream.launch(kernel, 16, None, out.data), runtime=first)
    ((batch, _),) = first.client(client.device).server.stored_sources()
    foreign = ocloc.compile_source(ocloc.find(), batch.source, ["-cl-kernel-arg-info", *batch.options],
                                   FAMILIES[0])
    exact = client.device.fingerprint.exact
    specs = [(k.kernel_key, k.name, json.loads(k.args)) for k in first.store.batch_kernel_rows(exact, batch.content_hash)]
    first.store.put_binary(exact, batch.content_hash, batch.keys, foreign, specs)
    first.store.close()

    later = Runtime(tmp_path / "store")
    stream = later.client(client.device).stream()
    out = cla.zeros(stream.queue, 16, np.int32)
    with caplog.at_level(logging.WARNING, logger="clmodes"):
        stats = clmodes.warm(lambda: stream.launch(kernel, 16, None, out.data), runtime=later)
    refusals = [r for r in caplog.records if "refused the stored binary" in r.getMessage()]
    assert len(refusals) == 1 and "rebuilding from source" in refusals[0].getMessage()
    assert stats.compilation.compiled == 1 and stats.compilation.loaded == 0
    stream.launch(kernel, 16, None, out.data)
    np.testing.assert_array_equal(out.get(), np.full(16, 7, np.int32))
    assert later.store.get_binary(exact, batch.content_hash)[0] != foreign  # the source build's, captured


@needs_ocloc
def test_the_import_load_check_refuses_what_the_driver_refuses(client, tmp_path, signing_key):
    """Graded (a newer driver): the import loads the offline binary on the device in a
    child first; a driver that refuses it leaves it out, the store untouched."""
    identity = OfflineIdentity(FAMILIES[0], ocloc.version(ocloc.find()))
    made = Store(tmp_path / "made")
    binary = ocloc.compile_source(ocloc.find(), SEVEN, ["-cl-kernel-arg-info"], FAMILIES[0])
    made.put_binary(identity.exact, "batch-seven", ["unit"], binary, [("seven-key", "seven", None)])
    bundle.export(tmp_path / "b.clmodes", store=made, sign=signing_key)
    tgl = fixture_device("intel-iris-xe-tgl-22.43").description
    # This machine's device, described as a Tiger Lake GPU with a newer driver.
    pretend = Device(client.device.index, client.device.cl_device,
                     dataclasses.replace(tgl, driver_version="23.17.26241.33"))
    target = Store(tmp_path / "target")
    report = bundle.install(tmp_path / "b.clmodes", target, local=[pretend],
                            trusted_keys=[public(signing_key)])
    assert report["devices"][0]["match"] == "offline" and report["devices"][0]["grade"] == "newer"
    (refused,) = report["refused"]
    assert refused["exact"] == pretend.fingerprint.exact and "failed to load" in refused["reason"]
    assert report["added"]["binaries"] == 0 and target.entries().binaries == []


def test_missing_ocloc_is_one_line_naming_the_debian_packages(tmp_path):
    out = run_cli(tmp_path, "warm", "kernels_cl.workloads:mlp", "--target", TARGET,
                  CLMODES_OCLOC="/nonexistent/ocloc")
    assert out.returncode == 2
    (line,) = out.stderr.strip().splitlines()
    for package in ("intel-opencl-icd", "libigc1", "libigdfcl1", "libigdgmm12",
                    "libopencl-clang14", "libllvmspirvlib14"):
        assert package in line
    assert not (tmp_path / FILENAME).exists() or not sqlite3.connect(tmp_path / FILENAME).execute(
        "SELECT count(*) FROM binaries").fetchone()[0]


def test_an_unknown_target_is_one_line(tmp_path):
    out = run_cli(tmp_path, "warm", "kernels_cl.workloads:mlp", "--target", "intel-gpu:gen99")
    assert out.returncode == 2 and "unknown Intel GPU family 'gen99'" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


@pytest.fixture(scope="module")
def an_ocloc_binary() -> bytes:
    return ocloc.compile_source(ocloc.find(), SEVEN, ["-cl-kernel-arg-info"], FAMILIES[1])


@needs_ocloc
def test_reading_a_damaged_binary_is_a_value_error_or_a_reading(an_ocloc_binary):
    """`binary` reads bundles' bytes (hostile until verified): any truncation or flipped
    byte either still reads or raises `ValueError`, never anything else."""
    read = device_binary(an_ocloc_binary)
    assert read.kernels == ("seven",) and read.core == FAMILIES[1].core
    rng = np.random.default_rng(0)
    damaged = [an_ocloc_binary[:n] for n in range(0, len(an_ocloc_binary), 97)]
    for _ in range(300):
        flipped = bytearray(an_ocloc_binary)
        flipped[int(rng.integers(len(flipped)))] ^= int(rng.integers(1, 256))
        damaged.append(bytes(flipped))
    for data in damaged:
        try:
            device_binary(data)
        except ValueError:
            pass
