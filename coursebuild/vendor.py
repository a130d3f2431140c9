"""Fetch the browser-side libraries the built book serves itself, so its pages need no CDN.

The panels draw with Vega-Lite and the pages typeset maths with MathJax; Jupyter Book would load
them from public CDNs, so a reader offline (or behind a strict proxy) would see blank panels.
This module obtains pinned versions from the npm registry with the ordinary ``npm pack`` client,
checks each tarball against its recorded sha512 integrity, and unpacks only the files the pages
load into ``_build/_vendor/`` (git-ignored, never committed). ``_config.yml`` copies that folder
into the site with ``html_extra_path``; :mod:`coursebuild.panels_site` fetches it at the start of a
build when it is missing, so a plain ``jupyter-book build .`` works too.

Usage: ``python -m coursebuild.vendor [--dest _build/_vendor]``. Idempotent: when the stamp file
records the same pins, it does nothing.
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
    member: str  # folder inside the tarball's "package/" to keep ("" for the package root)
    target: str  # folder under the destination
    skip_suffixes: tuple[str, ...] = (".map",)  # files not needed by readers
    only: tuple[str, ...] = ()  # if given, keep just these file names
    paths: tuple[str, ...] = ()  # if given, keep just the files at or under these paths (relative to member)


# Vega 5 / Vega-Lite 5 / vega-embed 6: the Vega-Lite v5 mimetype the panels emit is the one JupyterLab
# and JupyterLite render natively, so the same spec draws on the page, in Lab and in Lite.
ASSETS: tuple[Asset, ...] = (
    Asset(
        spec="vega@5.33.1",
        integrity="sha512-1fArfVDUqVbb5z8n+/nVQb+VNBzx8svY6CrsyTK4Ujm4yrd9I1auoKxBAPXLCavY1LcrbHUskQbGUP8gXOzyQw==",
        member="build",
        target="vega",
        only=("vega.min.js",),
    ),
    Asset(
        spec="vega-lite@5.23.0",
        integrity="sha512-l4J6+AWE3DIjvovEoHl2LdtCUkfm4zs8Xxx7INwZEAv+XVb6kR6vIN1gt3t2gN2gs/y4DYTs/RPoTeYAuEg6mA==",
        member="build",
        target="vega",
        only=("vega-lite.min.js",),
    ),
    Asset(
        spec="vega-embed@6.29.0",
        integrity="sha512-PmlshTLtLFLgWtF/b23T1OwX53AugJ9RZ3qPE2c01VFAbgt3/GSNI/etzA/GzdrkceXFma+FDHNXUppKuM0U6Q==",
        member="build",
        target="vega",
        only=("vega-embed.min.js",),
    ),
    Asset(
        spec="mathjax@3.2.2",
        integrity="sha512-Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw==",
        member="es5",
        target="mathjax",
    ),
    # The reveal.js decks (coursebuild/slides.py, nbconvert's reveal template) load these from slides/,
    # next to the decks. nbconvert's template is written for MathJax 2, so the decks get their own
    # MathJax 2 (slides/mathjax2/): the pages keep MathJax 3 (mathjax/).
    Asset(
        spec="reveal.js@6.0.2",
        integrity="sha512-JYIg5D9aoxoaLeb84O+OvAwsKWdIavVgEDScxtYEXFCT6t6TQrhNtSgogcjdCpdLsWglhJn3zyE3fUOwiH5KEg==",
        member="dist",
        target="slides/reveal.js/dist",
        paths=("reveal.js", "reveal.css", "theme/white.css", "plugin/notes.js"),
    ),
    Asset(
        spec="requirejs@2.3.8",
        integrity="sha512-7/cTSLOdYkNBNJcDMWf+luFvMriVm7eYxp4BcFCsAX0wF421Vyce5SXP17c+Jd5otXKGNehIonFlyQXSowL6Mw==",
        member="",
        target="slides/require",
        paths=("require.js",),
    ),
    Asset(
        spec="jquery@3.7.1",
        integrity="sha512-m4avr8yL8kmFN8psrbFFFmB/If14iN5o9nw/NgnnM+kybDJpRsAynV2BsfpTYrTRysYUdADVD7CkUUizgkpLfg==",
        member="dist",
        target="slides/jquery",
        paths=("jquery.min.js",),
    ),
    # The glossary's hover cards (sphinx-tippy, `tippy_js` in _config.yml): Popper and Tippy, served from
    # tippy/ at the site root, instead of the CDN sphinx-tippy defaults to.
    Asset(
        spec="@popperjs/core@2.11.8",
        integrity="sha512-P1st0aksCrn9sGZhp8GMYwBnQsbvAWsZAX44oXNNvLHGqAOcoVxmjZiohstwQ7SqKnbR47akdNi+uleWD8+g6A==",
        member="dist/umd",
        target="tippy",
        only=("popper.min.js",),
    ),
    Asset(
        spec="tippy.js@6.3.7",
        integrity="sha512-E1d3oP2emgJ9dRQZdf3Kkn0qJgI6ZLpyS5z6ZkY1DF3kaQaBsGZsndEpHwx+eC+tYM41HaSNvNtLx8tU57FzTQ==",
        member="dist",
        target="tippy",
        only=("tippy-bundle.umd.min.js",),
    ),
    Asset(  # the TeX input, CommonHTML output and its TeX web fonts (not the 3.7 MB a11y explorer)
        spec="mathjax@2.7.9",
        integrity="sha512-NOGEDTIM9+MrsqnjPEjVGNx4q0GQxqm61yQwSK+/5S59i26wId5IC5gNu9/bu8+CCVl5p9G2IHcAl/wJa+5+BQ==",
        member="",
        target="slides/mathjax2",
        paths=("MathJax.js", "config/TeX-AMS_CHTML-full.js", "config/Safe.js", "jax/input/TeX", "jax/element",
               "jax/output/CommonHTML", "fonts/HTML-CSS/TeX/woff", "localization/en", "extensions/TeX",
               "extensions/MathML", *(f"extensions/{name}.js" for name in (
                   "AssistiveMML", "CHTML-preview", "FontWarnings", "HelpDialog", "MatchWebFonts", "MathEvents",
                   "MathMenu", "MathZoom", "Safe", "fast-preview", "tex2jax", "toMathML"))),
    ),
)

STAMP = ".fetched.json"

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DEST = ROOT / "_build" / "_vendor"


def _integrity(path: Path) -> str:
    """Return npm's ``sha512-<base64>`` integrity string of a file."""
    digest = hashlib.sha512(path.read_bytes()).digest()
    return "sha512-" + base64.b64encode(digest).decode("ascii")


