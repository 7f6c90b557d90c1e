"""The shape of the code (issue 13): no import cycle among the project's modules, no module over 700 lines.

Imports are read from the source (``ast``), not by importing: every ``import``/``from ... import``
counts, wherever it is -- under ``if TYPE_CHECKING:`` or inside a function (an import put off until
call time to dodge a cycle is still a cycle).

``KNOWN_*`` list what other branches are still splitting: each may only shrink, and a listed module or
cycle that no longer offends fails the test too, so the list is kept honest.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("gdl", "solver")
MAX_LINES = 700

# Modules other helpers are still splitting (issue 13): remove an entry when its module is split.
KNOWN_LONG: set[str] = set()
# Cycles other helpers are still breaking, each as the sorted tuple of its modules.
KNOWN_CYCLES: set[tuple[str, ...]] = set()


def module_files() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


def imports_of(tree: ast.Module, module: str, is_package: bool, modules: set[str]) -> set[str]:
    """The modules named by the imports anywhere in a module.

    ``from pkg import sub`` names ``pkg.sub`` when that is a module (Python runs ``pkg``'s ``__init__``
    first, as it does for every submodule: a package's own module is no edge of its submodules).
    """
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package of this module
                parts = module.split(".")
                anchor = parts if is_package else parts[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            submodules = {f"{base}.{alias.name}" for alias in node.names} & modules
            found.update(submodules)
            if len(submodules) < len(node.names):  # some names are the module's own
                found.add(base)
    return found


def import_graph() -> dict[str, set[str]]:
    files = module_files()
    graph = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        named = imports_of(tree, name, path.name == "__init__.py", set(files))
        graph[name] = {m for m in named if m in files and m != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> set[tuple[str, ...]]:
    """The strongly connected components with more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: set[tuple[str, ...]] = set()
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.add(tuple(sorted(component)))
    return out


def test_no_import_cycles() -> None:
    found = cycles(import_graph())
    assert found - KNOWN_CYCLES == set(), "new import cycles"
    assert KNOWN_CYCLES - found == set(), "these cycles are broken now: remove them from KNOWN_CYCLES"


def test_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == {("a", "b", "c")}
    assert cycles({"a": {"b"}, "b": set()}) == set()


def test_the_compiler_and_the_runtime_do_not_import_each_other() -> None:
    graph = import_graph()
    compiler = {m for m in graph if m == "gdl.compiler" or m.startswith("gdl.compiler.")}
    assert not any("gdl.runtime" in graph[m] for m in compiler)


def test_no_module_over_700_lines() -> None:
    long = set()
    for path in module_files().values():
        with path.open(encoding="utf-8") as f:
            if sum(1 for _ in f) > MAX_LINES:
                long.add(path.relative_to(ROOT).as_posix())
    assert long - KNOWN_LONG == set(), f"modules over {MAX_LINES} lines"
    assert KNOWN_LONG - long == set(), "these modules are short enough now: remove them from KNOWN_LONG"


def test_solving_a_turn_game_does_not_load_scipy() -> None:
    """SciPy's LP solver takes a third of a second to import: only simultaneous games need it."""
    import subprocess
    import sys

    script = ("import contextlib, io, sys\nfrom gdl.cli import main\n"
              "with contextlib.redirect_stdout(io.StringIO()):\n    assert main(['solve', 'tictactoe']) == 0\n"
              "print(sorted(m for m in sys.modules if m.split('.')[0] in ('scipy', 'numpy')))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("package", ["gdl.compiler", "gdl.check"])
def test_every_name_a_lazy_package_lists_resolves(package: str) -> None:
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None, name
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018


def test_solvers_and_the_cli_read_the_game_protocol_not_getattr_fallbacks() -> None:
    """Issue 13: what solvers use is declared by solver.game.Game; no `getattr(game, ...)` with a default."""
    offenders = [f"{path.relative_to(ROOT)}:{number}" for directory in ("solver", "gdl/cli")
                 for path in sorted((ROOT / directory).rglob("*.py"))
                 for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if "getattr(game," in line.replace(" ", "")]
    assert offenders == []
