"""Pages that print on one sheet of paper: a print stylesheet for the pages named in ``printable_pages``.

In ``_config.yml``: ``sphinx: extra_extensions: [coursebuild.printable]``. The pages listed in the config
value ``printable_pages`` (docnames; default ``["book/cheat_sheet"]``) get ``static/lc-print.css``, which
applies only when printing: the theme's header, sidebars, buttons and footer are left off the paper, and the
article is set small, in two columns, to fit one A4 or Letter page (``tests/browser/test_instructor_pages.py``
prints the cheat sheet with Chromium and counts the pages). No other page loads it.
"""

from __future__ import annotations

from typing import Any

CSS = "lc-print.css"  # in coursebuild/static, which coursebuild.panels_site adds to html_static_path


def _page_assets(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    if pagename in app.config.printable_pages:
        app.add_css_file(CSS, priority=900, media="print")


def setup(app: Any) -> dict[str, Any]:
    """Register the config value and the per-page stylesheet."""
    app.add_config_value("printable_pages", ["book/cheat_sheet"], "html")
    app.connect("html-page-context", _page_assets)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
