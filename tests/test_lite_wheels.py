"""coursebuild.lite.wheels and the two distributions: labcore's wheel comes from the standard build frontend.

- the root ``pyproject.toml`` is the labcore distribution alone: the wheel ``python -m build`` makes of it holds
  every module and data file of ``labcore/`` and nothing of coursebuild, and needs nothing to install;
- unchanged sources build the same bytes, whatever their mtimes (so a wheel's compiled copy comes from the
  bytecode cache);
- a module deleted since an earlier build is not in the next wheel (no stale ``build/lib``);
- coursebuild is its own distribution (``coursebuild/pyproject.toml``): installed, its myst-nb entry point
  resolves to the panels' renderer, and its wheel carries its static files and templates.
"""

from __future__ import annotations

import email.parser
import importlib.metadata
import os
import zipfile
from pathlib import Path

import pytest

import labcore
from coursebuild.lite import wheels as lite_wheels
from coursebuild.panels_site import VegaLitePage

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip("build", reason="the build frontend (requirements.txt) is not installed")


def _names(whl: Path) -> set[str]:
    with zipfile.ZipFile(whl) as zf:
        return set(zf.namelist())


def _metadata(whl: Path):
    with zipfile.ZipFile(whl) as zf:
        meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        return email.parser.Parser().parsestr(zf.read(meta).decode("utf-8"))


@pytest.fixture(scope="module")
def labcore_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return lite_wheels.build_labcore_wheel(tmp_path_factory.mktemp("labcore-build"))


def test_the_wheel_is_named_as_the_live_site_expects(labcore_wheel: Path) -> None:
    assert labcore_wheel.name == f"labcore-{labcore.__version__}-py3-none-any.whl"
    assert labcore_wheel.name.split("-")[0] == "labcore"  # compile_wheels(keep_source=("labcore",)) matches this


def test_the_wheel_holds_every_module_and_data_file_of_labcore(labcore_wheel: Path) -> None:
    tree = {
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "labcore").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix in {".py", ".json", ".typed"}
    }
    names = _names(labcore_wheel)
    assert tree - names == set()
    assert any(n.startswith("labcore/data/models/") and n.endswith(".json") for n in names)
    assert any(n.startswith("labcore/data/") and n.count("/") == 2 and n.endswith(".json") for n in names)
    if (ROOT / "labcore" / "py.typed").is_file():
        assert "labcore/py.typed" in names


def test_the_wheel_holds_nothing_but_labcore(labcore_wheel: Path) -> None:
    version = labcore.__version__
    others = {
        n
        for n in _names(labcore_wheel)
        if not n.startswith("labcore/") and not n.startswith(f"labcore-{version}.dist-info/")
    }
    assert others == set()
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in _names(labcore_wheel))
    assert f"labcore-{version}.dist-info/entry_points.txt" not in _names(labcore_wheel)


def test_the_wheel_needs_nothing_to_install(labcore_wheel: Path) -> None:
    meta = _metadata(labcore_wheel)
    assert meta["Name"] == "labcore" and meta["Version"] == labcore.__version__
    assert all("extra ==" in req for req in meta.get_all("Requires-Dist") or [])


def _project(root: Path, modules: list[str]) -> Path:
    (root / "demo_pkg").mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=77"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "demo-pkg"\nversion = "1.0"\n[tool.setuptools]\npackages = ["demo_pkg"]\n',
        encoding="utf-8",
    )
    for old in (root / "demo_pkg").glob("*.py"):
        old.unlink()
    for name in ["__init__", *modules]:
        (root / "demo_pkg" / f"{name}.py").write_text(f"NAME = {name!r}\n", encoding="utf-8")
    return root


@pytest.mark.slow  # left out of make test-quick; make test runs it
def test_the_wheel_follows_the_sources_not_their_mtimes_nor_an_earlier_build(tmp_path: Path) -> None:
    project = _project(tmp_path / "src", ["kept", "deleted"])
    first = lite_wheels.build_wheel(project, tmp_path / "first")
    assert {"demo_pkg/kept.py", "demo_pkg/deleted.py"} <= _names(first)
    for path in project.rglob("*"):
        os.utime(path, (1_900_000_000, 1_900_000_000))  # as a fresh checkout or an edit-and-undo leaves them
    second = lite_wheels.build_wheel(project, tmp_path / "second")
    assert lite_wheels.sha256_of(first) == lite_wheels.sha256_of(second)
    _project(project, ["kept"])
    third = lite_wheels.build_wheel(project, tmp_path / "third")
    assert "demo_pkg/kept.py" in _names(third) and "demo_pkg/deleted.py" not in _names(third)


def test_a_failed_build_says_why(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \n", encoding="utf-8")
    with pytest.raises(RuntimeError, match="python -m build` failed"):
        lite_wheels.build_wheel(tmp_path, tmp_path / "out")


# --- coursebuild, the other distribution ---


def test_the_panels_renderer_is_coursebuilds_entry_point() -> None:
    (entry,) = [
        e for e in importlib.metadata.entry_points(group="myst_nb.mime_renderers") if e.name == "labcore-panels"
    ]
    assert entry.dist is not None and entry.dist.metadata["Name"] == "coursebuild"
    assert entry.load() is VegaLitePage


def test_labcore_and_coursebuild_are_two_distributions() -> None:
    owners = importlib.metadata.packages_distributions()  # (an egg-info beside the sources may list one twice)
    assert set(owners["coursebuild"]) == {"coursebuild"} and set(owners["labcore"]) == {"labcore"}
    assert not importlib.metadata.distribution("labcore").entry_points
    assert "labcore" in (importlib.metadata.requires("coursebuild") or [])


def test_coursebuilds_wheel_carries_its_static_files_and_templates(tmp_path: Path) -> None:
    whl = lite_wheels.build_wheel(ROOT / "coursebuild", tmp_path / "out")
    names = _names(whl)
    static = {
        f"coursebuild/{p.relative_to(ROOT / 'coursebuild').as_posix()}"
        for p in (ROOT / "coursebuild").rglob("static/*")
        if p.is_file()
    }
    templates = {
        f"coursebuild/{p.relative_to(ROOT / 'coursebuild').as_posix()}"
        for p in (ROOT / "coursebuild" / "templates").glob("*/*")
        if p.is_file()
    }
    assert static and templates and static | templates <= names
    assert "coursebuild/vendor.py" in names and not any(n.startswith("labcore/") for n in names)
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    with zipfile.ZipFile(whl) as zf:
        assert "labcore-panels = coursebuild.panels_site:VegaLitePage" in zf.read(entry_points).decode()
