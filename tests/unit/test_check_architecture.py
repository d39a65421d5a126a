"""`ci/check_architecture.py` fails on what it is there to catch: an arrow up the layers,
a circle, a reach into a private name, a module placed in no layer."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

CHECKER = Path(__file__).resolve().parents[2] / "ci" / "check_architecture.py"


@pytest.fixture(scope="module")
def checker():
    spec = importlib.util.spec_from_file_location("check_architecture", CHECKER)
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_architecture"] = module
    spec.loader.exec_module(module)
    return module


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "clmodes"
    for name, text in {"__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_real_package_is_clean(checker, capsys):
    assert checker.main(["check", str(CHECKER.parents[1] / "clmodes")]) == 0


def test_an_arrow_up_the_layers_fails(checker, tmp_path, capsys):
    root = _package(tmp_path, {"fleet/__init__.py": "", "fleet/node.py": "def f():\n    from clmodes.cli import warm\n",
                               "cli/__init__.py": "", "cli/warm.py": ""})
    assert checker.main(["check", str(root)]) == 1
    assert "layer order: clmodes.fleet.node (layer 7) imports clmodes.cli.warm (layer 8)" in capsys.readouterr().out


def test_a_module_in_no_layer_fails(checker, tmp_path, capsys):
    root = _package(tmp_path, {"mystery.py": ""})
    assert checker.main(["check", str(root)]) == 1
    assert "clmodes.mystery is in no layer" in capsys.readouterr().out


def test_a_circle_and_a_reach_in_fail(checker, tmp_path, capsys):
    root = _package(tmp_path, {"device.py": "from clmodes import kernel\n",
                               "kernel.py": "from clmodes import device\nx = device._hidden\n"})
    assert checker.main(["check", str(root)]) == 1
    out = capsys.readouterr().out
    assert "import circle: clmodes.device -> clmodes.kernel" in out and "`._hidden` reaches into" in out


def test_an_arrow_up_the_sub_packages_of_tune_fails(checker, tmp_path, capsys):
    root = _package(tmp_path, {"tune/__init__.py": "", "tune/search/__init__.py": "",
                               "tune/search/space.py": "from clmodes.tune.answers import verify\n",
                               "tune/answers/__init__.py": "", "tune/answers/verify.py": "",
                               "tune/mystery/__init__.py": ""})
    assert checker.main(["check", str(root)]) == 1
    out = capsys.readouterr().out
    assert ("layer order within clmodes.tune: clmodes.tune.search.space (layer 0) imports "
            "clmodes.tune.answers.verify (layer 2)") in out
    assert "clmodes.tune.mystery is in no layer of clmodes.tune" in out
