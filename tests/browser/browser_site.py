"""What the browser tests know about the built site: where it is, its pages, its chapters."""

from __future__ import annotations

import os
import re
from pathlib import Path

import yaml

from labcore.checks.lab import mistaken_lab
from labcore.panels import PANELS, show

ROOT = Path(__file__).resolve().parents[2]
#: the built site; ``BOOK_HTML`` points the tests at another build (e.g. ``jupyter-book build --path-output``)
SITE = Path(os.environ.get("BOOK_HTML", ROOT / "_build" / "html"))
TOC = ROOT / "_toc.yml"
BOOK = ROOT / "book"

# A chapter is book/NN_slug.ipynb; every one must have at least one kernel-free panel.
CHAPTER_RE = re.compile(r"^\d\d_[a-z0-9_]+\.ipynb$")

# Console errors every stock Jupyter Book 1 page logs (harmless, see TOOLCHAIN.md).
KNOWN_STOCK_ERRORS = (
    "Identifier 'THEBE_JS_URL' has already been declared",
    "Got invalid theme mode",
)

# The panels' scripts served by the site (coursebuild/vendor.py, coursebuild/panels_site.py).
PANEL_SCRIPTS = ("vega/vega.min.js", "vega/vega-lite.min.js", "vega/vega-embed.min.js", "lc-panels.js")
#: axe-core, a test-only devDependency (package.json; never served): injected into each page by the tests
AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
#: the rules axe runs: WCAG 2.0 and 2.1, levels A and AA
AXE_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")
# A page of the theme with next to nothing on it: the baseline of the page-weight limit.
BLANK_PAGE = "genindex.html"
# A page may load at most this many bytes more than the blank page of the theme, gzip-compressed (0.5 MB).
PAGE_WEIGHT_LIMIT_BYTES = 500_000


def chapter_sources() -> list[Path]:
    """Return every chapter notebook on disk, in name order."""
    return sorted(p for p in BOOK.glob("*.ipynb") if CHAPTER_RE.match(p.name))


def _toc_entries(node: object) -> list[str]:
    """Flatten the ``file``/``glob`` entries of a parsed ``_toc.yml``."""
    out: list[str] = []
    if isinstance(node, dict):
        for key in ("root", "file", "glob"):
            if isinstance(node.get(key), str):
                out.append(f"{key}:{node[key]}")
        for value in node.values():
            if isinstance(value, (dict, list)):
                out.extend(_toc_entries(value))
    elif isinstance(node, list):
        for value in node:
            out.extend(_toc_entries(value))
    return out


def toc_docnames() -> list[str]:
    """Return the docnames (paths without suffix) that ``_toc.yml`` makes pages, globs expanded."""
    toc = yaml.safe_load(TOC.read_text())
    names: list[str] = []
    for entry in _toc_entries(toc):
        kind, value = entry.split(":", 1)
        if kind == "glob":
            for path in sorted(ROOT.glob(value)):
                if path.suffix in {".md", ".ipynb", ".rst"}:
                    names.append(path.relative_to(ROOT).with_suffix("").as_posix())
        else:
            names.append(str(Path(value).with_suffix("").as_posix()))
    seen: set[str] = set()
    return [n for n in names if not (n in seen or seen.add(n))]


def page_paths() -> list[str]:
    """Return the site-relative HTML path of every page the toc builds, plus the root redirect."""
    return [f"{name}.html" for name in toc_docnames()]


def chapter_pages() -> list[str]:
    """Return the site-relative HTML path of every chapter notebook."""
    return [f"book/{p.stem}.html" for p in chapter_sources()]


#: the page's list of its panels: each one's name and, for a panel drawn on another implementation, its variant
PANEL_NAMES_JS = "() => window.lcPanels.map(p => [p.name, (p.spec.usermeta || {}).labcore_variant || ''])"


def labcore_panel(name: str, variant: str = ""):  # noqa: ANN201
    """Return the labcore panel a page draws: ``show(name)``, or, for a variant (a lab with one mistake), that one."""

    if not variant:
        return show(name)

    return PANELS[name](mistaken_lab(variant))
