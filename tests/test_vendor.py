"""coursebuild.vendor: the site's browser libraries come from ``npm ci`` of the committed lock, then a copy.

- ``package.json`` pins exact versions and ``package-lock.json`` agrees with it, with an integrity hash for
  every package (what ``npm ci`` checks); MathJax 3 (typesetting at build time) and 2 (the decks, the alias
  ``mathjax2``) are both there;
  axe-core is a development dependency only, and nothing of it is copied into the site;
- ``npm ci`` leaves every file the copy needs, and the copy holds the files the pages and decks load;
- :func:`coursebuild.vendor.node_modules` runs ``npm ci`` only when ``node_modules/`` is missing or was
  installed from another lock, and says so clearly when npm is missing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from coursebuild import panels_site, slides, vendor
from coursebuild.vendor import ASSETS, NpmError

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
LOCK = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))
DEPENDENCIES = PACKAGE["dependencies"]
DEV_DEPENDENCIES = PACKAGE["devDependencies"]
EXACT = re.compile(r"^(?:npm:(?P<name>(?:@[\w.-]+/)?[\w.-]+)@)?(?P<version>\d+\.\d+\.\d+)$")


def _pin(spec: str) -> tuple[str | None, str]:
    match = EXACT.match(spec)
    assert match, f"{spec!r} is not an exact version (or an npm alias of one)"
    return match["name"], match["version"]


@pytest.mark.parametrize("name", sorted({**DEPENDENCIES, **DEV_DEPENDENCIES}))
def test_the_lock_holds_the_exact_version_package_json_pins(name: str) -> None:
    spec = {**DEPENDENCIES, **DEV_DEPENDENCIES}[name]
    alias_of, version = _pin(spec)
    entry = LOCK["packages"][f"node_modules/{name}"]
    assert entry["version"] == version
    assert entry.get("name", name) == (alias_of or name)
    assert entry["integrity"].startswith("sha512-"), f"{name}: npm ci checks the tarball against this hash"
    assert entry.get("dev", False) == (name in DEV_DEPENDENCIES)


def test_the_lock_was_made_from_this_package_json() -> None:
    root = LOCK["packages"][""]
    assert LOCK["lockfileVersion"] >= 2 and LOCK["name"] == PACKAGE["name"]
    assert root.get("dependencies", {}) == DEPENDENCIES
    assert root.get("devDependencies", {}) == DEV_DEPENDENCIES


def test_every_locked_package_has_an_integrity_hash() -> None:
    missing = [key for key, entry in LOCK["packages"].items() if key and "integrity" not in entry]
    assert not missing, f"locked without an integrity hash (npm ci could not check them): {missing}"


def test_the_lock_names_no_download_address() -> None:
    """npm ci takes each package from the configured registry by name and version (the lock was made with
    ``--omit-lockfile-registry-resolved``), so the committed lock names no host."""
    resolved = [key for key, entry in LOCK["packages"].items() if "resolved" in entry]
    assert not resolved, f"regenerate the lock with npm's --omit-lockfile-registry-resolved: {resolved[:3]}"


def test_vendor_copies_only_from_runtime_dependencies() -> None:
    packages = {a.package for a in ASSETS}
    assert packages <= set(DEPENDENCIES), "every package vendor copies from is a dependency in package.json"
    assert not packages & set(DEV_DEPENDENCIES)


def test_axe_core_is_for_the_tests_only() -> None:
    assert DEV_DEPENDENCIES == {"axe-core": "4.14.1"}
    assert "axe-core" not in DEPENDENCIES
    assert all("axe" not in a.package for a in ASSETS)


def test_the_build_typesets_with_mathjax_3_and_the_decks_load_mathjax_2() -> None:
    assert _pin(DEPENDENCIES["mathjax"])[1].startswith("3.")
    assert _pin(DEPENDENCIES["mathjax2"]) == ("mathjax", _pin(DEPENDENCIES["mathjax2"])[1])
    assert _pin(DEPENDENCIES["mathjax2"])[1].startswith("2.")
    targets = {a.package: a.target for a in ASSETS}
    assert "mathjax" not in targets, "the pages' maths is typeset at build time (coursebuild/math_svg.py)"
    assert targets["mathjax2"] == "slides/mathjax2"


# --- npm ci and the copy (the repository's node_modules/, installed by npm ci when missing or stale) ---


@pytest.fixture(scope="module")
def modules() -> Path:
    try:
        return vendor.node_modules()
    except NpmError as err:
        pytest.skip(str(err))


@pytest.fixture(scope="module")
def copied(modules: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    dest = tmp_path_factory.mktemp("vendor") / "_vendor"
    return dest, vendor.copy_assets(dest)


def test_npm_ci_installed_the_locked_versions(modules: Path) -> None:
    locked = vendor.locked_versions()
    for name in {**DEPENDENCIES, **DEV_DEPENDENCIES}:
        assert vendor.installed_version(name) == locked[name], name


@pytest.mark.parametrize("asset", ASSETS, ids=lambda a: a.package)
def test_npm_ci_leaves_every_file_the_copy_needs(modules: Path, asset: vendor.Asset) -> None:
    files = vendor.asset_files(asset, modules)
    names = {rel.rsplit("/", 1)[-1] for rel in files}
    assert set(asset.only) <= names
    rels = {rel[len(asset.target) + 1 :] for rel in files}
    for path in asset.paths:
        assert path in rels or any(r.startswith(path + "/") for r in rels), f"{asset.package}: {path} is missing"
    assert not any(r.endswith(asset.skip_suffixes) for r in rels)


def test_the_copy_holds_what_the_pages_and_decks_load(copied: tuple[Path, list[str]]) -> None:
    dest, files = copied
    pages = [s.removeprefix("../") for s in panels_site.SCRIPTS if s.startswith("../")]
    pages += ["tippy/popper.min.js", "tippy/tippy-bundle.umd.min.js"]  # _config.yml
    decks = [
        f"{slides.SLIDES_DIR}/{p.split('?')[0]}" for p in (slides.REQUIRE_JS, slides.JQUERY_JS, slides.MATHJAX2_JS)
    ]
    decks += [
        f"{slides.SLIDES_DIR}/{slides.REVEAL_PREFIX}/{slides.NOTES_PLUGIN[0]}",
        f"{slides.SLIDES_DIR}/{slides.REVEAL_PREFIX}/dist/reveal.js",
    ]
    for rel in pages + decks:
        assert rel in files and (dest / rel).is_file(), rel
    assert (
        sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file() and p.name != vendor.COPY_STAMP)
        == files
    )


def test_nothing_of_axe_core_is_copied(copied: tuple[Path, list[str]], modules: Path) -> None:
    dest, files = copied
    assert not [f for f in files if "axe" in f.lower()]
    axe = (modules / "axe-core" / "axe.min.js").read_bytes()
    assert all((dest / f).read_bytes() != axe for f in files)


def test_the_copy_is_the_installed_files(copied: tuple[Path, list[str]], modules: Path) -> None:
    dest, _files = copied
    for asset in ASSETS:
        for rel, src in vendor.asset_files(asset, modules).items():
            assert (dest / rel).read_bytes() == src.read_bytes(), rel


def test_a_second_copy_does_nothing(copied: tuple[Path, list[str]], capsys: pytest.CaptureFixture) -> None:
    dest, files = copied
    before = {f: (dest / f).stat().st_mtime_ns for f in files}
    assert vendor.copy_assets(dest) == files
    assert "up to date" in capsys.readouterr().out
    assert {f: (dest / f).stat().st_mtime_ns for f in files} == before


# --- when npm ci runs (a small fake project, npm replaced) ---


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    """A project with two locked packages and an ``npm ci`` that installs them (records each run)."""
    (tmp_path / "package.json").write_text(
        json.dumps({"name": "p", "dependencies": {"vega": "1.0.0"}, "devDependencies": {"axe-core": "2.0.0"}}),
        encoding="utf-8",
    )
    lock = {
        "name": "p",
        "lockfileVersion": 3,
        "packages": {
            "": {"dependencies": {"vega": "1.0.0"}, "devDependencies": {"axe-core": "2.0.0"}},
            "node_modules/vega": {"version": "1.0.0", "integrity": "sha512-x"},
            "node_modules/axe-core": {"version": "2.0.0", "integrity": "sha512-y", "dev": True},
        },
    }
    (tmp_path / "package-lock.json").write_text(json.dumps(lock), encoding="utf-8")
    runs: list[list[str]] = []

    def fake_npm(cmd, cwd, check):
        runs.append(cmd)
        packages = json.loads((Path(cwd) / "package-lock.json").read_text(encoding="utf-8"))["packages"]
        for key, entry in packages.items():
            if key:
                (Path(cwd) / key).mkdir(parents=True, exist_ok=True)
                (Path(cwd) / key / "package.json").write_text(json.dumps({"version": entry["version"]}))
        return type("Done", (), {"returncode": 0})()

    monkeypatch.setattr(vendor.subprocess, "run", fake_npm)
    monkeypatch.setattr(vendor.shutil, "which", lambda name: "/usr/bin/npm")
    return {"root": tmp_path, "runs": runs}


def test_npm_ci_runs_once_per_lock(project: dict) -> None:
    root, runs = project["root"], project["runs"]
    assert vendor.node_modules(root) == root / "node_modules"
    assert vendor.node_modules(root) == root / "node_modules"
    assert len(runs) == 1 and runs[0][1:] == list(vendor.NPM_CI)
    lock = json.loads((root / "package-lock.json").read_text(encoding="utf-8"))
    lock["packages"]["node_modules/vega"]["version"] = "1.0.1"
    (root / "package-lock.json").write_text(json.dumps(lock), encoding="utf-8")
    vendor.node_modules(root)
    assert len(runs) == 2 and vendor.installed_version("vega", root) == "1.0.1"


def test_npm_ci_runs_again_when_a_package_is_missing(project: dict) -> None:
    root, runs = project["root"], project["runs"]
    vendor.node_modules(root)
    (root / "node_modules" / "axe-core" / "package.json").unlink()
    vendor.node_modules(root)
    assert len(runs) == 2


def test_missing_npm_is_named(project: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vendor.shutil, "which", lambda name: None)
    with pytest.raises(NpmError, match="npm is missing.*npm ci"):
        vendor.node_modules(project["root"])
    assert not project["runs"]


def test_a_failed_npm_ci_leaves_no_stamp(project: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vendor.subprocess, "run", lambda cmd, cwd, check: type("Done", (), {"returncode": 1})())
    with pytest.raises(NpmError, match="failed"):
        vendor.node_modules(project["root"])
    assert not (project["root"] / "node_modules" / vendor.NPM_STAMP).exists()
