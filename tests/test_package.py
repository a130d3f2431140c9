"""The package's public names exist, and every script imports only names that exist.

A name moved from one module to another (``DEMO_RESULTS_FORMAT`` left ``peft_files`` for
``demo``) must not leave a stale ``__all__`` entry or a script importing from the old home;
the real-LoRA script only runs in the slow suite, so this catches it in seconds.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

import coursebuild
import labcore

ROOT = Path(__file__).resolve().parents[1]


def _modules(package) -> list[str]:
    return sorted(info.name for info in pkgutil.walk_packages(package.__path__, prefix=package.__name__ + "."))


@pytest.mark.parametrize("name", _modules(labcore) + _modules(coursebuild))
def test_every_name_in_all_exists(name):
    module = importlib.import_module(name)
    missing = [n for n in getattr(module, "__all__", ()) if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ lists names the module does not define: {missing}"


def _project_imports(path: Path) -> list[tuple[str, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [
        (node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in {"labcore", "coursebuild"}
        for alias in node.names
    ]


SOURCES = sorted((ROOT / "scripts").glob("*.py")) + sorted((ROOT / "benchmarks").glob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_scripts_import_only_names_that_exist(path):
    stale = []
    for module_name, name in _project_imports(path):
        module = importlib.import_module(module_name)
        if name != "*" and not hasattr(module, name):
            try:
                importlib.import_module(f"{module_name}.{name}")
            except ImportError:
                stale.append(f"from {module_name} import {name}")
    assert not stale, f"{path.name} imports names that do not exist: {stale}"


def test_the_check_sees_a_stale_import(tmp_path):
    """The check above can fail: a script importing a name from its old home is caught."""
    script = tmp_path / "old_home.py"
    script.write_text("from labcore.peft_files import DEMO_RESULTS_FORMAT\n", encoding="utf-8")
    ((module_name, name),) = _project_imports(script)
    assert not hasattr(importlib.import_module(module_name), name)
