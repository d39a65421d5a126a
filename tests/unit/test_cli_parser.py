"""The command line as a whole: flags every verb takes, help text, the environment listed."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from clmodes.cli.logs import level_name
from clmodes.cli.errors import UsageError
from clmodes.cli.parser import LazyVerb, build_parser
from support.cli_verbs import verbs

ROOT = Path(__file__).resolve().parents[2]
ENV_READ = re.compile(r"""["']((?:CLMODES|KERNELS_CL|PYOPENCL)_[A-Z0-9_]+)["']""")


VERBS = list(verbs())


def test_there_are_verbs_including_the_tune_ones():
    names = {" ".join(path) for path, _ in VERBS}
    assert {"tune list", "tune show", "tune plot", "tune forget", "warm", "cache info"} <= names


@pytest.mark.parametrize("path, parser", VERBS, ids=[" ".join(p) for p, _ in VERBS])
def test_every_verb_has_json_verbosity_and_helped_positionals(path, parser):
    options = {option for action in parser._actions for option in action.option_strings}
    assert {"--json", "-v", "-q"} <= options
    for action in parser._actions:
        if not action.option_strings and not isinstance(action, argparse._SubParsersAction):
            assert action.help, f"clmodes {' '.join(path)}: positional {action.dest!r} has no help"


@pytest.mark.parametrize("path, parser", VERBS, ids=[" ".join(p) for p, _ in VERBS])
def test_every_verb_names_a_function_that_exists(path, parser):
    """Verbs import their module when they run (`LazyVerb`): a misspelled name fails here."""
    run = parser.get_default("run")
    assert isinstance(run, LazyVerb), path
    assert callable(run.resolve()), path


def test_parsing_a_command_line_loads_no_verb_module():
    import subprocess
    import sys
    code = ("import sys; from clmodes.cli.parser import build_parser; "
            "build_parser().parse_args(['run', 'x.py']); "
            "print(sorted(m for m in sys.modules if m.startswith(('clmodes.cli.', 'clmodes.bundle', "
            "'clmodes.remote', 'clmodes.fleet'))))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, timeout=120).stdout
    assert "clmodes.bundle" not in loaded and "clmodes.remote" not in loaded, loaded
    assert "clmodes.cli.bundle" not in loaded and "clmodes.fleet" not in loaded, loaded


@pytest.mark.parametrize("argv", [
    ["--json", "cache", "info"], ["cache", "info", "--json"], ["-v", "--json", "tune", "list"],
])
def test_json_and_verbosity_are_read_before_or_after_the_verb(argv):
    args = build_parser().parse_args(argv)
    assert args.json is True
    assert args.verbose == ("-v" in argv) and args.quiet == 0


def test_defaults_without_the_flags():
    args = build_parser().parse_args(["tune", "show", "some.tunable"])
    assert (args.json, args.verbose, args.quiet, args.key) == (False, 0, 0, None)
    assert build_parser().parse_args(["-qq", "devices"]).quiet == 2


def test_help_lists_every_environment_variable_the_code_reads():
    """clmodes' variables in `clmodes --help`, the example package's in its own help
    (`python -m kernels_cl`), each only there."""
    from kernels_cl.__main__ import parser as kernels_cl_parser

    helps = {"clmodes": build_parser().format_help(), "kernels_cl": kernels_cl_parser().format_help()}
    every = set()
    for package, text in helps.items():
        read = set()
        for source in (ROOT / package).rglob("*.py"):
            read |= set(ENV_READ.findall(source.read_text(encoding="utf-8")))
        listed = dict(re.findall(r"^  ([A-Z][A-Z0-9_]+)\s+(\S.*)$", text, re.MULTILINE))
        assert read <= set(listed), f"not in {package}'s help: {sorted(read - set(listed))}"
        every |= read
    assert {"CLMODES_DEVICE", "CLMODES_CACHE_DIR", "CLMODES_LOG", "KERNELS_CL_BATCH"} <= every
    assert "KERNELS_CL_" not in helps["clmodes"]


@pytest.mark.parametrize("environment, verbose, quiet, expected", [
    ("", 0, 0, "warning"), ("", 1, 0, "info"), ("", 2, 0, "debug"), ("", 5, 0, "debug"),
    ("", 0, 1, "error"), ("info", 0, 0, "info"), ("DEBUG", 0, 0, "debug"),
    ("info", 0, 1, "warning"), ("error", 1, 0, "warning"),
])
def test_log_level_from_the_environment_and_the_flags(environment, verbose, quiet, expected):
    assert level_name(verbose, quiet, environment) == expected


def test_a_bad_log_level_names_the_variable():
    with pytest.raises(UsageError, match=r"\$CLMODES_LOG must be one of .*'loud'"):
        level_name(0, 0, "loud")


def test_help_states_the_matmul_default_the_workloads_use(monkeypatch):
    import importlib

    from kernels_cl.__main__ import parser as kernels_cl_parser

    matmul = importlib.import_module("kernels_cl.matmul")
    monkeypatch.delenv("KERNELS_CL_MATMUL", raising=False)
    default = "space" if matmul.tunable("float32") is matmul.SPACE_TUNABLES["float32"] else "candidates"
    (line,) = [x for x in kernels_cl_parser().format_help().splitlines() if "KERNELS_CL_MATMUL" in x]
    assert f"{default} (default" in line, line
