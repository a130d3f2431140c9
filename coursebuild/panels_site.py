"""Draw labcore's Vega-Lite panels on the static book pages, with no kernel and no network.

Two pieces, both small:

- :class:`VegaLitePage`, a myst-nb mime-renderer plugin (entry point ``myst_nb.mime_renderers`` in
  ``coursebuild/pyproject.toml``): an output of type ``application/vnd.vegalite.v5+json`` becomes a
  ``<div class="lc-panel">`` holding the spec as JSON. Without it myst-nb drops the output.
- :func:`setup`, a Sphinx extension (``_config.yml`` ``extra_extensions``): it copies the pinned
  browser bundles into ``_build/_vendor/`` (:mod:`coursebuild.vendor`, which runs ``npm ci`` first when
  ``node_modules/`` is missing or stale), serves ``static/lc-panels.*``,
  and adds the scripts only to the pages that hold a panel.

The browser only draws: ``lc-panels.js`` hands each spec to ``vegaEmbed`` (SVG renderer), whose
bound inputs select precomputed rows. Every number on the page was computed by labcore in the build.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from docutils import nodes

from labcore.site import VEGALITE_MIME

from .vendor import DEFAULT_DEST, copy_assets

STATIC = Path(__file__).resolve().parent / "static"
#: Scripts a panel page loads, in order (served from the site: vendor bundles, then our glue).
SCRIPTS = ("../vega/vega.min.js", "../vega/vega-lite.min.js", "../vega/vega-embed.min.js", "lc-panels.js")
MARKER = 'class="lc-panel"'
#: the figure outputs whose text alternative the page takes from the output's metadata
FIGURE_MIMES = ("image/svg+xml", "image/png")


def panel_html(spec: dict[str, Any]) -> str:
    """Return the page markup of one panel: a div with the spec as inert JSON and a no-script note.

    >>> "lc-panel" in panel_html({"usermeta": {"labcore_panel": "x"}})
    True
    """
    name = str(spec.get("usermeta", {}).get("labcore_panel", "panel"))
    data = json.dumps(spec, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")
    return (
        f'<div class="lc-panel" data-panel="{html.escape(name)}">'
        f'<script type="application/json" class="lc-panel-spec">{data}</script>'
        f"<noscript>This interactive panel needs JavaScript.</noscript></div>"
    )


class VegaLitePage:
    """Render Vega-Lite v5 outputs as panel divs in the HTML builders (myst-nb mime-renderer plugin)."""

    mime_priority_overrides = [
        ("html", VEGALITE_MIME, 5),
        ("dirhtml", VEGALITE_MIME, 5),
        ("singlehtml", VEGALITE_MIME, 5),
    ]

    @staticmethod
    def handle_mime(renderer: Any, data: Any, inline: bool) -> Any:
        """Return a raw-HTML node for a Vega-Lite output, a figure with its text alternative, or None (myst-nb's)."""
        if not inline and data.mime_type in FIGURE_MIMES:
            alt = (data.output_metadata or {}).get("alt") or (data.output_metadata or {}).get(data.mime_type, {}).get(
                "alt"
            )
            if alt:  # labcore's figures carry their point (labcore.plots.figure_alt); myst-nb would write the file name
                images = renderer.render_image(data)
                for image in images:
                    image["alt"] = str(alt)
                return images
            return None
        if inline or data.mime_type != VEGALITE_MIME:
            return None

        spec = data.content if isinstance(data.content, dict) else json.loads(data.content)
        return [nodes.raw("", panel_html(spec), format="html", classes=["output", "lc-panel-output"])]


def _vendor(app: Any, config: Any) -> None:

    extra = [Path(app.confdir, p) for p in config.html_extra_path]
    dest = next((p for p in extra if p.name == "_vendor"), DEFAULT_DEST)
    copy_assets(dest)


def _add_static(app: Any, config: Any) -> None:
    config.html_static_path.append(str(STATIC))


def _page_assets(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    if doctree is None or MARKER not in context.get("body", ""):
        return
    for script in SCRIPTS:
        app.add_js_file(script, priority=600)
    app.add_css_file("lc-panels.css")


def setup(app: Any) -> dict[str, Any]:
    """Register the vendoring step, the static files and the per-page scripts."""
    app.connect("config-inited", _add_static)
    app.connect("config-inited", _vendor, priority=400)  # before Sphinx checks html_extra_path exists
    app.connect("html-page-context", _page_assets)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
