"""Make every page of the site work for a reader who uses the keyboard, a screen reader or a phone.

A Sphinx extension (``coursebuild.a11y`` in ``_config.yml``):

* every page gets ``static/course-a11y.css``: a visible focus ring on everything focusable in both themes,
  no animation for a reader who asks for reduced motion, and the article's header buttons as icons on a phone
  (their labels pushed the page-contents toggle off a 390 px screen);
* after the build, three of the theme's controls lose an ``aria-label`` that hid their visible text from their
  accessible name (axe-core's ``label-content-name-mismatch``): the search buttons ("Search Ctrl+K"), the colour-mode
  button and each folded cell's summary ("Show code cell content"). Each is then named by its content, so a reader
  who says what they see can press it;
* every page gets ``static/course-a11y.js``: on a touch screen, a tap on a glossary term shows its definition
  card (as hovering does), and a second tap follows the link.

>>> fix_names('<button class="btn search-button__button" title="Search" aria-label="Search">')
'<button class="btn search-button__button" title="Search">'
>>> fix_names('<summary aria-label="Toggle hidden content">')
'<summary>'
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

__all__ = ["CSS", "SCRIPT", "fix_names", "setup"]

CSS = "course-a11y.css"  # in coursebuild/static, which coursebuild.panels_site adds to html_static_path
SCRIPT = "course-a11y.js"
_MISNAMED = (
    re.compile(r'(<button class="[^"]*search-button__button[^"]*"[^>]*?) aria-label="Search"'),
    re.compile(r'(<button class="[^"]*theme-switch-button[^"]*"[^>]*?) aria-label="Color mode"'),
    re.compile(r'(<summary) aria-label="Toggle hidden content"'),
)


def fix_names(html: str) -> str:
    """Return ``html`` with the theme's misnamed controls named by their content (see the module doc)."""
    for pattern in _MISNAMED:
        html = pattern.sub(r"\1", html)
    return html


def _add_assets(app: Any) -> None:
    app.add_css_file(CSS, priority=800)
    app.add_js_file(SCRIPT, priority=800)


def _fix_pages(app: Any, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for page in out.rglob("*.html"):
        if page.relative_to(out).parts[0] in ("lite", "slides"):
            continue  # the live site and the decks have no such buttons
        text = page.read_text(encoding="utf-8")
        fixed = fix_names(text)
        if fixed != text:
            page.write_text(fixed, encoding="utf-8")


def setup(app: Any) -> dict[str, Any]:
    """Register the stylesheet on every page and the search buttons' fix after the build."""
    app.connect("builder-inited", _add_assets)
    app.connect("build-finished", _fix_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