def _npm_pack(spec: str, workdir: Path) -> Path:
    """Download one package tarball with ``npm pack`` and return its path."""
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("vendor: `npm` not found; install Node.js/npm (apt-get install -y npm)")
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
    prefix = f"package/{asset.member}/" if asset.member else "package/"
    count = 0
    with tarfile.open(tarball, "r:gz") as tar:
        for info in tar.getmembers():
            if not info.isfile() or not info.name.startswith(prefix):
                continue
            rel = Path(info.name[len(prefix):])
            if rel.is_absolute() or ".." in rel.parts:
                raise SystemExit(f"vendor: unsafe path {info.name!r} in {tarball.name}")
            if rel.name.endswith(asset.skip_suffixes) or (asset.only and rel.name not in asset.only):
                continue
            if asset.paths and not any(rel.as_posix() == p or rel.as_posix().startswith(p + "/") for p in asset.paths):
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
    pins = {a.spec: [a.integrity, a.member, list(a.skip_suffixes), list(a.only), list(a.paths)] for a in ASSETS}
    stamp = dest / STAMP
    if stamp.exists() and json.loads(stamp.read_text()) == pins:
        if all((dest / a.target).is_dir() for a in ASSETS):
            print(f"vendor: {dest}/ is up to date")
            return
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        staged = work / "staged"
        for asset in ASSETS:
            tarball = _npm_pack(asset.spec, work)
            got = _integrity(tarball)
            if got != asset.integrity:
                raise SystemExit(
                    f"vendor: integrity mismatch for {asset.spec}: "
                    f"got {got}, expected {asset.integrity}"
                )
            n = _extract(tarball, asset, staged / asset.target)
            print(f"vendor: {asset.spec}: {n} files -> {dest / asset.target}/")
        if dest.exists():
            shutil.rmtree(dest)
        shutil.copytree(staged, dest)
    (dest / STAMP).write_text(json.dumps(pins, indent=2) + "\n")


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and fetch the assets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dest", type=Path, default=DEFAULT_DEST)
    args = parser.parse_args(argv)
    fetch(args.dest)


if __name__ == "__main__":
    main()
