"""Fetch the browser-side assets the built book serves itself, so its pages need no CDN.

The course pages embed widget state (sliders, images, ``jslink`` links) and maths.
Jupyter Book would load the widget manager and MathJax from public CDNs; a reader
offline (or behind a strict proxy) would then see blank widget cells.  This script
obtains pinned versions from the npm registry with the ordinary ``npm pack`` client,
checks each tarball against its recorded sha512 integrity, and unpacks only the
browser bundles into ``_build/_vendor/`` (git-ignored, never committed).  ``_config.yml``
copies ``_build/_vendor/`` into the site with ``html_extra_path`` and points myst-nb's
``nb_ipywidgets_js`` and Sphinx's ``mathjax_path`` at the local copies.

Usage: ``python scripts/fetch_widget_js.py [--dest _build/_vendor]``.  Idempotent: when the
stamp file records the same pins, it does nothing.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Asset:
    """One npm package whose sub-folder is served by the book."""

    spec: str  # name@exact-version
    integrity: str  # npm's sha512 integrity of the tarball
    member: str  # folder inside the tarball's "package/" to keep
    target: str  # folder under the destination
    skip_suffixes: tuple[str, ...] = (".map",)  # files not needed by readers


# @jupyter-widgets/html-manager 1.0.15 is the manager released with ipywidgets 8.1.x
# (controls ^5.0.13, base ^6.0.12, the versions jupyterlab_widgets 3.0.17 ships).
# Its dist/embed.js is self-contained (no require.js) and renders the built-in widgets.
ASSETS: tuple[Asset, ...] = (
    Asset(
        spec="@jupyter-widgets/html-manager@1.0.15",
        integrity="sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA==",
        member="dist",
        target="html-manager",
        # Keep embed.js (+ its fonts); drop the require.js (AMD) bundles and maps so
        # nothing but the intended script can be picked up by the site.
        skip_suffixes=(".map", "-amd.js"),
    ),
    Asset(
        spec="mathjax@3.2.2",
        integrity="sha512-Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw==",
        member="es5",
        target="mathjax",
    ),
)

STAMP = ".fetched.json"

# Our own (committed) script served beside embed.js: maps the MathJax 2 call the
# widget manager makes onto MathJax 3 (see the file's header).
SHIMS: dict[str, str] = {"widget_mathjax_shim.js": "html-manager/mathjax-hub-shim.js"}
SCRIPTS = Path(__file__).resolve().parent


def _integrity(path: Path) -> str:
    """Return npm's ``sha512-<base64>`` integrity string of a file."""
    digest = hashlib.sha512(path.read_bytes()).digest()
    return "sha512-" + base64.b64encode(digest).decode("ascii")


def _npm_pack(spec: str, workdir: Path) -> Path:
    """Download one package tarball with ``npm pack`` and return its path."""
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("fetch_widget_js: `npm` not found; install Node.js/npm (apt-get install -y npm)")
    out = subprocess.run(
        [npm, "pack", spec, "--json", "--silent", "--pack-destination", str(workdir)],
        check=True,
        capture_output=True,
        text=True,
        cwd=workdir,
    )
    filename = json.loads(out.stdout)[0]["filename"]
    return workdir / filename


def _extract(tarball: Path, asset: Asset, dest: Path) -> int:
    """Unpack ``package/<member>/`` of ``tarball`` into ``dest``; return the file count."""
    prefix = f"package/{asset.member}/"
    count = 0
    with tarfile.open(tarball, "r:gz") as tar:
        for info in tar.getmembers():
            if not info.isfile() or not info.name.startswith(prefix):
                continue
            rel = Path(info.name[len(prefix):])
            if rel.is_absolute() or ".." in rel.parts:
                raise SystemExit(f"fetch_widget_js: unsafe path {info.name!r} in {tarball.name}")
            if rel.name.endswith(asset.skip_suffixes):
                continue
            out = dest / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            src = tar.extractfile(info)
            assert src is not None
            out.write_bytes(src.read())
            count += 1
    return count


def fetch(dest: Path) -> None:
    """Fetch every pinned asset into ``dest`` unless the stamp says it is already there."""
    pins = {a.spec: [a.integrity, a.member, list(a.skip_suffixes)] for a in ASSETS}
    stamp = dest / STAMP
    if stamp.exists() and json.loads(stamp.read_text()) == pins:
        if all((dest / a.target).is_dir() for a in ASSETS):
            _copy_shims(dest)
            print(f"fetch_widget_js: {dest}/ is up to date")
            return
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        staged = work / "staged"
        for asset in ASSETS:
            tarball = _npm_pack(asset.spec, work)
            got = _integrity(tarball)
            if got != asset.integrity:
                raise SystemExit(
                    f"fetch_widget_js: integrity mismatch for {asset.spec}: "
                    f"got {got}, expected {asset.integrity}"
                )
            n = _extract(tarball, asset, staged / asset.target)
            print(f"fetch_widget_js: {asset.spec}: {n} files -> {dest / asset.target}/")
        if dest.exists():
            shutil.rmtree(dest)
        shutil.copytree(staged, dest)
    _copy_shims(dest)
    (dest / STAMP).write_text(json.dumps(pins, indent=2) + "\n")


def _copy_shims(dest: Path) -> None:
    """Copy the course's own browser scripts next to the fetched bundles."""
    for source, target in SHIMS.items():
        out = dest / target
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SCRIPTS / source, out)


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and fetch the assets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dest", type=Path, default=Path(__file__).resolve().parent.parent / "_build" / "_vendor")
    args = parser.parse_args(argv)
    fetch(args.dest)


if __name__ == "__main__":
    main()
