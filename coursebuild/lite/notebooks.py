"""Turn a chapter notebook into the copy the course's JupyterLite site opens.

The book's notebooks stay the one source; the live copy is derived from each, never edited by
hand. :func:`live_copy` applies, in order:

* the kernel is JupyterLite's ``python``; outputs and widget state are cleared;
* the chapter's setup cell (first code cell, tagged ``remove-cell``) becomes :func:`setup_cell`:
  it installs labcore from the site (and pytest and hypothesis where the contract suite runs,
  jupyterquiz where a chapter has a quiz: what the chapter's manifest declares, :func:`live_needs`) and
  points labcore at what the book build computed, which the site serves in :data:`BOOK_BUILD`:
  the panels' grids (:func:`panel_grids`, so a panel need not recompute every state in Pyodide)
  and the chapter's figures (:func:`book_figures`, shown in place of figures the live kernel,
  which has no matplotlib, cannot draw);
  the other ``remove-cell`` cells (the book build's hidden checks and glue calls) are left out,
  except those that define a name a later cell reads (:func:`needed_hidden_cells`), shown as only the
  statements that define those names (:func:`coursebuild.live_code.defining_statements`): every cell a
  learner sees runs after only the cells they can see above it;
* ``from myst_nb import glue`` becomes a small ``glue`` function (:data:`coursebuild.live_code.GLUE_DEF`): myst-nb is a
  Sphinx extension, not a kernel package, so nothing stands in for it;
* ``{glue:text}`key:fmt``` roles in the prose become the value the book build glued, formatted by
  myst-nb's own rule (:func:`coursebuild.myst_text.substitute_glue`);
* ``Path("..") / "results"`` becomes ``Path("results")``: the site ships those files beside the
  notebooks (:func:`results_files` lists them);
* numpy/matplotlib imports are wrapped so a chapter runs without them (:func:`guard_optional_imports`);
* ``hide-cell`` cells (self-check answers, solutions) start collapsed, source and outputs
  (``jupyter.source_hidden`` / ``jupyter.outputs_hidden``, and ``collapsed``, the outputs' flag
  JupyterLab reads), as the page shows them.

>>> nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "{glue:text}`x:.1f` MiB"}]}
>>> live_copy(nb, {"x": "2.25"})["cells"][0]["source"]
'2.2 MiB'
"""

from __future__ import annotations

import base64
import copy
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import nbformat

from labcore.chapters import CHAPTERS, LIVE_NEEDS
from labcore.panels import spec_grid_key
from labcore.plots.offline import cell_key
from labcore.site import BOOK_BUILD, FIGURES_ENV, GRIDS_ENV, PANELS_DIR, VEGALITE_MIME, figures_index_path

from ..lab_links import live_markdown
from ..live_code import cell_names, defining_statements, live_code
from ..myst_text import GLUE_ROLE, to_commonmark

#: the first line of every chapter's setup cell (the book's and the live copy's)
LIVE_MARKER = "# Live version only (JupyterLite"
PYODIDE_KERNELSPEC = {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}

SETUP_CELL_HEAD = """\
# Live version only (JupyterLite, Python in the browser): install labcore from the site into this
# kernel and point it at what the book build computed. Under a normal Python kernel it does nothing.
import sys
if sys.platform == "emscripten":
    import os
    if not os.getcwd().startswith("/drive"):  # JupyterLite runs a kernel that has the site's files in /drive
        raise RuntimeError("{drive_missing}")
    import piplite
    await piplite.install({packages})"""
#: why a live kernel may not see the site's files, and what the reader does about it: JupyterLite mounts them
#: (at ``/drive``) only when the page's service worker is registered before the kernel is created
DRIVE_MISSING = (
    "This kernel cannot see the site's files: it started before the browser's service worker "
    "was ready. Reload this tab, then run the notebook again."
)
#: the setup cell of a chapter that needs nothing but labcore
SETUP_CELL = SETUP_CELL_HEAD.format(packages='["labcore"]', drive_missing=DRIVE_MISSING)
#: installed beside labcore (in the same call) where a chapter runs the contract suite (``pytest`` comes from
#: the site's Pyodide lock) or shows a quiz (``jupyterquiz`` is served by the site)
SUITE_PACKAGES = ("pytest", "hypothesis")
QUIZ_PACKAGES = ("jupyterquiz",)
#: ipywidgets (a panel's live controls, ``labcore.panels.live_panel``) is not installed by any cell: every kernel of
#: the site has it preloaded (``coursebuild.lite.runtime.PRELOADED_PIPLITE``), a blank notebook's too
#: appended in chapters that show a panel: labcore reads the grid the book build computed (when it is the panel's)
SETUP_CELL_GRIDS = f"""
    os.environ["{GRIDS_ENV}"] = os.path.abspath("{BOOK_BUILD}/{PANELS_DIR}")  # the panels' grids"""
