"""Module-level state stays written down: docs/decisions/process-state.md lists every
module-level name of clmodes that holds state, each with why it is the process's and
not the `Runtime`'s, and nothing is listed that is gone.

State, as read here from the sources (ast, never by importing them): a module-level name
that a `global` statement rebinds, or a lower-case one bound to a mutable container
(dict, list, set, a weak set or dictionary, an ordered or default dict, a deque).
Upper-case names bound to containers are tables, read-only by convention; the record
lists the two that are not (`RELEASED`, `_DEVICES`), and is checked for them too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "clmodes"
RECORD = ROOT / "docs" / "decisions" / "process-state.md"
CONTAINER_CALLS = {"dict", "list", "set", "WeakSet", "WeakKeyDictionary",
                   "WeakValueDictionary", "OrderedDict", "defaultdict", "deque"}
ROW = re.compile(r"^\| `(clmodes/[\w/]+\.py)` \| (.+?) \|")


def _bound(node: ast.stmt) -> list[tuple[str, ast.expr]]:
    if isinstance(node, ast.Assign):
        return [(t.id, node.value) for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
        return [(node.target.id, node.value)]
    return []


def _is_container(value: ast.expr) -> bool:
    if isinstance(value, (ast.Dict, ast.List, ast.Set)):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        return name in CONTAINER_CALLS
    return False


def _is_table(name: str) -> bool:
    bare = name.strip("_")
    return name.startswith("__") or bare == bare.upper()


def module_state(path: Path) -> set[str]:
    """The names of `path` that hold state, by the rule in the module docstring."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rebound = {name for node in ast.walk(tree) if isinstance(node, ast.Global)
               for name in node.names}
    found = set()
    for node in tree.body:
        for name, value in _bound(node):
            if name in rebound or (_is_container(value) and not _is_table(name)):
                found.add(name)
    return found


def recorded() -> dict[str, set[str]]:
    """module path -> the names the record's table lists for it."""
    rows: dict[str, set[str]] = {}
    for line in RECORD.read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match:
            rows.setdefault(match.group(1), set()).update(re.findall(r"`(\w+)`", match.group(2)))
    return rows


def test_every_module_level_state_is_recorded_with_its_reason():
    listed = recorded()
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        for name in sorted(module_state(path) - listed.get(relative, set())):
            missing.append(f"{relative}: {name}")
    assert not missing, ("module-level state not in docs/decisions/process-state.md "
                         "(give the Runtime its own, or add a row saying why it is the "
                         f"process's): {missing}")


def test_everything_recorded_exists_at_module_level():
    stale = []
    for relative, names in recorded().items():
        path = ROOT / relative
        if not path.exists():
            stale.append(relative)
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        defined = {name for node in tree.body for name, _ in _bound(node)}
        stale += [f"{relative}: {name}" for name in sorted(names - defined)]
    assert not stale, f"docs/decisions/process-state.md lists what is gone: {stale}"


def test_the_rule_finds_rebound_names_and_containers_but_not_tables(tmp_path: Path):
    source = tmp_path / "m.py"
    source.write_text("import weakref\nTABLE = {}\n_cache = {}\n_seen = weakref.WeakSet()\n"
                      "_flag = False\ncount = 0\n\ndef bump():\n    global count\n    count += 1\n")
    assert module_state(source) == {"_cache", "_seen", "count"}
