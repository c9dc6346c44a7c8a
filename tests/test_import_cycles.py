"""No import cycles in the platform or the libraries.

The import graph is built from the source (the AST), not by importing anything:

* an edge A -> B for every ``import B`` / ``from B import x`` in A, where B is one of the
  modules checked here (``from pkg import sub`` is an edge to the submodule ``pkg.sub``);
* importing ``a.b.c`` is an edge to ``a.b.c`` and also to the ``__init__`` of the packages ``a``
  and ``a.b``, which Python runs first, except of the packages that hold the importing module
  itself: Python has already started those (otherwise every module would be in a cycle with its
  own package's ``__init__``). Such an edge goes to a node ``a.b.__init__`` that has only the
  module-level imports of ``a.b``'s ``__init__`` (running it runs those, not its functions, e.g.
  a lazy ``__getattr__``). A package ``__init__`` that imports a high module therefore puts that
  module in front of everyone who imports one of the package's low modules;
* imports under ``if TYPE_CHECKING:`` are left out: they never run;
* ``from pkg import name`` where ``name`` is a compiled extension of ``pkg`` (``scoring.metrics._ter``)
  imports that extension, not ``pkg``;
* one idiom is allowed: Flask's blueprint package, whose ``__init__`` creates ``bp`` and then
  imports its views, which take ``bp`` back with ``from . import bp``. Python always starts a
  package before its submodules, so this never depends on which module is imported first. Only
  the name ``bp``, and only from a package above the importing module, is let through.

Two graphs are checked: the module-level imports (they run when the module is imported, so a
cycle there depends on which module is imported first) and all imports, also those inside
functions (a cycle there is hidden coupling: two layers that call each other). Both must be
acyclic; a failure names the cycle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: source folder -> the top-level packages in it that are checked
PACKAGES = {ROOT / "platform": ("enface",), ROOT: ("scoring", "mqm", "humaneval")}


def module_names() -> dict[str, Path]:
    """Every module of the checked packages: dotted name -> file."""
    out: dict[str, Path] = {}
    for folder, packages in PACKAGES.items():
        for pkg in packages:
            if not (folder / pkg / "__init__.py").is_file():
                continue
            for path in sorted((folder / pkg).rglob("*.py")):
                parts = path.relative_to(folder).with_suffix("").parts
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.Module) -> Iterable[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement with whether it runs at import time (not inside a function)."""

    def walk(node: ast.AST, in_function: bool):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child, not in_function
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.orelse:   # `if TYPE_CHECKING: ... else: <runs>`
                    yield from walk(ast.Module(body=[stmt], type_ignores=[]), in_function)
            else:
                yield from walk(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                          ast.Lambda)))

    yield from walk(tree, False)


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _known(name: str, modules: dict[str, Path]) -> str | None:
    """The module itself, or the nearest package above it that is checked (``import a.b.thing``)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


#: file suffixes of a submodule that is not Python source (a compiled extension, or its C source
#: where the extension has not been built)
EXTENSION_SUFFIXES = (".so", ".pyd", ".c", ".pyx")


def _is_extension(package: str, name: str, modules: dict[str, Path]) -> bool:
    path = modules.get(package)
    if path is None or path.name != "__init__.py":
        return False
    return any(f.suffix in EXTENSION_SUFFIXES and f.name.split(".")[0] == name for f in path.parent.iterdir())


def _blueprint_idiom(module: str, target: str, names: list[str]) -> bool:
    return module.startswith(target + ".") and names == ["bp"]


def import_graph(modules: dict[str, Path] | None = None) -> dict[str, dict[str, list[tuple[bool, int]]]]:
    """module -> {imported module: [(at module level, line), ...]}."""
    modules = module_names() if modules is None else modules
    graph: dict[str, dict[str, list[tuple[bool, int]]]] = {m: {} for m in modules}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        is_package = path.name == "__init__.py"
        for node, top in _imports(tree):
            targets: list[str | None] = []
            if isinstance(node, ast.Import):
                targets = [_known(alias.name, modules) for alias in node.names]
            else:
                base = _resolve(module, is_package, node)
                names = []
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    if sub in modules:
                        targets.append(sub)
                    elif not _is_extension(base, alias.name, modules):
                        names.append(alias.name)
                if names:
                    target = _known(base, modules)
                    targets.append(None if target and _blueprint_idiom(module, target, names) else target)
            for target in targets:
                if target is None:
                    continue
                for reached in (target, *(INIT.format(p) for p in _packages_started(module, target, modules))):
                    if reached != module:
                        graph[module].setdefault(reached, []).append((top, node.lineno))
    for init in {b for out in graph.values() for b in out} - set(graph):   # the `pkg.__init__` nodes
        graph[init] = {b: [s for s in sites if s[0]] for b, sites in graph[init.removesuffix(".__init__")].items()
                       if any(top for top, _ in sites)}
    return graph


#: the node of a package's ``__init__`` run on the way to one of its submodules
INIT = "{}.__init__"


def _packages_started(module: str, target: str, modules: dict[str, Path]) -> list[str]:
    """The packages whose ``__init__`` runs when ``module`` imports ``target``: those above
    ``target`` that do not hold ``module`` (Python started those before ``module`` itself)."""
    parts = target.split(".")
    out = []
    for n in range(1, len(parts)):
        package = ".".join(parts[:n])
        if package in modules and not (module == package or module.startswith(package + ".")):
            out.append(package)
    return out


def edges(graph, module_level_only: bool) -> dict[str, set[str]]:
    return {a: {b for b, sites in out.items() if not module_level_only or any(top for top, _ in sites)}
            for a, out in graph.items()}


def cycles(adjacency: dict[str, set[str]]) -> list[list[str]]:
    """One shortest cycle through each strongly connected component that has one."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def strongconnect(v: str):   # Tarjan, iteratively: deep graphs must not hit the recursion limit
        work = [(v, iter(sorted(adjacency[v])))]
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        while work:
            node, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(adjacency[w]))))
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    components.append(comp)

    for v in sorted(adjacency):
        if v not in index:
            strongconnect(v)

    out = []
    for comp in components:
        members = set(comp)
        if len(comp) == 1 and comp[0] not in adjacency[comp[0]]:
            continue
        start = min(comp)
        # breadth-first from start, inside the component, back to start: a shortest cycle
        parent: dict[str, str] = {}
        frontier = [start]
        found = None
        while frontier and found is None:
            nxt = []
            for v in frontier:
                for w in sorted(adjacency[v] & members):
                    if w == start:
                        found = v
                        break
                    if w not in parent:
                        parent[w] = v
                        nxt.append(w)
                if found is not None:
                    break
            frontier = nxt
        path = [found]
        while path[-1] != start:
            path.append(parent[path[-1]])
        out.append(list(reversed(path)) + [start])
    return out


