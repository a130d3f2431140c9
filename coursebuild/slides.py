"""Build a reveal.js deck of every chapter from its stored outputs: a Sphinx extension and a command.

In ``_config.yml``: ``sphinx: extra_extensions: [coursebuild.slides]``. When the html builder has
finished, every notebook page that carries slide metadata (``slideshow.slide_type`` on its cells,
set by ``scripts/slide_metadata.py``) gets ``_build/html/slides/<name>.slides.html``, written by
nbconvert's ``SlidesExporter`` from the outputs stored in the notebook (nothing is executed: the
book renders the same stored outputs). Each such page gets a "Slides" button in its header.

What :func:`deck_notebook` does to a notebook before nbconvert sees it:

* cells tagged ``remove-cell`` (the setup cell, hidden checks and glue) and ``hide-cell``
  (self-check answers, solutions: a deck is presented, solutions stay out) are left out, and so
  is anything between ``{solution-start}`` and ``{solution-end}``; ``notes`` cells stay (the book
  hides them with ``remove-cell``; reveal shows them in its speaker view);
  ``remove-input``/``hide-input`` keep the output only, ``remove-output``/``hide-output`` the input;
* a panel (a Vega-Lite v5 output) becomes the page's own markup (:func:`coursebuild.panels_site.panel_html`),
  drawn by the site's ``lc-panels.js`` with the site's Vega, so its controls work as on the page;
* markdown becomes plain CommonMark (:func:`coursebuild.myst_text.to_commonmark`): glue roles
  show the values this build glued, other roles their text; links to other pages of the book
  point at their HTML pages.

Everything a deck loads is served by the site (``coursebuild.vendor``: reveal.js, require.js,
jQuery and MathJax 2 under ``slides/``; Vega and ``_static/lc-panels.js`` as the pages load them).

As a command (a deck without a book build, e.g. to look at one)::

    python -m coursebuild.slides --site _build/html book/04_the_cache.ipynb
"""

from __future__ import annotations

import argparse
import copy
import json
import posixpath
import re
import shutil
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import nbformat
from nbconvert import SlidesExporter
from sphinx.util import logging
from traitlets.config import Config

from labcore.site import VEGALITE_MIME

from .lite import notebooks as lite_notebooks
from .lite import site as lite_site
from .myst_text import to_commonmark
from .panels_site import SCRIPTS as PANEL_SCRIPTS
from .panels_site import panel_html
from .slide_layout import (
    SLIDE_HEIGHT_PX,
    SLIDE_WIDTH_PX,
    slide_type,
    split_full_slides,
    split_quizzes,
    split_tall_prose,
    split_tall_tables,
)

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = Path(__file__).resolve().parent / "templates"
TEMPLATE = "course_reveal"
#: the decks' folder in the site; the vendored slide assets live there too (coursebuild.vendor)
SLIDES_DIR = "slides"
SUFFIX = ".slides.html"
#: where a deck finds its assets (relative to the deck, all served by the site)
REVEAL_PREFIX = "reveal.js"
REQUIRE_JS = "require/require.js"
JQUERY_JS = "jquery/jquery.min.js"
MATHJAX2_JS = "mathjax2/MathJax.js?config=TeX-AMS_CHTML-full,Safe"
#: the nbconvert template loads ``plugin/notes/notes.js``; reveal.js 6 ships it as ``dist/plugin/notes.js``
NOTES_PLUGIN = ("dist/plugin/notes.js", "plugin/notes/notes.js")
#: cells a deck leaves out (by tag), unless they are speaker notes; ``deck-skip`` is a cell the page shows in full and
#: a slide summarises (a long table)
DROP_TAGS = frozenset({"remove-cell", "hide-cell", "deck-skip"})
NO_INPUT_TAGS = frozenset({"remove-input", "hide-input"})
NO_OUTPUT_TAGS = frozenset({"remove-output", "hide-output"})
#: directives whose content a presented deck leaves out
GLUE_MIME_PREFIX = "application/papermill.record/"
DROP_DIRECTIVES = frozenset({"solution", "solution-start", "solution-end", "dropdown"})
_SOLUTION_START = re.compile(r"^(`{3,}|:{3,})\{solution-start\}", re.M)
_SOLUTION_END = re.compile(r"^(`{3,}|:{3,})\{solution-end\}", re.M)
_PAGE_LINK = re.compile(r"\]\((?![a-z]+:|#|/)(?P<path>[^)\s#]+)\.(?:ipynb|md)(?P<anchor>#[^)\s]*)?\)")

