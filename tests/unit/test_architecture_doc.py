"""ARCHITECTURE.md stays a map a newcomer can trust: short, and every file, module,
function and class it names exists in the tree it describes.

The page used to grow into a journal of measurements (1,400 lines) whose pointers went
stale as modules moved. Measurements now live in docs/decisions/, one short record per
decision; these checks keep the page within its size and its pointers true, and the
records short and indexed. Names are checked by reading the sources (ast), never by
importing them: the optional extras (ray, redis, scikit-learn) need not be installed.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "clmodes"
ARCHITECTURE = ROOT / "ARCHITECTURE.md"
DECISIONS = ROOT / "docs" / "decisions"
MAX_LINES = 400
MAX_RECORD_LINES = 80

# A path of the repository: `clmodes/store/recovery.py`, `ci/bench/run`, `tests/corpus/`,
# or one inside the package written from there (`store/tunes.py`).
REPO_PATH = re.compile(r"(?<![\w/.-])((?:clmodes|ci|tests|kernels_cl|docs)/[\w./-]*[\w/])")
PY_PATH = re.compile(r"(?<![\w/.-])((?:\w+/)+\w+\.py)\b")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
DOTTED = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\(.*\))?$")
OUTSIDE_CLASSES = {"ContextVar", "NoBackoff"}  # contextvars', redis-py's
CLASS_NAME = re.compile(r"^([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)(?:\(.*\))?$")  # `DeviceServer`


@cache
def modules() -> dict[str, Path]:
    """Every clmodes module by its dotted name (`clmodes.store.recovery`)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


@cache
def tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _bound(body: list[ast.stmt]) -> dict[str, ast.AST]:
    """Names a module or class body binds, descending into if/try but not into defs."""
    names: dict[str, ast.AST] = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        names[name.id] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names[(alias.asname or alias.name).split(".")[0]] = node
        elif isinstance(node, (ast.If, ast.Try)):
            for block in (node.body, node.orelse, *(h.body for h in getattr(node, "handlers", [])),
                          getattr(node, "finalbody", [])):
                names.update(_bound(block))
    return names


@cache
def classes() -> dict[str, list[ast.ClassDef]]:
    """Every class of the package by name (a name may be defined more than once)."""
    found: dict[str, list[ast.ClassDef]] = {}
    for path in modules().values():
        for node in ast.walk(tree(path)):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append(node)
    return found


def _class_has(node: ast.ClassDef, attributes: list[str], seen: frozenset[str] = frozenset()) -> bool:
    if not attributes:
        return True
    member = _bound(node.body).get(attributes[0])
    if member is None:  # inherited from a base of the package, if any
        bases = [b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases]
        return any(_class_has(base, attributes, seen | {node.name})
                   for name in bases if name not in seen for base in classes().get(name, []))
    rest = attributes[1:]
    return not rest or (isinstance(member, ast.ClassDef) and _class_has(member, rest))


def _module_has(module: str, attributes: list[str]) -> bool:
    member = _bound(tree(modules()[module]).body).get(attributes[0])
    if member is None:
        return f"{module}.{attributes[0]}" in modules()
    rest = attributes[1:]
    if not rest:
        return True
    if isinstance(member, ast.ClassDef):
        return _class_has(member, rest)
    if isinstance(member, (ast.Import, ast.ImportFrom)):  # re-exported: ask where it is defined
        return any(_class_has(node, rest) for node in classes().get(attributes[0], []))
    return False


def resolve(name: str) -> bool | None:
    """True when a dotted name names a module, or a module's or class's member; False when
    it starts like one of the package's but names nothing; None when it is not ours."""
    parts = name.split(".")
    candidates = []
    for module in modules():
        dotted = module.split(".")
        for size in range(1, len(parts) + 1):
            if dotted[-size:] == parts[:size]:
                candidates.append((module, parts[size:]))
    if candidates:
        return any(not rest or _module_has(module, rest) for module, rest in candidates)
    if parts[0] in classes():
        return any(_class_has(node, parts[1:]) for node in classes()[parts[0]])
    return None


def cited_names(text: str) -> list[str]:
    names = []
    for span in CODE_SPAN.findall(text):
        match = DOTTED.match(span.strip())
        if match and not re.search(r"\.(py|md|h|cl|json|txt|toml|sqlite3|bc|so)$", match.group(1)):
            names.append(match.group(1))
    return names


