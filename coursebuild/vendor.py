"""Serve the browser-side libraries from the built book itself, so its pages need no CDN.

The panels draw with Vega-Lite and the pages typeset maths with MathJax; Jupyter Book would load
them from public CDNs, so a reader offline (or behind a strict proxy) would see blank panels.
``package.json`` at the repository root pins every browser library the site serves (and the live
site's Pyodide, and axe-core for the browser tests); ``package-lock.json`` records each tarball's
integrity hash. ``npm ci`` installs exactly that into ``node_modules/`` (git-ignored) and checks
every tarball against the lock. This module runs it when ``node_modules/`` is missing or was
installed from another lock (:func:`node_modules`), then copies only the files the pages and decks
load into ``_build/_vendor/`` (:func:`copy_assets`). ``_config.yml`` copies that folder into the
site with ``html_extra_path``; :mod:`coursebuild.panels_site` calls this at the start of a build, so
a plain ``jupyter-book build .`` works too.

Usage: ``python -m coursebuild.vendor [--dest _build/_vendor]`` (``--npm-ci`` installs
``node_modules/`` and stops). Idempotent: ``npm ci`` runs again only for another
``package.json``/``package-lock.json``, and the copy is redone only when the lock or the rules changed.

>>> mathjax = Asset("mathjax", member="es5", target="mathjax")
>>> _keep("es5/tex-chtml.js", mathjax), _keep("es5/tex-chtml.js.map", mathjax), _keep("README.md", mathjax)
(True, False, False)
"""

from __future__ import annotations

import argparse
import dataclasses
import fcntl
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Asset:
    """Files of one installed npm package that the book serves."""

    package: str  # its folder under node_modules/ (the dependency's name in package.json)
    member: str  # folder inside the package to copy from ("" for the package root)
    target: str  # folder under the destination
    skip_suffixes: tuple[str, ...] = (".map",)  # files not needed by readers
    only: tuple[str, ...] = ()  # if given, keep just these file names
    paths: tuple[str, ...] = ()  # if given, keep just the files at or under these paths (relative to member)


# Vega 5 / Vega-Lite 5 / vega-embed 6: the Vega-Lite v5 mimetype the panels emit is the one JupyterLab
# and JupyterLite render natively, so the same spec draws on the page, in Lab and in Lite.
ASSETS: tuple[Asset, ...] = (
    Asset("vega", member="build", target="vega", only=("vega.min.js",)),
    Asset("vega-lite", member="build", target="vega", only=("vega-lite.min.js",)),
    Asset("vega-embed", member="build", target="vega", only=("vega-embed.min.js",)),
    # MathJax 3 is not served: the pages' formulas are typeset when the site is built (coursebuild/math_svg.py runs
    # node_modules/mathjax under Node). The reveal.js decks (coursebuild/slides.py, nbconvert's reveal template)
    # load these from slides/, next to the decks; nbconvert's template is written for MathJax 2, so the decks get
    # their own MathJax 2 (slides/mathjax2/, the npm alias "mathjax2" in package.json).
    Asset(
        "reveal.js",
        member="dist",
        target="slides/reveal.js/dist",
        paths=("reveal.js", "reveal.css", "theme/white.css", "plugin/notes.js"),
    ),
    Asset("requirejs", member="", target="slides/require", paths=("require.js",)),
    Asset("jquery", member="dist", target="slides/jquery", paths=("jquery.min.js",)),
    # The glossary's hover cards (sphinx-tippy, `tippy_js` in _config.yml): Popper and Tippy, served from
    # tippy/ at the site root, instead of the CDN sphinx-tippy defaults to.
    Asset("@popperjs/core", member="dist/umd", target="tippy", only=("popper.min.js",)),
    Asset("tippy.js", member="dist", target="tippy", only=("tippy-bundle.umd.min.js",)),
    Asset(  # the TeX input, CommonHTML output and its TeX web fonts (not the 3.7 MB a11y explorer)
        "mathjax2",
        member="",
        target="slides/mathjax2",
        paths=(
            "MathJax.js",
            "config/TeX-AMS_CHTML-full.js",
            "config/Safe.js",
            "jax/input/TeX",
            "jax/element",
            "jax/output/CommonHTML",
            "fonts/HTML-CSS/TeX/woff",
            "localization/en",
            "extensions/TeX",
            "extensions/MathML",
            *(
                f"extensions/{name}.js"
                for name in (
                    "AssistiveMML",
                    "CHTML-preview",
                    "FontWarnings",
                    "HelpDialog",
                    "MatchWebFonts",
                    "MathEvents",
                    "MathMenu",
                    "MathZoom",
                    "Safe",
                    "fast-preview",
                    "tex2jax",
                    "toMathML",
                )
            ),
        ),
    ),
)

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DEST = ROOT / "_build" / "_vendor"
#: what ``npm ci`` runs with: no install scripts (nothing here needs one), and no optional dependencies
#: (vega-tooltip names a native rollup binary as one; nothing here uses it)
NPM_CI = ("ci", "--ignore-scripts", "--omit=optional", "--no-audit", "--no-fund")
#: written into node_modules/ after ``npm ci``: the digest of the package.json and package-lock.json it installed
NPM_STAMP = ".npm-ci.stamp"
#: written into the destination after a copy: the lock's digest and the copy rules
COPY_STAMP = ".copied.json"


class NpmError(RuntimeError):
    """``npm`` is missing, or ``npm ci`` failed."""


def lock_digest(root: Path = ROOT) -> str:
    """Return the sha256 of ``package.json`` and ``package-lock.json`` together (what ``npm ci`` installs)."""
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json"):
        digest.update((root / name).read_bytes())
    return digest.hexdigest()