#: the deck's own style and script (inlined in every deck): readable code, panels redrawn and keys given back to
#: the slides after a slider moves (see the comments in each file)
DECK_CSS = (TEMPLATES / TEMPLATE / "deck.css").read_text(encoding="utf-8")
DECK_JS = (TEMPLATES / TEMPLATE / "deck.js").read_text(encoding="utf-8")
#: the notebook styles nbconvert inlines in every deck (about 250 KB each), written once beside the decks instead
SHARED_CSS = "deck-notebook.css"
_JUPYTER_STYLE = re.compile(
    r"<style type=\"text/css\">(?P<css>\s*/\*-{10,}\s*\|\s*Copyright \(c\) Jupyter Development "
    r"Team\..*?)</style>",
    re.S,
)


def _source(cell: Mapping[str, Any]) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def has_slides(nb: Mapping[str, Any]) -> bool:
    """Tell whether a notebook carries slide metadata (then the build makes it a deck)."""
    return any(slide_type(cell) for cell in nb.get("cells", []))


def page_links(markdown: str, *, book_prefix: str = "../book/") -> str:
    """Point the links to other book pages (``04_the_cache.ipynb``, ``live.md``) at their HTML pages.

    >>> page_links("see [chapter 4](04_the_cache.ipynb#the-thrash-cliff) and [Live](live.md)")
    'see [chapter 4](../book/04_the_cache.html#the-thrash-cliff) and [Live](../book/live.html)'
    """
    return _PAGE_LINK.sub(lambda m: f"]({book_prefix}{m['path']}.html{m['anchor'] or ''})", markdown)


def _panel_output(output: dict[str, Any]) -> dict[str, Any]:
    """Return a Vega-Lite output as the page's panel markup (an HTML output); any other output unchanged."""
    data = output.get("data", {})
    if VEGALITE_MIME not in data:
        return output
    spec = data[VEGALITE_MIME]
    spec = spec if isinstance(spec, dict) else json.loads("".join(spec) if isinstance(spec, list) else spec)
    return {**output, "data": {"text/html": panel_html(spec)}}


def _glue_only(output: Mapping[str, Any]) -> bool:
    """Tell whether an output only records a glued value (``glue(..., display=False)``): the page shows nothing."""
    data = output.get("data", {})
    return bool(data) and all(key.startswith(GLUE_MIME_PREFIX) for key in data)


def deck_notebook(
    nb: Mapping[str, Any], glue: Mapping[str, str] | None, *, book_prefix: str = "../book/"
) -> dict[str, Any]:
    """Return the notebook a deck is exported from (a JSON dict; see the module doc).

    >>> cells = [{"cell_type": "markdown", "metadata": {"slideshow": {"slide_type": "slide"}},
    ...           "source": "# Title {glue:text}`n`"},
    ...          {"cell_type": "code", "metadata": {"tags": ["remove-cell"]}, "source": "glue('n', 3)", "outputs": []},
    ...          {"cell_type": "markdown", "metadata": {"tags": ["remove-cell"], "slideshow": {"slide_type": "notes"}},
    ...           "source": "Ask the room."}]
    >>> [c["source"] for c in deck_notebook({"cells": cells, "metadata": {}}, {"n": "3"})["cells"]]
    ['# Title 3', 'Ask the room.']
    """

    deck: dict[str, Any] = copy.deepcopy(dict(nb))
    deck.setdefault("metadata", {}).pop("widgets", None)
    cells = []
    in_solution = False
    for cell in deck.get("cells", []):
        meta = cell.setdefault("metadata", {})
        tags = set(meta.get("tags", []))
        source = _source(cell)
        if cell.get("cell_type") == "markdown" and _SOLUTION_START.search(source):
            in_solution = not _SOLUTION_END.search(source)
            continue
        if in_solution:
            in_solution = not (cell.get("cell_type") == "markdown" and _SOLUTION_END.search(source))
            continue
        notes = slide_type(cell) == "notes"
        if tags & DROP_TAGS and not notes:
            continue
        if cell.get("cell_type") == "markdown":
            cell["source"] = page_links(to_commonmark(source, glue, drop=DROP_DIRECTIVES), book_prefix=book_prefix)
        elif cell.get("cell_type") == "code":
            if tags & NO_OUTPUT_TAGS:
                cell["outputs"] = []
            cell["outputs"] = [_panel_output(o) for o in cell.get("outputs", []) if not _glue_only(o)]
            if tags & NO_INPUT_TAGS or any(
                'class="lc-panel"' in "".join(o.get("data", {}).get("text/html", "")) for o in cell["outputs"]
            ):  # a panel is presented without its call
                meta.setdefault("transient", {})["remove_source"] = True
                if not cell["outputs"]:
                    continue
        cells.append(cell)
    deck["cells"] = split_full_slides(split_quizzes(split_tall_tables(split_tall_prose(cells))))
    return deck


