"""Build the course's JupyterLite site with the book: a Sphinx extension over ``jupyterlite-sphinx``.

In ``_config.yml``: ``sphinx: extra_extensions: [coursebuild.lite.sphinx]``, with
``jupyterlite_dir`` (the input folder) and ``jupyterlite_content_dir`` (the files) set. Then:

* when the config is read, the input folder gets the Pyodide runtime, the served wheels and the
  config (:func:`coursebuild.lite.site.prepare_runtime`), and the theme's remote web font that
  ``jupyterlite-sphinx`` adds to every page is dropped;
* every page whose notebook has a live copy (``lite_notebooks``, the chapters) gets a "Live" button (one whose
  manifest names a ``live_notebook``, chapter 7's, opens the lab notebook: :mod:`labcore.chapters`);
* when the pages are written (before ``jupyterlite-sphinx`` runs ``jupyter lite build``), the
  contents folder gets each chapter's live copy with the glue values of this build's executed
  notebooks (:func:`coursebuild.lite.site.stage_contents`);
* after the build, source maps are removed and the site's size is reported.

Without the Lite requirements (``requirements-lite.txt``), or with ``COURSE_LITE=0`` in the environment
(a quick build of the pages alone), it logs one line and builds the book with no live site and no
Live buttons.
"""

from __future__ import annotations

from pathlib import Path

from sphinx.util import logging

from labcore.chapters import CHAPTERS
from labcore.site import LAB_NOTEBOOK, lab_live_url

from .requirements import missing_requirement
from .site import LITE_APPS_LINK, finish_site, prepare_runtime, stage_contents

#: jupyterlite-sphinx's settings that ``_config.yml`` sets (declared here too when the live site is skipped)
LITE_CONFIG_VALUES = ("jupyterlite_dir", "jupyterlite_content_dir", "jupyterlite_bind_ipynb_suffix")


def _lite_dir(app) -> Path:
    lite_dir = Path(app.config.jupyterlite_dir)
    return lite_dir if lite_dir.is_absolute() else Path(app.srcdir) / lite_dir


def _on_config_inited(app, config) -> None:
    """Prepare the lite input folder and drop jupyterlite-sphinx's remote web font."""
    srcdir = Path(app.srcdir)
    prepare_runtime(_lite_dir(app), srcdir / "_build" / "lite_cache", srcdir)
    config.jupyterlite_contents = []  # everything is staged into jupyterlite_content_dir
    app.registry.css_files[:] = [
        (name, attrs) for name, attrs in app.registry.css_files if not str(name).startswith("http")
    ]


def _on_page_context(app, pagename, templatename, context, doctree) -> None:
    """Add a "Live" button to the header of every page whose notebook has a live copy (``lite_notebooks``)."""
    path = app.env.doc2path(pagename, base=False) if pagename in app.env.all_docs else ""
    if not any(Path(path).match(pattern) for pattern in app.config.lite_notebooks):
        return  # no live copy of this page: no button that would lead nowhere
    root = "../" * pagename.count("/")
    opens = next((c.live_notebook for c in CHAPTERS if f"{c.notebook}.ipynb" == Path(path).name), "")
    lab = opens == LAB_NOTEBOOK  # the lab's chapter: Live opens the lab notebook itself
    href = lab_live_url(root) if lab else root + f"lite/{LITE_APPS_LINK}?path={Path(path).name}"
    context.setdefault("header_buttons", []).insert(
        0,
        {
            "type": "link",
            "url": href,
            "tooltip": (
                "Open the lab notebook, on your own copy of the lab, in a live Python kernel in your browser "
                "(JupyterLite)"
            )
            if lab
            else "Open this chapter in a live Python kernel in your browser (JupyterLite)",
            "icon": "fas fa-play",
            "label": "live-lite-button",
            "text": "Live",
        },
    )


def _on_pages_written(app, exception) -> None:
    """Stage the chapters' live copies with this build's glue values (before ``jupyter lite build``)."""
    if exception is not None or app.builder.format != "html":
        return
    srcdir = Path(app.srcdir)
    notebooks = sorted(p for pattern in app.config.lite_notebooks for p in srcdir.glob(pattern))
    executed = Path(app.outdir).parent / "jupyter_execute" / "book"
    stage_contents(
        notebooks, srcdir / app.config.jupyterlite_content_dir, root=srcdir, executed_dir=executed, glue="build"
    )


def _on_build_finished(app, exception) -> None:
    """Finish the built lite site (:func:`coursebuild.lite.site.finish_site`) and report its size."""
    site = Path(app.outdir) / "lite"
    if exception is None and site.is_dir():
        finish_site(site)


def setup(app):
    """Register the extension; without the Lite requirements, say so once and do nothing else."""
    missing = missing_requirement()
    if missing:
        logging.getLogger(__name__).info(
            f"[lite] {missing}: building the book without its live (JupyterLite) site and Live buttons "
            "(pip install -r requirements-lite.txt to add them)"
        )
        for name in LITE_CONFIG_VALUES:  # _config.yml sets them: known names, so -W stays warning-free
            app.add_config_value(name, None, "html")
        return {"parallel_read_safe": True, "parallel_write_safe": True}
    app.setup_extension("jupyterlite_sphinx")
    app.add_config_value("lite_notebooks", ["book/[0-9][0-9]_*.ipynb", "book/fleet_calculator.ipynb"], "html")
    app.connect("config-inited", _on_config_inited, priority=900)
    app.connect("html-page-context", _on_page_context, priority=600)
    app.connect("build-finished", _on_pages_written, priority=400)  # jupyterlite-sphinx builds at 500
    app.connect("build-finished", _on_build_finished, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
