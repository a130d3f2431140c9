"""Typeset the book's maths when the site is built: SVG in the page, no MathJax for the reader to download.

MathJax 3 in the browser cost every page with a formula about 265 KB (gzip) before it drew a symbol. This
Sphinx extension (``coursebuild.math_svg`` in ``_config.yml``, with ``html_math_renderer: course_svg``)
collects every formula of the book once the documents are read, typesets them all in one run of the site's
own MathJax under Node (``static/mathjax_svg.js``, from ``node_modules/mathjax``), and writes each as an inline
SVG: drawn in the text's colour (dark pages work), with a hidden MathML copy that a screen reader reads (the SVG
itself is hidden from it). Pages with maths get MathJax's small SVG stylesheet; nothing else.

>>> formula_key("x^2", False) != formula_key("x^2", True)
True
>>> hide_drawing('<mjx-container><svg style="x" role="img" focusable="false"><g/></svg></mjx-container>')
'<mjx-container><svg aria-hidden="true" style="x" focusable="false"><g/></svg></mjx-container>'
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.util import logging

__all__ = ["RENDERER", "CSS", "formula_key", "hide_drawing", "has_tex_error", "typeset", "setup"]

RENDERER = "course_svg"
CSS = "course-math.css"
ROOT = Path(__file__).resolve().parent.parent
NODE_SCRIPT = Path(__file__).resolve().parent / "static" / "mathjax_svg.js"
MATHJAX = ROOT / "node_modules" / "mathjax" / "es5"


def formula_key(tex: str, display: bool) -> str:
    """Return the key a formula's typeset HTML is kept under."""
    return hashlib.sha256(f"{int(display)}:{tex}".encode()).hexdigest()[:20]


def hide_drawing(html: str) -> str:
    """Return a typeset formula with its SVG hidden from screen readers (they read its MathML copy)."""
    html = html.replace(' role="img"', "", 1)
    head = html[: html.find(">", html.find("<svg ")) + 1]
    return html if 'aria-hidden="true"' in head else html.replace("<svg ", '<svg aria-hidden="true" ', 1)


def has_tex_error(html: str) -> bool:
    """Tell whether MathJax drew a TeX error instead of the formula (the build warns, so ``-W`` fails)."""
    return 'data-mml-node="merror"' in html


def typeset(formulas: list[tuple[str, bool]], mathjax: Path = MATHJAX) -> tuple[str, dict[str, str]]:
    """Typeset ``(tex, display)`` formulas in one Node run; return the stylesheet and ``{key: html}``."""
    if not formulas:
        return "", {}
    if shutil.which("node") is None:
        raise RuntimeError("node is missing: the book's maths is typeset by MathJax under Node (npm brings node)")
    if not (mathjax / "node-main.js").is_file():
        raise FileNotFoundError(f"{mathjax} is missing: run `npm ci` (make book does)")
    payload = json.dumps([{"tex": tex, "display": display} for tex, display in formulas])
    done = subprocess.run(
        ["node", str(NODE_SCRIPT), str(mathjax)],
        input=payload,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"MathJax could not typeset the book's maths: {done.stderr.strip()[-800:]}")
    result = json.loads(done.stdout)
    html = {
        formula_key(tex, display): hide_drawing(out)
        for (tex, display), out in zip(formulas, result["html"], strict=True)
    }
    return result["css"], html


def _formulas(doctree: Any) -> list[tuple[str, bool]]:
    found = []
    for node in doctree.findall(nodes.math):
        found.append((node.astext(), False))
    for node in doctree.findall(nodes.math_block):
        found.append((node.astext(), True))
    return found


def _on_env_updated(app: Any, env: Any) -> None:
    """Typeset every formula of every document, once, before the pages are written."""
    formulas = sorted({f for docname in sorted(env.found_docs) for f in _formulas(env.get_doctree(docname))})
    css, html = typeset(formulas)
    for tex, display in formulas:
        if has_tex_error(html[formula_key(tex, display)]):
            logging.getLogger(__name__).warning(f"[math] MathJax cannot typeset {tex!r}: it would show as an error")
    app.course_math = html
    out = Path(app.outdir) / "_static" / CSS
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        css + "\n.math-display { overflow-x: auto; margin: 0.8em 0; text-align: center; }\n", encoding="utf-8"
    )


def _html(translator: Any, node: Any, display: bool) -> None:
    key = formula_key(node.astext(), display)
    typeset_html = translator.builder.app.course_math.get(key)
    if typeset_html is None:
        raise RuntimeError(f"a formula was not typeset before the page was written: {node.astext()!r}")
    translator.body.append(f'<div class="math-display">{typeset_html}</div>' if display else typeset_html)
    raise nodes.SkipNode


def _visit_inline(translator: Any, node: Any) -> None:
    _html(translator, node, False)


def _visit_block(translator: Any, node: Any) -> None:
    _html(translator, node, True)


def _page_css(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    if doctree is not None and _formulas(doctree):
        app.add_css_file(CSS, priority=850)


def setup(app: Any) -> dict[str, Any]:
    """Register the renderer (``html_math_renderer: course_svg``) and the typesetting step."""
    app.add_html_math_renderer(RENDERER, (_visit_inline, None), (_visit_block, None))
    app.connect("env-updated", _on_env_updated)
    app.connect("html-page-context", _page_css)
    return {"parallel_read_safe": True, "parallel_write_safe": False}