def has_panels(nb: Mapping[str, Any]) -> bool:
    """Tell whether a (deck) notebook shows a kernel-free panel."""
    return any(
        'class="lc-panel"' in "".join(o.get("data", {}).get("text/html", "")) or VEGALITE_MIME in o.get("data", {})
        for c in nb.get("cells", [])
        if c.get("cell_type") == "code"
        for o in c.get("outputs", [])
    )


class DeckWriter:
    """Export decks with one configured ``SlidesExporter`` (its templates and CSS are read once)."""

    def __init__(self) -> None:

        config = Config()
        exporter = config.SlidesExporter
        exporter.reveal_url_prefix = REVEAL_PREFIX
        exporter.reveal_theme = "white"  # white, black, serif, dracula and the *-contrast themes load no web font
        exporter.reveal_number = "c/t"
        # 1200 x 700: a 16:9 projector at 1280x720 shows it at the scale of the stock 960 x 700 (0.99), with a quarter
        # more width for panels, tables and code (DECK_CSS and slide_layout size text and estimates for it)
        exporter.reveal_width, exporter.reveal_height = str(SLIDE_WIDTH_PX), str(SLIDE_HEIGHT_PX)
        exporter.reveal_transition = "none"
        exporter.require_js_url = REQUIRE_JS
        exporter.jquery_url = JQUERY_JS
        exporter.mathjax_url = MATHJAX2_JS
        exporter.exclude_input_prompt = True
        exporter.exclude_output_prompt = True
        exporter.template_name = TEMPLATE
        exporter.extra_template_basedirs = [str(TEMPLATES)]
        self.exporter = SlidesExporter(config=config)

    def write(self, nb: Mapping[str, Any], out: Path) -> Path:
        """Write ``nb`` (a deck notebook, see :func:`deck_notebook`) as the reveal.js deck ``out``."""

        node = nbformat.from_dict(nb)
        panel_scripts = [posixpath.normpath(posixpath.join("../_static", s)) for s in PANEL_SCRIPTS]
        resources = {
            "course": {
                "panels": has_panels(nb),
                "panel_scripts": panel_scripts,
                "panel_css": "../_static/lc-panels.css",
                "deck_css": DECK_CSS,
            },
            "metadata": {"name": out.name.removesuffix(SUFFIX)},
        }
        body, _ = self.exporter.from_notebook_node(node, resources=resources)
        body = body.replace("</body>", f"<script>{DECK_JS}</script>\n</body>", 1)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(share_styles(body, out.parent / SHARED_CSS), encoding="utf-8")
        return out


def share_styles(body: str, shared: Path) -> str:
    """Return deck ``body`` with nbconvert's inlined notebook styles replaced by one link to ``shared`` (written once).

    Every deck inlines the same JupyterLab stylesheets; the decks then shared nothing and weighed 17.6 MB together.
    The first deck writes the file; a deck whose styles differ from it (another nbconvert) raises.

    >>> import tempfile
    >>> css = Path(tempfile.mkdtemp()) / "deck-notebook.css"
    >>> page = '<style type="text/css">/*----------- | Copyright (c) Jupyter Development Team. x */ a{}</style>'
    >>> share_styles(page, css), css.read_text()
    ('<link rel="stylesheet" href="deck-notebook.css">', '/*----------- | Copyright (c) Jupyter Development Team. x */ a{}')
    """
    blocks = [m["css"] for m in _JUPYTER_STYLE.finditer(body)]
    if not blocks:
        return body
    css = "\n".join(blocks)
    if shared.is_file() and shared.read_text(encoding="utf-8") != css:
        raise ValueError(f"{shared} holds other notebook styles than this deck's: one nbconvert for every deck")
    if not shared.is_file():
        shared.write_text(css, encoding="utf-8")
    parts = _JUPYTER_STYLE.split(body)  # text, css, text, css, ... text: keep the texts, one link for all the css
    texts = parts[0::2]
    return texts[0] + f'<link rel="stylesheet" href="{shared.name}">' + "".join(texts[1:])


def deck_name(path: Path) -> str:
    """Return the file name of a notebook's deck.

    >>> deck_name(Path("book/04_the_cache.ipynb"))
    '04_the_cache.slides.html'
    """
    return path.stem + SUFFIX


def install_notes_plugin(slides_dir: Path) -> None:
    """Copy reveal.js 6's notes plugin to the path nbconvert's template loads (or the speaker view is missing)."""
    src, dst = (slides_dir / REVEAL_PREFIX / p for p in NOTES_PLUGIN)
    if not src.is_file():
        raise FileNotFoundError(f"{src} is missing: the slide assets were not vendored (python -m coursebuild.vendor)")
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)