#: appended in chapters that draw figures: the live kernel has no matplotlib, so each figure cell shows the book's
SETUP_CELL_FIGURES = f"""
    os.environ["{FIGURES_ENV}"] = os.path.abspath("{figures_index_path(BOOK_BUILD, "{stem}")}")  # its figures"""

RESULTS_FILE = re.compile(r"""Path\("results"\)\s*/\s*(["'])([^"']+)\1""")


def _source(cell: Mapping[str, Any]) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def live_needs(name: str | None) -> tuple[str, ...]:
    """Return what notebook ``name``'s Live kernel needs, as its manifest declares (:mod:`labcore.chapters`).

    A notebook no manifest declares needs nothing but labcore.

    >>> live_needs("07_do_the_lab.ipynb"), live_needs("do_the_lab.ipynb"), live_needs("scratch.ipynb")
    (('suite', 'quiz', 'panels', 'figures'), ('suite',), ())
    """
    stem = Path(name).stem if name else ""
    return next((c.live_needs for c in CHAPTERS if c.notebook == stem), ())


def setup_cell(needs: Iterable[str] = (), name: str | None = None) -> str:
    """Return the live setup cell of notebook ``name``, whose kernel has ``needs`` (any of ``LIVE_NEEDS``).

    >>> "pytest" in setup_cell(("suite",)), "FIGURES" in setup_cell((), "a.ipynb")
    (True, False)
    >>> print(setup_cell(("panels", "figures"), "04_x.ipynb").split("\\n", 9)[-1])
        os.environ["LABCORE_PANEL_GRIDS"] = os.path.abspath("book_build/panels")  # the panels' grids
        os.environ["LABCORE_BOOK_FIGURES"] = os.path.abspath("book_build/figures/04_x.json")  # its figures
    >>> setup_cell(("widgets",))
    Traceback (most recent call last):
    ...
    ValueError: a live need must be one of 'suite', 'quiz', 'panels', 'figures', got 'widgets'
    """
    needs = set(needs)
    for need in needs - set(LIVE_NEEDS):
        raise ValueError(f"a live need must be one of {', '.join(map(repr, LIVE_NEEDS))}, got {need!r}")
    packages = ["labcore", *(SUITE_PACKAGES if "suite" in needs else ()), *(QUIZ_PACKAGES if "quiz" in needs else ())]
    text = SETUP_CELL_HEAD.format(packages=json.dumps(packages), drive_missing=DRIVE_MISSING)
    env = SETUP_CELL_GRIDS if "panels" in needs else ""
    if name is not None and "figures" in needs:
        env += SETUP_CELL_FIGURES.format(stem=Path(name).stem)
    return text + env


def glue_values(executed: Mapping[str, Any]) -> dict[str, str]:
    """Return ``{key: text/plain}`` of every value glued in an executed notebook (myst-nb's ``scrapbook`` outputs).

    >>> out = {"output_type": "display_data", "metadata": {"scrapbook": {"name": "k", "mime_prefix": "p/"}},
    ...        "data": {"p/text/plain": "42"}}
    >>> glue_values({"cells": [{"cell_type": "code", "outputs": [out]}]})
    {'k': '42'}
    """
    values = {}
    for cell in executed.get("cells", []):
        for out in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            scrap = out.get("metadata", {}).get("scrapbook")
            if scrap:
                text = out.get("data", {}).get(scrap.get("mime_prefix", "") + "text/plain")
                if text is not None:
                    values[scrap["name"]] = "".join(text) if isinstance(text, list) else text
    return values