def cited_classes(text: str) -> list[str]:
    """CamelCase names in code spans (`TuningSpace`, `DeviceServer(...)`): each must be one
    of the package's, but for the few outside names the page explains."""
    return [m.group(1) for span in CODE_SPAN.findall(text)
            if (m := CLASS_NAME.match(span.strip())) and m.group(1) not in OUTSIDE_CLASSES]


def missing_paths(text: str) -> list[str]:
    missing = []
    for path in REPO_PATH.findall(text):
        if not (ROOT / path).exists():
            missing.append(path)
    for path in PY_PATH.findall(text):
        if not ((ROOT / path).exists() or (PACKAGE / path).exists()):
            missing.append(path)
    return sorted(set(missing))


def test_architecture_is_at_most_400_lines():
    lines = len(ARCHITECTURE.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"ARCHITECTURE.md has {lines} lines; move measurements to docs/decisions/"


def test_architecture_opens_with_a_newcomers_path():
    headings = re.findall(r"^## (.+)$", ARCHITECTURE.read_text(encoding="utf-8"), re.MULTILINE)
    assert headings and headings[0].lower().startswith("a newcomer's path"), headings[:3]


def test_every_path_the_architecture_cites_exists():
    missing = missing_paths(ARCHITECTURE.read_text(encoding="utf-8"))
    assert not missing, f"ARCHITECTURE.md cites paths that do not exist: {missing}"


def test_every_module_function_and_class_the_architecture_cites_exists():
    names = cited_names(ARCHITECTURE.read_text(encoding="utf-8"))
    checked = {name: resolve(name) for name in names}
    wrong = sorted(name for name, found in checked.items() if found is False)
    assert not wrong, f"ARCHITECTURE.md names what the code does not define: {wrong}"
    # the check reads real names, not none: the page points into the code throughout
    assert sum(found is True for found in checked.values()) >= 30, checked
    unknown = sorted({name for name in cited_classes(ARCHITECTURE.read_text(encoding="utf-8"))
                      if name not in classes()})
    assert not unknown, f"ARCHITECTURE.md names classes the code does not define: {unknown}"


def test_the_resolver_tells_a_wrong_name():
    assert resolve("clmodes.store.recovery.salvage") is True
    assert resolve("Stream.launch") is True
    assert resolve("recovery.no_such_function") is False
    assert resolve("Stream.no_such_method") is False
    assert resolve("pyopencl.Program.build") is None


def records() -> list[Path]:
    return sorted(p for p in DECISIONS.glob("*.md") if p.name != "README.md")


def test_decision_records_are_short_indexed_and_point_at_real_code():
    index = (DECISIONS / "README.md").read_text(encoding="utf-8")
    problems = []
    for record in records():
        text = record.read_text(encoding="utf-8")
        if len(text.splitlines()) >= MAX_RECORD_LINES:
            problems.append(f"{record.name}: {len(text.splitlines())} lines (under {MAX_RECORD_LINES})")
        if f"]({record.name})" not in index:
            problems.append(f"{record.name}: not listed in docs/decisions/README.md")
        problems += [f"{record.name} cites {path}" for path in missing_paths(text) if path.startswith("clmodes/")]
    for link in re.findall(r"\]\(([\w.-]+\.md)\)", index):
        if not (DECISIONS / link).is_file():
            problems.append(f"README.md lists {link}, which does not exist")
    assert len(records()) >= 10 and not problems, "\n".join(problems)


def test_links_into_architecture_and_the_records_resolve():
    """Markdown links to ARCHITECTURE.md#anchor or to a record land on a real heading."""
    problems = []
    for page in [ROOT / "README.md", ARCHITECTURE, *sorted((ROOT / "docs").rglob("*.md"))]:
        for target, anchor in re.findall(r"\]\(([^)#\s]*\.md)(?:#([^)\s]+))?\)", page.read_text(encoding="utf-8")):
            path = (page.parent / target).resolve()
            if not path.is_file():
                problems.append(f"{page.relative_to(ROOT)} links to {target}: no such file")
            elif anchor and anchor not in _anchors(path):
                problems.append(f"{page.relative_to(ROOT)} links to {target}#{anchor}: no such heading")
    assert not problems, "\n".join(problems)


def _anchors(path: Path) -> set[str]:
    """GitHub's anchors: a heading lower-cased, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#{1,6} (.+?)\s*$", path.read_text(encoding="utf-8"), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}