def build_decks(
    notebooks: list[Path],
    slides_dir: Path,
    *,
    executed_dir: Path | None = None,
    on_error: Callable[[Path, Exception], None] | None = None,
) -> list[Path]:
    """Write the deck of each notebook that carries slide metadata into ``slides_dir``; return their paths.

    Glue values come from the book build's executed copies in ``executed_dir`` (as the live site
    reads them, :func:`coursebuild.lite.site.glue_source`), else from the notebook's stored outputs.
    A deck that cannot be made (a glue key with no value) raises, or, with ``on_error``, is reported
    and left out.
    """

    writer = DeckWriter()
    written = []
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        if not has_slides(nb):
            continue
        glue: Mapping[str, str] | None = {}
        try:
            if lite_notebooks.has_glue_roles(nb):
                glue = (
                    lite_site.glue_source(path, executed_dir, "build")
                    if executed_dir is not None
                    else lite_notebooks.glue_values(nb)
                )
            written.append(writer.write(deck_notebook(nb, glue), slides_dir / deck_name(path)))
        except (KeyError, FileNotFoundError) as error:
            if on_error is None:
                raise
            on_error(path, error)
    if written:
        install_notes_plugin(slides_dir)
    return written


# --- the Sphinx extension -------------------------------------------------------------------------


def _page_notebook(app: Any, pagename: str) -> Path | None:
    """Return the source notebook of page ``pagename`` when it carries slide metadata, else None."""
    decks = getattr(app, "_course_decks", None)
    if decks is None:
        decks = app._course_decks = {}
    if pagename not in decks:
        path = None
        if pagename in app.env.all_docs:
            source = Path(app.env.doc2path(pagename))
            if source.suffix == ".ipynb" and has_slides(json.loads(source.read_text(encoding="utf-8"))):
                path = source
        decks[pagename] = path
    return decks[pagename]


def _on_page_context(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """Add a "Slides" button to the header of every page that has a deck (no button where there is none)."""
    path = _page_notebook(app, pagename)
    if path is None:
        return
    href = "../" * pagename.count("/") + f"{SLIDES_DIR}/{deck_name(path)}"
    context.setdefault("header_buttons", []).insert(
        0,
        {
            "type": "link",
            "url": href,
            "tooltip": "Present this chapter as slides (reveal.js; press S for the speaker notes)",
            "icon": "fas fa-person-chalkboard",
            "label": "slides-button",
            "text": "Slides",
        },
    )


def _on_build_finished(app: Any, exception: Exception | None) -> None:
    """Write the decks of the pages that have slide metadata, from their stored outputs."""
    if exception is not None or app.builder.format != "html":
        return

    logger = logging.getLogger(__name__)
    started = time.perf_counter()
    notebooks = [p for name in sorted(app.env.all_docs) if (p := _page_notebook(app, name)) is not None]
    executed = Path(app.outdir).parent / "jupyter_execute"
    by_folder: dict[Path, list[Path]] = {}
    for path in notebooks:
        by_folder.setdefault(path.parent, []).append(path)
    written: list[Path] = []
    (Path(app.outdir) / SLIDES_DIR / SHARED_CSS).unlink(missing_ok=True)  # every deck is written again below
    for folder, paths in by_folder.items():
        rel = folder.relative_to(Path(app.srcdir))
        written += build_decks(
            paths,
            Path(app.outdir) / SLIDES_DIR,
            executed_dir=executed / rel,
            on_error=lambda path, error: logger.warning(f"[slides] no deck for {path.name}: {error}"),
        )
    for stale in set((Path(app.outdir) / SLIDES_DIR).glob(f"*{SUFFIX}")) - set(written):
        stale.unlink()  # a deck left by an earlier build whose notebook no longer has slides
    logger.info(
        f"[slides] {len(written)} decks in {Path(app.outdir) / SLIDES_DIR} ({time.perf_counter() - started:.1f} s)"
    )


def setup(app: Any) -> dict[str, Any]:
    """Register the Slides buttons and the deck build."""
    app.connect("html-page-context", _on_page_context, priority=610)
    app.connect("build-finished", _on_build_finished, priority=450)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def main(argv: list[str] | None = None) -> int:
    """Write decks into ``SITE/slides`` (the site must hold the vendored slide assets and ``_static``)."""
    parser = argparse.ArgumentParser(description="Build the reveal.js decks of book notebooks into a built site.")
    parser.add_argument("--site", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument(
        "--executed",
        type=Path,
        default=None,
        help="the book build's executed notebooks (default: glue values from the stored outputs)",
    )
    parser.add_argument("notebooks", type=Path, nargs="*")
    args = parser.parse_args(argv)
    notebooks = args.notebooks or sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb"))
    started = time.perf_counter()
    written = build_decks(notebooks, args.site / SLIDES_DIR, executed_dir=args.executed)
    print(f"slides: {len(written)} decks in {args.site / SLIDES_DIR} ({time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