def locked_versions(root: Path = ROOT) -> dict[str, str]:
    """Return ``{folder under node_modules: version}`` of the lock's top-level packages."""
    packages = json.loads((root / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    prefix = "node_modules/"
    return {
        key[len(prefix) :]: entry["version"]
        for key, entry in packages.items()
        if key.startswith(prefix) and "/node_modules/" not in key
    }


def installed_version(package: str, root: Path = ROOT) -> str | None:
    """Return the version of ``node_modules/<package>`` as installed, or None when it is not there."""
    manifest = root / "node_modules" / package / "package.json"
    if not manifest.is_file():
        return None
    return json.loads(manifest.read_text(encoding="utf-8"))["version"]


def _is_current(root: Path) -> bool:
    stamp = root / "node_modules" / NPM_STAMP
    if not stamp.is_file() or stamp.read_text(encoding="utf-8").strip() != lock_digest(root):
        return False
    manifest = json.loads((root / "package.json").read_text(encoding="utf-8"))
    direct = {**manifest.get("dependencies", {}), **manifest.get("devDependencies", {})}
    locked = locked_versions(root)
    return all(installed_version(name, root) == locked.get(name) for name in direct)


def node_modules(root: Path = ROOT) -> Path:
    """Return ``root/node_modules``, running ``npm ci`` first when it is missing or stale.

    Stale: installed from another ``package.json``/``package-lock.json`` (the stamp left after ``npm ci``
    differs), or a dependency ``package.json`` names is missing or at another version than the lock's.
    Two builds at once wait for each other (a lock on ``package-lock.json``), so one runs ``npm ci``.
    """
    folder = root / "node_modules"
    with open(root / "package-lock.json", "rb") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _is_current(root):
            return folder
        npm = shutil.which("npm")
        if npm is None:
            raise NpmError(
                "npm is missing: the site's browser libraries are installed by `npm ci` from "
                "package-lock.json (Debian: apt-get install -y npm)"
            )
        print(f"vendor: npm {' '.join(NPM_CI)} (package-lock.json changed or node_modules/ is incomplete)", flush=True)
        done = subprocess.run([npm, *NPM_CI], cwd=root, check=False)
        if done.returncode != 0:
            raise NpmError(f"`npm {' '.join(NPM_CI)}` failed (exit {done.returncode}); npm's messages are above")
        (folder / NPM_STAMP).write_text(lock_digest(root) + "\n", encoding="utf-8")
    return folder


def _keep(rel: str, asset: Asset) -> bool:
    """Whether the file at ``rel`` (a path inside the package) is one ``asset`` serves."""
    prefix = f"{asset.member}/" if asset.member else ""
    if not rel.startswith(prefix):
        return False
    path = rel[len(prefix) :]
    name = path.rsplit("/", 1)[-1]
    if "node_modules" in path.split("/") or name.endswith(asset.skip_suffixes):
        return False
    if asset.only and name not in asset.only:
        return False
    return not asset.paths or any(path == p or path.startswith(p + "/") for p in asset.paths)


def asset_files(asset: Asset, modules: Path) -> dict[str, Path]:
    """Return ``{path under the destination: installed file}`` of one asset, from ``modules`` (node_modules)."""
    package = modules / asset.package
    prefix = f"{asset.member}/" if asset.member else ""
    files = {}
    for path in sorted(package.rglob("*")):
        rel = path.relative_to(package).as_posix()
        if path.is_file() and not path.is_symlink() and _keep(rel, asset):
            files[f"{asset.target}/{rel[len(prefix) :]}"] = path
    if not files:
        raise FileNotFoundError(f"vendor: nothing to copy from {package}/{asset.member} (is it installed?)")
    return files


def copy_assets(dest: Path = DEFAULT_DEST, root: Path = ROOT) -> list[str]:
    """Copy every asset's files from ``node_modules/`` (installed first if needed) into ``dest``; return their paths.

    ``dest`` is replaced whole; when its stamp records this lock and these rules, nothing is done.
    """
    modules = node_modules(root)
    record = {"lock": lock_digest(root), "assets": [dataclasses.asdict(a) for a in ASSETS]}
    stamp = dest / COPY_STAMP
    if stamp.is_file():
        done = json.loads(stamp.read_text(encoding="utf-8"))
        if {k: done.get(k) for k in record} == json.loads(json.dumps(record)) and all(
            (dest / f).is_file() for f in done.get("files", ())
        ):
            print(f"vendor: {dest}/ is up to date")
            return done["files"]
    locked = locked_versions(root)
    copied: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        staged = Path(tmp) / "staged"
        for asset in ASSETS:
            files = asset_files(asset, modules)
            for rel, src in files.items():
                out = staged / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, out)
            copied += files
            print(f"vendor: {asset.package}@{locked[asset.package]}: {len(files)} files -> {dest / asset.target}/")
        if dest.exists():
            shutil.rmtree(dest)
        shutil.copytree(staged, dest)
    copied.sort()
    stamp.write_text(json.dumps({**record, "files": copied}, indent=1) + "\n", encoding="utf-8")
    return copied


def main(argv: list[str] | None = None) -> None:
    """Parse the command line; install node_modules/ and copy the assets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dest", type=Path, default=DEFAULT_DEST)
    parser.add_argument(
        "--npm-ci", action="store_true", help="only run `npm ci` (when node_modules/ is missing or stale), copy nothing"
    )
    args = parser.parse_args(argv)
    try:
        if args.npm_ci:
            node_modules()
        else:
            copy_assets(args.dest)
    except NpmError as err:
        sys.exit(f"vendor: {err}")


if __name__ == "__main__":
    main()