def glue_values_from_store(store: Mapping[str, Any]) -> dict[str, str]:
    """Return ``{key: text/plain}`` from the ``NAME.glue.json`` myst-nb writes beside each executed notebook.

    >>> glue_values_from_store({"k": {"data": {"text/plain": "130"}, "output_type": "display_data"}})
    {'k': '130'}
    """
    values = {}
    for key, out in store.items():
        text = out.get("data", {}).get("text/plain")
        if text is not None:
            values[key] = "".join(text) if isinstance(text, list) else text
    return values


def results_files(nb: Mapping[str, Any]) -> list[str]:
    """Return the ``results/`` file names a live copy's code reads (``Path("results") / "name"``)."""
    return sorted(
        {
            m[2]
            for cell in nb.get("cells", [])
            if cell.get("cell_type") == "code"
            for m in RESULTS_FILE.finditer(_source(cell))
        }
    )


def has_glue_roles(nb: Mapping[str, Any]) -> bool:
    """Tell whether a notebook's prose pastes glued values."""
    return any(GLUE_ROLE.search(_source(c)) for c in nb.get("cells", []) if c.get("cell_type") == "markdown")


def panel_grids(nb: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Return the grid of every panel a notebook's stored outputs display, by its key (see ``labcore.panels``).

    Each value is what the site serves as ``panels/<key>.json``: ``{"panel", "key", "rows", "variant"}``, the
    rows exactly as the stored Vega-Lite spec holds them (the book build computed them), and the implementation
    they were computed on when not labcore's (a lab with one mistake: :func:`labcore.checks.lab.mistaken_lab`).

    >>> spec = {"usermeta": {"labcore_panel": "toy_panel", "controls": ["a"]},
    ...         "params": [{"name": "a", "value": 1}], "data": {"values": [{"a": 1, "y": 2}, {"a": 2, "y": 4}]}}
    >>> out = {"output_type": "display_data", "data": {"application/vnd.vegalite.v5+json": spec}}
    >>> grids = panel_grids({"cells": [{"cell_type": "code", "outputs": [out]}]})
    >>> [(g["panel"], len(g["rows"])) for g in grids.values()]
    [('toy_panel', 2)]
    """
    grids = {}
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            spec = out.get("data", {}).get(VEGALITE_MIME)
            if isinstance(spec, Mapping) and "labcore_panel" in spec.get("usermeta", {}):
                key = spec_grid_key(spec)
                grids[key] = {
                    "panel": spec["usermeta"]["labcore_panel"],
                    "key": key,
                    "rows": spec["data"]["values"],
                    "variant": spec["usermeta"].get("labcore_variant", ""),
                }
    return grids


#: the stored image outputs a live figure cell can show, and the file suffix each is written with
FIGURE_MIMES = {"image/svg+xml": ".svg", "image/png": ".png"}


def book_figures(nb: Mapping[str, Any]) -> dict[str, list[tuple[str, bytes]]]:
    """Return the images the book build drew for each figure cell, by the key of the cell's live source.

    The key is ``labcore.plots.offline.cell_key`` of :func:`live_code` of the cell (what the live
    kernel runs); each image is ``(suffix, bytes)``, in output order (a PNG decoded from base64).
    Two cells with the same code and different figures are left out (the live cell cannot tell them apart).

    >>> svg = {"output_type": "display_data", "data": {"image/svg+xml": "<svg/>", "text/plain": "<Figure>"}}
    >>> figures = book_figures({"cells": [{"cell_type": "code", "source": "plt.show()", "outputs": [svg]}]})
    >>> list(figures.values())
    [[('.svg', b'<svg/>')]]
    """
    figures: dict[str, list[tuple[str, bytes]]] = {}
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code" or _source(cell).startswith(LIVE_MARKER):
            continue
        images = []
        for out in cell.get("outputs", []):
            for mime, suffix in FIGURE_MIMES.items():
                data = out.get("data", {}).get(mime)
                if data is not None:
                    text = "".join(data) if isinstance(data, list) else data
                    images.append((suffix, text.encode("utf-8") if suffix == ".svg" else base64.b64decode(text)))
                    break  # one image per output: the SVG when there are both
        key = cell_key(live_code(_source(cell)))
        if images:
            figures[key] = images if figures.get(key, images) == images else []  # same code, other figure: ambiguous
    return {key: images for key, images in figures.items() if images}


def needed_hidden_cells(cells: list[Mapping[str, Any]]) -> dict[int, set[str]]:
    """Return the ``remove-cell`` code cells that define a name a later kept cell reads: index -> those names.

    The book hides them, but the live copy cannot drop them (e.g. ``rollout = canary_panel()``
    in a hidden cell, shown by the next one); the other hidden cells (checks, glue) are dropped.

    >>> cells = [_code_cell("x = 1", "remove-cell"), _code_cell("assert x", "remove-cell"), _code_cell("x")]
    >>> needed_hidden_cells(cells)
    {0: {'x'}}
    """
    needed: set[str] = set()
    keep: dict[int, set[str]] = {}
    for i in range(len(cells) - 1, -1, -1):
        cell = cells[i]
        if cell.get("cell_type") != "code":
            continue
        source = _source(cell)
        defined, read = cell_names(source)
        hidden = "remove-cell" in cell.get("metadata", {}).get("tags", []) and not source.startswith(LIVE_MARKER)
        if hidden and not defined & needed:
            continue
        if hidden:
            keep[i] = defined & needed
            read = cell_names(defining_statements(source, keep[i]))[1]
        needed = (needed - defined) | read  # what the cells from here down read from above
    return keep


def _code_cell(source: str, *tags: str) -> dict[str, Any]:
    return {"cell_type": "code", "metadata": {"tags": list(tags)}, "source": source}


def live_copy(
    nb: Mapping[str, Any],
    glued: Mapping[str, str] | None,
    name: str | None = None,
    *,
    needs: Iterable[str] | None = None,
) -> dict[str, Any]:
    """Return the live copy of notebook ``nb`` (a JSON dict) called ``name``; ``glued`` holds its glue values.

    See the module doc; ``name`` (the file name) locates the chapter's figures in the setup cell, and its manifest
    says what the kernel needs, unless ``needs`` says it (a notebook no manifest declares, such as a test's).
    """
    needs = live_needs(name) if needs is None else tuple(needs)
    live: dict[str, Any] = copy.deepcopy(dict(nb))
    live.setdefault("metadata", {})["kernelspec"] = dict(PYODIDE_KERNELSPEC)
    live["metadata"].pop("widgets", None)
    needed = needed_hidden_cells(live.get("cells", []))
    cells = []
    for index, cell in enumerate(live.get("cells", [])):
        meta = cell.setdefault("metadata", {})
        tags = set(meta.get("tags", []))
        source = _source(cell)
        is_setup = source.startswith(LIVE_MARKER)
        if "remove-cell" in tags and not is_setup:
            if index not in needed:
                continue
            source = defining_statements(source, needed[index])  # shown: the names later cells read
        if cell.get("cell_type") == "code":
            cell["outputs"], cell["execution_count"] = [], None
            cell["source"] = setup_cell(needs, name) if is_setup else live_code(source)
        elif cell.get("cell_type") == "markdown":  # JupyterLab renders CommonMark: no MyST roles or directives
            cell["source"] = to_commonmark(live_markdown(source), glued)
        hidden = meta.setdefault("jupyter", {})
        if tags & {"hide-cell", "hide-input", "remove-input"}:
            hidden["source_hidden"] = True
        if tags & {"hide-cell", "hide-output", "remove-output"}:
            hidden["outputs_hidden"] = True
            meta["collapsed"] = True  # what JupyterLab reads when it opens the notebook
        if not hidden:
            del meta["jupyter"]
        cells.append(cell)
    live["cells"] = cells
    return live


def add_setup_cells(notebooks: list[Path]) -> list[str]:
    """Insert (or refresh) the tagged setup cell as the first code cell of each book notebook.

    Idempotent: a first code cell that starts with ``LIVE_MARKER`` is refreshed in place; returns
    the names of the notebooks that changed.
    """

    changed = []
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        source = setup_cell(live_needs(path.name), path.name)
        first = code[0] if code else None
        if first is not None and first.source.startswith(LIVE_MARKER):
            if first.source == source and "remove-cell" in first.metadata.get("tags", []):
                continue
            first.source = source
            first.metadata["tags"] = sorted({*first.metadata.get("tags", []), "remove-cell"})
        else:
            cell = nbformat.v4.new_code_cell(source, metadata={"tags": ["remove-cell"]})
            cell.id = "live-setup"
            at = nb.cells.index(first) if first is not None else len(nb.cells)
            nb.cells.insert(at, cell)
        nbformat.write(nb, path)
        changed.append(path.name)
    return changed
