#!/usr/bin/env python3
"""Fail on import circles in clmodes/ and on reaches into another module's private names.

    python ci/check_architecture.py [PACKAGE_DIR]

1. Import circles: every `import`/`from ... import` of a clmodes module, at module level
   or inside a function (a run-time `import clmodes` to read `__version__` is a circle
   too), is an edge; any strongly connected set of two or more modules is reported. An
   import of `clmodes.a.b` is an edge to `clmodes.a.b` only: that Python runs the package
   `clmodes.a` first is how packages work, not a dependency of the importer.
2. Reach-ins: `from clmodes.x import _name` from another module, and `obj._name` where
   `_name` is not defined in the module doing the access (so it belongs to another
   module's class or module). Access through third-party modules (`pyopencl._cl`) is the
   third party's business and is not checked here.
3. Layers: every top-level module or package of clmodes sits in one layer of `LAYERS`,
   lowest first, and may import only from its own layer or lower ones. A cycle between
   packages that no module-level circle shows (the fleet's node code importing the CLI,
   which imports the fleet) is an arrow pointing up, and fails here. A new top-level
   module must be placed in a layer (an unplaced one is reported). A package grouped by
   concern in sub-packages (`INNER_LAYERS`: `tune`) layers them the same way, its
   top-level modules above them all; a new sub-package must be placed too.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path


# Lowest first. Why this order: what a launch needs (modes, devices, kernels, the store,
# batching, the server) knows nothing of tuning, warming, shipping or the command line;
# tuning and probing measure on streams; warm, bundles and the fleet orchestrate all of
# it; the CLI and the package's face sit on top. `settings` (every environment variable,
# parsed once) and the size grammar it uses sit at the bottom, so that any module may read one.
LAYERS: tuple[frozenset[str], ...] = tuple(frozenset(layer.split()) for layer in (
    "_version lazy errors atomic sizes settings icd compiler_output execution reads records",
    "includes device discovery kernel shared_terminal progress source_records",
    "store batch released arginfo pointer_types global_indexing launch_args launch_sizes launchable",
    "device_check selection adoption pyopencl_hooks programs building compiler_probe server",
    "stream clients",
    "runtime measure probing roofline tune capture cache_size",
    "warming workload checking running bundle remote offline",
    "fleet demo",
    "cli __main__ __init__",
))

# Within a package, lowest first, by its sub-packages and top-level modules (`__init__`
# is the package's own). tune: the search, the decisions' home and the instruments import
# nothing else of tune; the checks and the measurers build on the search; answers and
# reports read decisions and measurements; `Tunable` and the `Tuner` drive them all.
INNER_LAYERS: dict[str, tuple[frozenset[str], ...]] = {
    "tune": tuple(frozenset(layer.split()) for layer in (
        "search decisions measuring",
        "checking fleet",
        "answers reporting",
        "tunable tuner bucket variants __init__",
    )),
}


def inner_layer_of(module: str) -> tuple[str, int | None] | None:
    """(package, layer within it) of a module of an `INNER_LAYERS` package, else None."""
    parts = module.split(".")
    if len(parts) < 2 or parts[1] not in INNER_LAYERS:
        return None
    part = parts[2] if len(parts) > 2 else "__init__"
    for number, layer in enumerate(INNER_LAYERS[parts[1]]):
        if part in layer:
            return parts[1], number
    return parts[1], None


def layer_of(module: str) -> int | None:
    """The layer of a clmodes module (by its top-level module or package), or None."""
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    for number, layer in enumerate(LAYERS):
        if top in layer:
            return number
    return None


def layer_problems(graph: dict[str, set[str]]) -> list[str]:
    problems = []
    for module in sorted(graph):
        own = layer_of(module)
        if own is None:
            problems.append(f"{module} is in no layer of ci/check_architecture.py's LAYERS")
            continue
        for target in sorted(graph[module]):
            theirs = layer_of(target)
            if theirs is not None and theirs > own:
                problems.append(f"layer order: {module} (layer {own}) imports {target} "
                                f"(layer {theirs}), a higher layer")
        inner = inner_layer_of(module)
        if inner is None:
            continue
        package, own_inner = inner
        if own_inner is None:
            problems.append(f"{module} is in no layer of clmodes.{package} in ci/check_architecture.py's "
                            f"INNER_LAYERS")
            continue
        for target in sorted(graph[module]):
            theirs_inner = inner_layer_of(target)
            if theirs_inner and theirs_inner[0] == package and (theirs_inner[1] or 0) > own_inner:
                problems.append(f"layer order within clmodes.{package}: {module} (layer {own_inner}) "
                                f"imports {target} (layer {theirs_inner[1]}), a higher layer")
    return problems


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(current: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = current.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports(tree: ast.AST, current: str, is_package: bool, known: set[str]) -> Iterator[tuple[str, str, list[str]]]:
    """(imported module, how, names imported from it)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "clmodes":
                    yield alias.name, f"import {alias.name}", []
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(current, is_package, node)
            if target.split(".")[0] != "clmodes":
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in known:  # `from clmodes.batch import unit`: the submodule
                    yield sub, f"from {target} import {alias.name}", []
                else:
                    yield target, f"from {target} import {alias.name}", [alias.name]


def defined_private(tree: ast.AST) -> set[str]:
    """Every `_name` the module itself defines: functions, classes, assignments,
    attributes set on anything, parameters, dataclass fields."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
    return {n for n in names if n.startswith("_")}


def foreign_roots(tree: ast.AST) -> set[str]:
    """Names bound to third-party modules (`import pyopencl as cl`)."""
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] != "clmodes":
                    roots.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] != "clmodes" and not node.level:
            for alias in node.names:
                roots.add(alias.asname or alias.name)
    return roots


def _root(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def reach_ins(tree: ast.AST, private: set[str], foreign: set[str]) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        attr = node.attr
        if not attr.startswith("_") or (attr.startswith("__") and attr.endswith("__")):
            continue
        if attr in private or _root(node.value) in foreign:
            continue
        yield node.lineno, f".{attr}"


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of two or more modules (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph.get(v, ()):
                found.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main(argv: list[str]) -> int:
    root = Path(argv[1] if len(argv) > 1 else Path(__file__).resolve().parents[1] / "clmodes")
    files = sorted(root.rglob("*.py"))
    trees = {module_name(root, f): (f, ast.parse(f.read_text(), str(f))) for f in files}
    known = set(trees)
    graph: dict[str, set[str]] = {m: set() for m in trees}
    problems: list[str] = []
    for name, (path, tree) in trees.items():
        is_package = path.name == "__init__.py"
        for target, how, names in imports(tree, name, is_package, known):
            if target in known and target != name:
                graph[name].add(target)
            for imported in names:
                if imported.startswith("_") and not imported.startswith("__") and target != name:
                    problems.append(f"{path}: `{how}` imports a private name of {target}")
        for line, what in reach_ins(tree, defined_private(tree), foreign_roots(tree)):
            problems.append(f"{path}:{line}: `{what}` reaches into another module's private name")
    for component in cycles(graph):
        problems.append("import circle: " + " -> ".join(component))
    problems += layer_problems(graph)
    for problem in problems:
        print(problem)
    print(f"check_architecture: {len(trees)} modules, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
