"""Every ```python block of README.md and docs/*.md runs, as written, in a fresh process on PoCL.

A block is what a reader pastes: it must define what it uses. Each runs alone (nothing
shared between blocks) with an empty store of its own; the kernels_cl workloads are
sized small through their documented environment variables, so that a block warming
the MLP takes seconds, not the default size's tens of seconds.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from support.devices import usable_runtime
from support.subprocesses import TESTS, run_python

README = TESTS.parent / "README.md"
PAGES = [README, *sorted((TESTS.parent / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
HEADING = re.compile(r"^#+ (.+)$", re.MULTILINE)
SMALL = {"KERNELS_CL_BATCH": "8", "KERNELS_CL_HIDDEN": "16", "KERNELS_CL_SEQ": "8"}


def python_blocks(text: str) -> list[tuple[str, str]]:
    """(id, code) per block: the id is the section's heading and the block's number in it."""
    blocks, seen = [], {}
    for match in BLOCK.finditer(text):
        headings = HEADING.findall(text, 0, match.start())
        section = re.sub(r"[^a-z0-9]+", "-", (headings[-1] if headings else "top").lower()).strip("-")
        seen[section] = seen.get(section, 0) + 1
        blocks.append((f"{section}-{seen[section]}", match.group(1)))
    return blocks


def _page_blocks(page: Path) -> list[tuple[str, str]]:
    prefix = "" if page == README else f"{page.stem}-"
    return [(prefix + name, code) for name, code in python_blocks(page.read_text(encoding="utf-8"))]


BLOCKS = [block for page in PAGES for block in _page_blocks(page)]


def test_the_readme_has_python_blocks_and_they_are_all_found():
    assert len(_page_blocks(README)) >= 4
    assert len(BLOCKS) == sum(page.read_text(encoding="utf-8").count("```python") for page in PAGES)


@pytest.mark.parametrize("code", [code for _, code in BLOCKS], ids=[name for name, _ in BLOCKS])
def test_readme_block_runs(code: str, tmp_path: Path):
    device = str(usable_runtime("PoCL").index)  # a skip with the reason when none is usable
    out = run_python(code, cache_dir=tmp_path / "store", CLMODES_DEVICE=device, **SMALL)
    assert out.returncode == 0, f"README block failed:\n{code}\n--- stderr:\n{out.stderr[-3000:]}"
