"""The import graph of the package: floors, not circles.

Module-level imports among ``mlx`` modules form no cycle (a type a module needs from a
floor above it lives in a leaf: ``mlx.ingest.summary.IngestReport``), and the cheap entry
points stay cheap: ``import mlx`` loads nothing but the package, ``import mlx.store``
no extractor and no spaCy.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "mlx"


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _targets(module: str, path: Path, node: ast.Import | ast.ImportFrom,
             modules: dict[str, Path]) -> set[str]:
    """The ``mlx`` modules one import statement loads."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module.split(".")
            if path.name != "__init__.py":
                package = package[:-1]
            package = package[:len(package) - node.level + 1]
            base = ".".join([*package, base] if base else package)
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                 for a in node.names]
    return {n for n in names if n in modules and n != module}


def module_graph() -> dict[str, set[str]]:
    """Each module's module-level imports of other ``mlx`` modules (those under ``if``
    and ``try`` at module level too; not those inside functions, the lazy ones)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text())
        nodes = list(tree.body)
        for node in tree.body:
            if isinstance(node, (ast.If, ast.Try)):
                nodes += node.body + getattr(node, "orelse", [])
        graph[module] = set().union(*(
            _targets(module, path, n, modules) for n in nodes
            if isinstance(n, (ast.Import, ast.ImportFrom))))
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> list[str] | None:
        for nxt in sorted(graph.get(node, ())):
            if nxt in path:
                return path[path.index(nxt):] + [nxt]
            if nxt not in done:
                if (found := visit(nxt, [*path, nxt])) is not None:
                    return found
        done.add(node)
        return None
    for start in sorted(graph):
        if start not in done and (found := visit(start, [start])) is not None:
            return found
    return None


def test_module_level_imports_form_no_cycle() -> None:
    graph = module_graph()
    assert len(graph) > 50 and graph["mlx.api"]  # the walk sees the package
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_a_cycle_is_found() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def _loaded(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    return set(out.stdout.split())


def test_the_cheap_entry_points_stay_cheap() -> None:
    # (the empty mlx.ingest package loads first, so the function mlx.ingest keeps its name)
    assert {m for m in _loaded("import mlx") if m.startswith("mlx")} == {
        "mlx", "mlx.errors", "mlx.ingest"}
    store = _loaded("import mlx.store")
    assert not {m for m in store if m.startswith(("mlx.extract", "mlx.analyse", "spacy",
                                                  "pandas"))}


def test_no_module_imports_another_modules_private_names() -> None:
    """A name that starts with "_" stays in its module: what another module needs is
    public (``rows.schema_of``, ``patch_columns.parsed_table``, ``Store.read_part_as``)."""
    private = []
    for module, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mlx"):
                private += [f"{module}: {node.module}.{a.name}" for a in node.names
                            if a.name.startswith("_")]
    assert private == []


def test_no_module_is_over_600_lines() -> None:
    """A module that grows past 600 lines is split along what it holds."""
    long = {m: n for m, p in _modules().items() if (n := len(p.read_text().splitlines())) > 600}
    assert long == {}


def test_no_function_is_over_60_lines() -> None:
    """A function that grows past 60 lines is split into the steps it takes."""
    long = {f"{m}.{f.name}": n for m, p in _modules().items()
            for f in ast.walk(ast.parse(p.read_text()))
            if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
            and (n := (f.end_lineno or f.lineno) - f.lineno + 1) > 60}
    assert long == {}


# The function-level imports of mlx modules, each with why it waits for its first use; any
# other import of an mlx module is at the top of its module (a floor below it)
LAZY = {
    # ``import mlx`` loads nothing but the package: the front end on first use
    ("mlx", "mlx"): "mlx.api, on first use",
    ("mlx", "mlx.archive"): "mlx.load's Archive, on first use",
    # pandas' claims rules and matplotlib load when a table or plot is asked for
    ("mlx.archive", "mlx.analyse.claims"): "the claims, when asked for",
    ("mlx.archive", "mlx.analyse.repeats"): "the claims' repeats, when asked for",
    ("mlx.archive", "mlx.report"): "matplotlib's plots, when asked for",
    # a command loads what it runs
    ("mlx.cli", "mlx.analyse.repeats"): "mlx claims",
    ("mlx.cli", "mlx.report.show"): "mlx show, mlx claims",
    ("mlx.cli", "mlx.report.export"): "mlx export, mlx report",
    # the one arrow up: the link pass stores the claims of what it linked, read by the
    # analysis over the link tables it has just written
    ("mlx.link", "mlx.analyse.claims"): "the claims the pass stores",
    ("mlx.link", "mlx.archive"): "the tables the claims read",
    # the report's pages and plots: matplotlib on use
    ("mlx.report.export", "mlx.report"): "the site, for mlx report",
    ("mlx.report.site", "mlx.report"): "matplotlib's plots",
}


def test_every_function_level_import_is_a_documented_lazy_one() -> None:
    found = set()
    for module, path in _modules().items():
        for fn in ast.walk(ast.parse(path.read_text())):
            if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                found |= {(module, n.module) for n in ast.walk(fn)
                          if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("mlx")}
                found |= {(module, a.name) for n in ast.walk(fn) if isinstance(n, ast.Import)
                          for a in n.names if a.name.startswith("mlx")}
    assert found == set(LAZY)
