"""Name what the course's site build and labcore must agree on, once: variables, mime types, file layout, storage.

The site build (``coursebuild``) writes files and sets variables that labcore reads inside a live
(JupyterLite) kernel; both sides import the names from here, and nothing else carries them:

* the Vega-Lite mime type a panel displays as, and the page renders;
* the live site's ``book_build/`` folder: each panel's grid (``panels/<grid key>.json``, read where
  :data:`GRIDS_ENV` names the folder) and each chapter's figures (``figures/<stem>.json`` with the
  images under ``figures/<stem>/``, read where :data:`FIGURES_ENV` names the index);
* the lab as the live site and the download hold it: the suite at ``tests/contract``, the skeleton at
  ``lab/skeleton``, the learner's copy at ``lab/mine``, the lab notebook beside them;
* the browser storage key under which progress (lab modules, quizzes, exercises) is kept.

>>> grid_path("book_build/panels", "0123abcd")
'book_build/panels/0123abcd.json'
>>> figures_index_path("book_build", "04_the_cache")
'book_build/figures/04_the_cache.json'
"""

from __future__ import annotations

__all__ = [
    "VEGALITE_MIME",
    "GRIDS_ENV",
    "FIGURES_ENV",
    "BOOK_BUILD",
    "PANELS_DIR",
    "FIGURES_DIR",
    "LAB_NOTEBOOK",
    "LAB_SKELETON",
    "LAB_MINE",
    "LAB_DOWNLOAD",
    "LIVE_DIR",
    "PROGRESS_KEY",
    "grid_path",
    "figures_index_path",
    "lab_live_url",
]

#: What a panel displays as (Vega-Lite v5: JupyterLab renders it natively; the site's pages through a mime renderer).
VEGALITE_MIME = "application/vnd.vegalite.v5+json"
#: Environment variable naming a folder of precomputed panel grids (``<grid key>.json``).
GRIDS_ENV = "LABCORE_PANEL_GRIDS"
#: Environment variable naming a chapter's figure index (``figures/<stem>.json``) in the live site.
FIGURES_ENV = "LABCORE_BOOK_FIGURES"
#: The live site's folder, beside the notebooks, holding what the book build computed.
BOOK_BUILD = "book_build"
PANELS_DIR = "panels"
FIGURES_DIR = "figures"
#: The lab notebook, at the top of the live site's files and of the download.
LAB_NOTEBOOK = "do_the_lab.ipynb"
LAB_SKELETON = "lab/skeleton"
LAB_MINE = "lab/mine"
#: The lab as one download, relative to the site's root.
LAB_DOWNLOAD = "downloads/multi-lora-lab.zip"
#: The live (JupyterLite) site, relative to the site's root.
LIVE_DIR = "lite"
#: The browser's ``localStorage`` key holding the reader's progress (one JSON object: lab, quizzes, exercises).
PROGRESS_KEY = "multi-lora-course:progress:v1"


def grid_path(folder: str, key: str) -> str:
    """Return the path of the grid file with ``key`` in the grids folder ``folder``."""
    return f"{folder.rstrip('/')}/{key}.json"


def figures_index_path(book_build: str, stem: str) -> str:
    """Return the path of chapter ``stem``'s figure index under the live site's ``book_build`` folder."""
    return f"{book_build.rstrip('/')}/{FIGURES_DIR}/{stem}.json"


def lab_live_url(site_root: str = "") -> str:
    """Return the address of the lab notebook in the live site, from a page whose site root is ``site_root``.

    It opens in the live site's notebook app: the notebook alone in the window, no file browser beside it,
    so it reads on a phone as on a laptop.

    >>> lab_live_url("../")
    '../lite/notebooks/index.html?path=do_the_lab.ipynb'
    """
    return f"{site_root}{LIVE_DIR}/notebooks/index.html?path={LAB_NOTEBOOK}"
