import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("core", "llm_adapters", "slidesearch", "tenturns", "eval", "cli", "bench")


def _module_names(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def _known_prefix(dotted: str, modules: dict[str, Path]) -> str | None:
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def _imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Every repository module ``name`` imports, at module level or inside a function or class.

    ``from x import y`` depends on ``x.y`` when that is a module, else on ``x``; a relative import
    is resolved against the module's package (a package's ``__init__`` is its own package).
    A submodule's implicit import of its parent package is not an edge: a package importing its
    own submodules is the ordinary pattern, not a circle.
    """
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base_parts = package[: len(package) - node.level + 1] if node.level else []
            base = ".".join([*base_parts, *([node.module] if node.module else [])])
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names
            ]
        else:
            continue
        for target in targets:
            module = _known_prefix(target, modules)
            if module is not None and module != name:
                found.add(module)
    return found


def import_graph(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> dict[str, set[str]]:
    modules = _module_names(root, packages)
    return {name: _imports_of(name, path, modules) for name, path in modules.items()}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (``a -> b -> ... -> a``) per strongly connected component of more than one module.

    Tarjan's algorithm finds the components; a breadth-first search inside each gives a
    shortest cycle through its first module, which is the one worth printing.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return [_shortest_cycle(graph, component) for component in sorted(components)]


def _shortest_cycle(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    start, members = component[0], set(component)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph[node] & members):
                if nxt == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if nxt not in came_from:
                    came_from[nxt] = node
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"{component} is not strongly connected")


def _describe(cycles: list[list[str]]) -> str:
    return "\n".join(" -> ".join(cycle) for cycle in cycles)


def _write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


class TestImportGraph:
    def test_nested_relative_and_from_module_imports_are_all_edges(self, tmp_path):
        _write(
            tmp_path,
            {
                "pkg/__init__.py": "",
                "pkg/a.py": "def f():\n    from pkg import b\n",
                "pkg/b.py": "from . import c\nfrom .sub.d import thing\n",
                "pkg/c.py": "import pkg.sub\n",
                "pkg/sub/__init__.py": "from ..a import f\n",
                "pkg/sub/d.py": "import os\nthing = 1\n",
            },
        )
        graph = import_graph(tmp_path, ("pkg",))
        assert graph == {
            "pkg": set(),
            "pkg.a": {"pkg.b"},
            "pkg.b": {"pkg.c", "pkg.sub.d"},
            "pkg.c": {"pkg.sub"},
            "pkg.sub": {"pkg.a"},
            "pkg.sub.d": set(),
        }

    def test_a_name_imported_from_a_package_is_an_edge_to_the_package(self, tmp_path):
        _write(
            tmp_path,
            {"pkg/__init__.py": "from pkg.impl import run\n", "pkg/impl.py": "from pkg import run\n"},
        )
        assert import_graph(tmp_path, ("pkg",)) == {"pkg": {"pkg.impl"}, "pkg.impl": {"pkg"}}

    def test_a_circle_is_printed_along_its_imports(self, tmp_path):
        graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
        assert import_cycles(graph) == [["a", "b", "c", "a"]]

    def test_a_one_way_graph_has_no_cycle(self):
        assert import_cycles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_the_repository_has_no_import_cycle():
    cycles = import_cycles(import_graph())
    assert not cycles, f"import cycles:\n{_describe(cycles)}"
