"""`clmodes.settings`: every environment variable declared once, read only there, parsed
with one-line errors naming the variable, and listed by `clmodes --help` and the docs
exactly as declared."""

from __future__ import annotations

import ast
import importlib.util
import os
import re
from pathlib import Path

import pytest

from clmodes import settings
from clmodes.cli.parser import build_parser
from kernels_cl import settings as kernels_cl_settings
from kernels_cl.__main__ import parser as kernels_cl_parser

ROOT = Path(__file__).resolve().parents[2]
NAME = re.compile(r"(?:CLMODES|KERNELS_CL)_[A-Z0-9_]+|PYOPENCL_BUILD_OPTIONS|POCL_KERNEL_CACHE")
SETTINGS_MODULES = {"clmodes/settings.py", "kernels_cl/settings.py"}
# Modules that touch `os.environ` for variables that are not clmodes knobs, and why.
ENVIRON_ALLOWED = {
    "clmodes/settings.py": "reads every knob",
    "clmodes/icd.py": "OCL_ICD_VENDORS, the ICD loader's own variable: read, and set for it",
    "clmodes/device_check.py": "the runtimes' own variables (POCL_*, ...), part of a verdict's key",
    "clmodes/bundle/loading.py": "the loading child's environment, a copy",
    "clmodes/bundle/load_child.py": "sets PoCL's POCL_WORK_GROUP_SPECIALIZATION in the child",
    "clmodes/fleet/cluster.py": "RAY_ADDRESS, Ray's",
    "clmodes/fleet/ledger.py": "RAY_ADDRESS, Ray's",
    "clmodes/fleet/tasks.py": "the node job's environment, a copy (knobs set through Knob.export)",
}
ALL_KNOBS = settings.KNOBS + kernels_cl_settings.KNOBS


def sources():
    for package in ("clmodes", "kernels_cl"):
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def listed(help_text: str) -> dict[str, str]:
    return dict(re.findall(r"^  ([A-Z][A-Z0-9_]+)\s+(\S.*)$", help_text, re.MULTILINE))


def test_every_knob_is_declared_once_with_a_doc():
    names = [knob.name for knob in ALL_KNOBS]
    assert len(names) == len(set(names))
    for knob in ALL_KNOBS:
        assert NAME.fullmatch(knob.name), knob.name
        assert knob.doc and "\n" not in knob.doc, knob.name


def test_no_module_but_settings_names_or_reads_a_knob():
    """A knob's name as a whole string literal only in the settings modules (elsewhere:
    `settings.X.name`), and `os.environ` only where `ENVIRON_ALLOWED` says why."""
    named, environ = {}, set()
    for where, tree in sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and NAME.fullmatch(node.value):
                named.setdefault(node.value, set()).add(where)
            if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "putenv"):
                environ.add(where)
            if isinstance(node, ast.ImportFrom) and node.module == "os" and any(
                    alias.name in ("environ", "getenv") for alias in node.names):
                environ.add(where)
    outside = {name: sorted(where - SETTINGS_MODULES) for name, where in named.items()
               if where - SETTINGS_MODULES}
    assert not outside, f"knob names outside the settings modules: {outside}"
    assert set(named) == {knob.name for knob in ALL_KNOBS}
    assert environ <= set(ENVIRON_ALLOWED), f"os.environ read outside settings: {sorted(environ - set(ENVIRON_ALLOWED))}"


def test_clmodes_help_lists_every_knob_as_declared_and_none_of_kernels_cl():
    shown = listed(build_parser().format_help())
    assert shown == {knob.name: knob.doc for knob in settings.KNOBS}
    assert "KERNELS_CL_" not in build_parser().format_help()


def test_kernels_cl_help_lists_its_own_knobs():
    assert listed(kernels_cl_parser().format_help()) == {
        knob.name: knob.doc for knob in kernels_cl_settings.KNOBS}


def test_the_docs_tables_are_the_generated_ones():
    """docs/contract.md's and docs/kernels_cl.md's tables are what ci/settings_tables.py
    writes from the knobs (run it after changing a knob)."""
    spec = importlib.util.spec_from_file_location("settings_tables", ROOT / "ci" / "settings_tables.py")
    assert spec and spec.loader
    tables = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tables)
    assert set(tables.TABLES) == {"docs/contract.md", "docs/kernels_cl.md"}
    for name, table in tables.TABLES.items():
        text = (ROOT / name).read_text(encoding="utf-8")
        assert tables.with_table(text, table, name) == text, f"{name}: run python ci/settings_tables.py"
    contract = (ROOT / "docs" / "contract.md").read_text(encoding="utf-8")
    for knob in settings.KNOBS:
        assert f"| `{knob.name}` |" in contract, knob.name


@pytest.mark.parametrize("knob, bad", [
    (settings.CACHE_MAX_SIZE, "lots"), (settings.CACHE_MAX_SIZE, "-5"),
    (settings.BUNDLE_MAX_SIZE, "lots"), (settings.BUNDLE_MAX_SIZE, "9" * 5000),
    (settings.LOG, "loud"), (settings.VERIFY, "always"),
    (settings.REMOTE_TIMEOUT_S, "soon"), (settings.REMOTE_TIMEOUT_S, "-1"),
    (settings.REMOTE_TIMEOUT_S, "nan"), (settings.REMOTE_TIMEOUT_S, "inf"),
    (settings.REMOTE_BUDGET_S, "0"), (settings.REMOTE_MAX_ENTRY, "1.5"), (settings.REMOTE_MAX_ENTRY, "0"),
    (kernels_cl_settings.BATCH, "many"), (kernels_cl_settings.HIDDEN, "0"), (kernels_cl_settings.SEED, "x"),
    (kernels_cl_settings.DTYPE, "int8"), (kernels_cl_settings.MATMUL, "fast"),
], ids=lambda value: value.name if isinstance(value, settings.Knob) else value[:8])
def test_a_bad_value_is_one_line_naming_the_variable_and_the_value(monkeypatch, knob, bad):
    monkeypatch.setenv(knob.name, bad)
    with pytest.raises(settings.SettingError) as refused:
        knob.get()
    message = str(refused.value)
    assert "\n" not in message and knob.name in message and bad[:30] in message, message
    assert (refused.value.name, refused.value.value) == (knob.name, bad)


