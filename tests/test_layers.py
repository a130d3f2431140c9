"""The layers of the house hold: no import runs up a layer (read from every module's own import statements).

- the core (versions, refs ... fleet, sizing, errors) imports nothing from the simulator or the presentation layer
  (plots, panels, checks, quizzes) and nothing from coursebuild;
- a mechanism (any labcore module outside ``sim/``, ``plots/``, ``panels/``, ``checks/``, ``quizzes/``, the package's
  ``__init__`` and its command line ``__main__``) imports
  nothing from ``labcore.sim``: importing any of its modules runs ``labcore/sim/__init__.py``, which loads every
  scenario;
- the presentation layer imports nothing from coursebuild;
- the chapters' manifests (``labcore.chapters``) are the top of the presentation layer: they import panels, checks
  and quizzes, and nothing else in labcore imports them (the site build and the tests do);
- coursebuild imports only labcore's public names (no ``_private`` module or name).

Only module-level and function-level ``import`` statements count; doctests do not.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LABCORE = ROOT / "labcore"
CORE = ("versions", "refs", "sizing", "adapter", "registry", "cache", "router", "fleet", "errors")
PRESENTATION = ("plots", "panels", "checks", "quizzes", "chapters")
#: the top of the house: the package's facade and its command line may import any layer
APPLICATION = ("labcore", "labcore.__main__")


def module_name(path: Path, root: Path = ROOT) -> str:
    """Return the dotted name of a source file under ``root`` (``labcore/sim/replay.py`` -> ``labcore.sim.replay``)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, root: Path = ROOT) -> list[tuple[str, tuple[str, ...], int]]:
    """Return every import of a file as (absolute module, names taken, line)."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, (), node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names = tuple(alias.name for alias in node.names)
            if node.level and not node.module:  # ``from . import x``: each name is a module
                found.extend((f"{target}.{name}", (), node.lineno) for name in names)
            else:
                found.append((target, names, node.lineno))
    return found


def sources(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def under(module: str, *prefixes: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def wrong_way(path: Path, root: Path = ROOT) -> list[str]:
    """Return each import of ``path`` that runs up a layer, as ``file:line imports module``."""
    name = module_name(path, root)
    problems = []
    for target, names, line in imports(path, root):
        where = f"{path.relative_to(root)}:{line} imports {target}"
        if under(name, *(f"labcore.{m}" for m in CORE)) and (
            under(target, "labcore.sim", "coursebuild", *(f"labcore.{m}" for m in PRESENTATION))
        ):
            problems.append(f"{where} (the core imports no simulator, presentation or site code)")
        elif (
            under(name, "labcore")
            and not under(name, "labcore.sim", *(f"labcore.{m}" for m in PRESENTATION))
            and name not in APPLICATION
            and under(target, "labcore.sim")
        ):
            problems.append(
                f"{where} (a mechanism imports nothing from labcore.sim, whose package loads every scenario)"
            )
        if under(target, "labcore.chapters") and under(name, "labcore") and not under(name, "labcore.chapters"):
            problems.append(f"{where} (nothing in labcore imports the chapters' manifests: they are its top)")
        if under(name, *(f"labcore.{m}" for m in PRESENTATION)) and under(target, "coursebuild"):
            problems.append(f"{where} (the presentation layer imports no site code)")
        if under(name, "coursebuild") and under(target, "labcore"):
            private = [part for part in target.split(".") if part.startswith("_")]
            private += [n for n in names if n.startswith("_")]
            if private:
                problems.append(f"{where} {', '.join(private)} (coursebuild imports only labcore's public names)")
    return problems


@pytest.mark.parametrize("folder", ["labcore", "coursebuild"])
def test_no_import_runs_up_a_layer(folder: str) -> None:
    problems = [p for path in sources(ROOT / folder) for p in wrong_way(path)]
    assert not problems, "\n".join(problems)


def test_each_rule_catches_a_wrong_way_import(tmp_path: Path) -> None:
    """Each rule fails on a file written to break it (so the test above can fail)."""
    cases = {
        "labcore/cache.py": "from .plots import plot_vram_used\n",
        "labcore/batching.py": "from .sim.workload import zipf_weights\n",
        "labcore/plots/cache.py": "import coursebuild.slides\n",
        "labcore/panels/cache.py": "from ..chapters import PANELS\n",
        "labcore/checks/__init__.py": "import labcore.chapters.the_cache\n",
        "coursebuild/x.py": "from labcore.panels._grid import spec_grid_key\n",
        "coursebuild/y.py": "from labcore.panels import _grid\n",
    }
    for rel, text in cases.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        assert len(wrong_way(path, tmp_path)) == 1, rel
    (tmp_path / "labcore" / "ok.py").write_text("from .versions import parse_version\n", encoding="utf-8")
    assert wrong_way(tmp_path / "labcore" / "ok.py", tmp_path) == []
    (tmp_path / "labcore" / "chapters").mkdir()
    (tmp_path / "labcore" / "chapters" / "ok.py").write_text(
        "from ..panels.cache import lru_thrash_panel\nfrom ._chapter import Chapter\n", encoding="utf-8"
    )
    assert wrong_way(tmp_path / "labcore" / "chapters" / "ok.py", tmp_path) == []


def circles(root: Path, folders: tuple[str, ...] = ("labcore", "coursebuild")) -> list[list[str]]:
    """Return each set of modules under ``root`` that import each other in a loop (imports under ``TYPE_CHECKING``
    count: a type checker and a reader follow them too), each sorted; [] when the import graph has no circle."""
    modules = {module_name(p, root): p for folder in folders for p in sources(root / folder)}
    graph = {
        name: {
            m
            for target, names, _ in imports(path, root)
            for m in (target, *(f"{target}.{n}" for n in names))
            if m in modules and m != name
        }
        for name, path in modules.items()
    }
    found, reach = [], {}
    for start in graph:  # the modules reachable from each; a circle is a set of modules that reach each other
        seen, todo = set(), list(graph[start])
        while todo:
            m = todo.pop()
            if m not in seen:
                seen.add(m)
                todo.extend(graph[m])
        reach[start] = seen
    for name in sorted(graph):
        loop = sorted(m for m in reach[name] if name in reach[m])
        if loop and loop not in found:
            found.append(loop)
    return found


def test_no_two_modules_import_each_other() -> None:
    assert circles(ROOT) == []


def test_a_loop_of_imports_is_found(tmp_path: Path) -> None:
    """A type-checking import that closes a loop is a circle too (so the test above can fail)."""
    (tmp_path / "labcore").mkdir()
    (tmp_path / "labcore" / "run.py").write_text("from .table import show\n", encoding="utf-8")
    (tmp_path / "labcore" / "table.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .run import Run\n", encoding="utf-8"
    )
    (tmp_path / "labcore" / "alone.py").write_text("from .run import Run\n", encoding="utf-8")
    assert circles(tmp_path, ("labcore",)) == [["labcore.run", "labcore.table"]]
