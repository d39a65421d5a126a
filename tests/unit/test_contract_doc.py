"""docs/contract.md stays current: it names every exported name, every verb and flag of
the command line, and the repository cites only documents it holds.

The contract used to live in a file outside the repository, cited from the code where no
user or contributor could read it; these checks keep the repository's own copy whole.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import clmodes
from support.cli_verbs import verbs

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = ROOT / "docs" / "contract.md"
OUTSIDE = "DESIGN" + ".md"  # spelled apart so that this file does not cite it
OUTSIDE_SECTION = re.compile(r"\bDESIGN(?:\.md)?\s*§")
CITED = re.compile(r"(?<![\w/.-])(docs/[\w./-]+\.md)(?:,\s*([A-Z][^\n]*))?")
SKIPPED_DIRS = {".git", "__pycache__", ".pytest_cache", ".mypy_cache", "build", "dist",
                "node_modules", "results"}
TEXT_SUFFIXES = {".py", ".md", ".txt", ".toml", ".cfg", ".ini", ".in", ".sh", ".yml",
                 ".yaml", ".cl", ".h", ".json", ".rst", ""}


def _text_files() -> list[Path]:
    found = []
    for path in ROOT.rglob("*"):
        relative = path.relative_to(ROOT).parts
        if any(part in SKIPPED_DIRS or part.endswith(".egg-info") or
               (part.startswith(".") and part not in (".ci",)) for part in relative[:-1]):
            continue
        if path.is_file() and path.suffix in TEXT_SUFFIXES and path.stat().st_size < 2_000_000:
            found.append(path)
    return found


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="ignore")


VERBS = list(verbs())
COMMON = {"-h", "--help", "--json", "-v", "--verbose", "-q", "--quiet"}


@pytest.fixture(scope="module")
def contract() -> str:
    assert CONTRACT.is_file(), "docs/contract.md is missing"
    return CONTRACT.read_text(encoding="utf-8")


def test_every_exported_name_is_in_the_contract(contract):
    missing = [name for name in clmodes.__all__
               if not re.search(rf"`(?:clmodes\.)?{re.escape(name)}[`(]", contract)]
    assert not missing, f"docs/contract.md, Public API does not name: {missing}"


@pytest.mark.parametrize("path, parser", VERBS, ids=[" ".join(p) for p, _ in VERBS])
def test_every_verb_and_its_flags_are_in_the_contract(contract, path, parser):
    verb = "clmodes " + " ".join(path)
    assert f"`{verb}" in contract, f"docs/contract.md, Command line does not list `{verb}`"
    flags = {option for action in parser._actions for option in action.option_strings
             if option.startswith("--")} - COMMON
    missing = sorted(flag for flag in flags
                     if not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", contract))
    assert not missing, f"docs/contract.md: `{verb}` flags not described: {missing}"


def test_nothing_cites_a_document_outside_the_repository():
    citing = [str(path.relative_to(ROOT)) for path in _text_files()
              if OUTSIDE in (text := _read(path)) or OUTSIDE_SECTION.search(text)]
    assert not citing, f"these cite {OUTSIDE}, which is not in the repository: {citing}"


def test_every_cited_doc_and_section_exists():
    problems = []
    for path in _text_files():
        for match in CITED.finditer(_read(path)):
            doc, after = ROOT / match.group(1), match.group(2)
            where = f"{path.relative_to(ROOT)} cites {match.group(1)}"
            if not doc.is_file():
                problems.append(f"{where}: no such file")
                continue
            if after:
                headings = re.findall(r"^#{2,4} (.+?)\s*$", doc.read_text(encoding="utf-8"),
                                      re.MULTILINE)
                if not any(after.startswith(heading) for heading in headings):
                    problems.append(f"{where}, {after[:40]!r}: no such section")
    assert not problems, "\n".join(problems)