@pytest.mark.parametrize("knob, text, value", [
    (settings.DEVICE, "", None), (settings.DEVICE, "intel", "intel"),
    (settings.CACHE_DIR, "", None), (settings.CACHE_DIR, "/tmp/x", Path("/tmp/x")),
    (settings.CACHE_MAX_SIZE, " 2k ", 2048), (settings.CACHE_MAX_SIZE, "  ", None),
    (settings.BUNDLE_MAX_SIZE, "", 4 << 30), (settings.BUNDLE_MAX_SIZE, "64 MiB", 64 << 20),
    (settings.LOG, "", "warning"), (settings.LOG, " DEBUG ", "debug"),
    (settings.STRICT, "1", True), (settings.STRICT, " 1", False), (settings.STRICT, "yes", False),
    (settings.VERIFY, "", "off"), (settings.VERIFY, " First-Use ", "first-use"),
    (settings.REGISTER_RUNTIMES, "", True), (settings.REGISTER_RUNTIMES, "0", False),
    (settings.MAX_BATCH, "3", 3), (settings.MAX_BATCH, "0", None), (settings.MAX_BATCH, "lots", None),
    (settings.MAX_BATCH, "\u00b2", None),  # a digit to str.isdigit that int() refuses
    (settings.BATCH_ALL, " 1 ", True), (settings.BATCH_ALL, "0", False),
    (settings.TRUSTED_KEYS, os.pathsep.join(["a.pub", "", "b.pub", ""]), ("a.pub", "b.pub")),
    (settings.REMOTE, "  ", None), (settings.REMOTE, " redis://h:1/0 ", "redis://h:1/0"),
    (settings.REMOTE_TIMEOUT_S, "", 2.0), (settings.REMOTE_TIMEOUT_S, "0.5", 0.5),
    (settings.REMOTE_MAX_ENTRY, "4096", 4096), (settings.SIGNING_KEY, " ", None),
    (settings.PYOPENCL_BUILD_OPTIONS, " -DX=1  -I dir ", ("-DX=1", "-I", "dir")),
    (kernels_cl_settings.BATCH, "", None), (kernels_cl_settings.SEED, "-3", -3),
    (kernels_cl_settings.DTYPE, "", "float32"), (kernels_cl_settings.MATMUL, " candidates ", "candidates"),
], ids=lambda value: value.name if isinstance(value, settings.Knob) else None)
def test_what_a_value_reads_as(monkeypatch, knob, text, value):
    """Each knob reads its variable as its module did before: `1` switches unstripped
    where they were, empty is the default, a path-separated list skips empty names."""
    monkeypatch.setenv(knob.name, text)
    assert knob.get() == value


def test_a_knob_is_read_at_each_call_not_at_import(monkeypatch):
    monkeypatch.delenv(settings.CACHE_MAX_SIZE.name, raising=False)
    assert settings.CACHE_MAX_SIZE.get() is None
    monkeypatch.setenv(settings.CACHE_MAX_SIZE.name, "1M")
    assert settings.CACHE_MAX_SIZE.get() == 1 << 20
    assert settings.CACHE_MAX_SIZE.get({settings.CACHE_MAX_SIZE.name: "2M"}) == 2 << 20


def test_export_sets_the_variable_for_the_next_read_and_for_children(monkeypatch):
    monkeypatch.setenv(settings.DEVICE.name, "0")
    settings.DEVICE.export("intel")
    assert settings.DEVICE.get() == "intel"
    child: dict[str, str] = {}
    settings.FLEET_PARENT.export("42", child)
    assert child == {"CLMODES_FLEET_PARENT": "42"}


def test_the_callers_keep_their_own_refusals(monkeypatch, caplog, tmp_path):
    """The bundle reader refuses naming the bundle, the remote's bounds raise
    `RemoteError`, the warm's cap only warns, all with the settings' one line."""
    from clmodes.bundle.errors import BundleError
    from clmodes.bundle.limits import max_size
    from clmodes.cache_size import environment_cap
    from clmodes.remote.config import Bounds, RemoteError

    monkeypatch.setenv("CLMODES_BUNDLE_MAX_SIZE", "lots")
    with pytest.raises(BundleError, match=r"^\S*x\.clmodes: \$CLMODES_BUNDLE_MAX_SIZE='lots': not a size"):
        max_size(tmp_path / "x.clmodes")
    monkeypatch.setenv("CLMODES_REMOTE_BUDGET_S", "soon")
    with pytest.raises(RemoteError, match=r"^\$CLMODES_REMOTE_BUDGET_S='soon': not a number$"):
        Bounds.from_environment()
    monkeypatch.delenv("CLMODES_REMOTE_BUDGET_S")
    assert Bounds.from_environment() == Bounds()
    monkeypatch.setenv("CLMODES_CACHE_MAX_SIZE", "lots")
    assert environment_cap() is None
    (warning,) = [r.getMessage() for r in caplog.records if "CLMODES_CACHE_MAX_SIZE" in r.getMessage()]
    assert warning.startswith("$CLMODES_CACHE_MAX_SIZE: 'lots' is not a size") and "not pruned" in warning