def describe(cycle: list[str], graph) -> str:
    steps = []
    for a, b in zip(cycle, cycle[1:]):
        sites = graph[a][b]
        where = ", ".join(f"line {line}{'' if top else ' (in a function)'}" for top, line in sites)
        steps.append(f"  {a} -> {b}  ({where})")
    return " -> ".join(cycle) + "\n" + "\n".join(steps)


@pytest.fixture(scope="module")
def graph():
    return import_graph()


def test_the_graph_sees_the_packages(graph):
    """A guard against a vacuous pass: the modules and some known edges are there."""
    assert {"enface", "enface.services.submissions", "enface.job_queue", "enface.commands", "scoring",
            "mqm"} <= set(graph)
    assert "enface.job_queue" in graph["enface.services.submissions"]
    assert "enface.commands.campaigns" in graph["enface.commands"]


@pytest.mark.parametrize("module_level_only", [True, False], ids=["module-level", "all-imports"])
def test_no_import_cycles(graph, module_level_only):
    found = cycles(edges(graph, module_level_only))
    what = "module-level imports" if module_level_only else "imports (module level or inside functions)"
    assert not found, f"import cycles among {what}:\n" + "\n\n".join(describe(c, graph) for c in found)


def test_the_checker_finds_a_cycle(tmp_path):
    """The checker itself: a cycle through a function-level import, and one hidden by TYPE_CHECKING."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from .a import x\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .d import y\n")
    (pkg / "d.py").write_text("import pkg.c\n")
    modules = {"pkg": pkg / "__init__.py", **{f"pkg.{n}": pkg / f"{n}.py" for n in "abcd"}}
    g = import_graph(modules)
    assert cycles(edges(g, module_level_only=True)) == []
    assert cycles(edges(g, module_level_only=False)) == [["pkg.a", "pkg.b", "pkg.a"]]
    assert "line 2 (in a function)" in describe(["pkg.a", "pkg.b", "pkg.a"], g)


def test_the_checker_counts_imports_through_a_package_init(tmp_path):
    """``import pkg.sub.low`` runs ``pkg/sub/__init__``: when that imports a module that imports
    back, it is a cycle; a lazy import in a function of that ``__init__`` is not run by it."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "lazy").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from . import high\n")
    (pkg / "sub" / "low.py").write_text("")
    (pkg / "sub" / "high.py").write_text("def f():\n    from pkg import service\n")
    (pkg / "service.py").write_text("from pkg.sub import low\nfrom pkg.lazy import models\n")
    (pkg / "lazy" / "__init__.py").write_text("def __getattr__(name):\n    from . import views\n")
    (pkg / "lazy" / "models.py").write_text("")
    (pkg / "lazy" / "views.py").write_text("from pkg import service\n")
    names = ["", "sub", "sub.low", "sub.high", "service", "lazy", "lazy.models", "lazy.views"]
    modules = {".".join(["pkg", n] if n else ["pkg"]): (pkg / n.replace(".", "/")).with_suffix(".py")
               for n in names}
    modules["pkg"], modules["pkg.sub"], modules["pkg.lazy"] = (pkg / "__init__.py", pkg / "sub" / "__init__.py",
                                                               pkg / "lazy" / "__init__.py")
    g = import_graph(modules)
    assert "pkg.sub.__init__" in g["pkg.service"] and "pkg.sub.low" in g["pkg.service"]
    assert "pkg.__init__" not in g["pkg.service"]   # Python started pkg before pkg.service
    assert cycles(edges(g, module_level_only=True)) == []
    assert cycles(edges(g, module_level_only=False)) == [
        ["pkg.service", "pkg.sub.__init__", "pkg.sub.high", "pkg.service"]]


def test_the_queue_and_the_command_modules_stay_below_what_uses_them(graph):
    """The job queue imports no service (the services import it); command modules never import the root group."""
    assert not [m for m in graph["enface.job_queue"] if m.startswith(("enface.services", "enface.jobs.tasks"))]
    for module, imported in graph.items():
        if module.startswith("enface.commands.") and module != "enface.commands.__main__":
            assert "enface.commands" not in imported, f"{module} imports enface.commands (the root group)"
