r"""How tall a notebook cell is on a slide, and a deck's long prose split into slides that fit.

Heights are estimates, in pixels of reveal's 960 x 700 slide as ``coursebuild/templates/course_reveal/deck.css``
sets text, code, figures and panels. ``scripts/slide_metadata.py`` lays cells out into slides with
:func:`cell_px`; :func:`coursebuild.slides.deck_notebook` splits a markdown cell taller than a slide at its
paragraphs (:func:`split_markdown`), each part after the first a sub-slide of its own.

>>> [len(part) for part in split_markdown("a\n\nb", budget=10_000)]
[4]
>>> split_markdown("\n\n".join(["word " * 200] * 3), budget=700)[1].startswith("word")
True
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from labcore.site import VEGALITE_MIME

from .speaker_notes import source as _source

__all__ = ["SLIDE_PX", "cell_px", "markdown_px", "slide_type", "split_markdown", "split_tall_prose"]

# The slide's height budget, in pixels of reveal's 960 x 700 slide (coursebuild/slides.py's DECK_CSS sizes).
SLIDE_PX = 680
PROSE_LINE_PX, PROSE_CHARS = 32, 80
CODE_LINE_PX = 23
PANEL_PX = 520
FIGURE_PX = 420
_SVG_SIZE = re.compile(r'<svg[^>]*?\bheight="([\d.]+)(pt|px)?"[^>]*?\bwidth="([\d.]+)(pt|px)?"'
                       r'|<svg[^>]*?\bwidth="([\d.]+)(pt|px)?"[^>]*?\bheight="([\d.]+)(pt|px)?"', re.S)


def _text_px(text: str, line_px: int, chars: int) -> int:
    return sum(max(1, math.ceil(len(line) / chars)) * line_px if line.strip() else line_px // 2
               for line in text.split("\n"))


def _svg_px(svg: str) -> int:
    match = _SVG_SIZE.search(svg)
    if not match:
        return FIGURE_PX
    groups = match.groups()
    if groups[0] is not None:
        height, h_unit, width, w_unit = groups[0:4]
    else:
        width, w_unit, height, h_unit = groups[4:8]
    to_px = {"pt": 4 / 3, "px": 1.0, None: 1.0}
    h, w = float(height) * to_px[h_unit], float(width) * to_px[w_unit]
    return int(min(520, h * min(1.0, 900 / w)))  # DECK_CSS: at most 520 px high, at most the slide's width


def cell_px(cell: Mapping[str, Any]) -> int:
    """Estimate a cell's height on a slide, in pixels (prose, code, text outputs, figures, panels)."""
    if cell.get("cell_type") == "markdown":
        return markdown_px(_source(cell))
    px = _text_px(_source(cell), CODE_LINE_PX, 90) + 24
    for out in cell.get("outputs", []):
        data = out.get("data", {})
        if out.get("output_type") == "stream":
            px += min(_text_px("".join(out.get("text", "")), CODE_LINE_PX, 90), 600)
        elif VEGALITE_MIME in data:
            px += PANEL_PX
        elif "image/svg+xml" in data:
            px += _svg_px("".join(data["image/svg+xml"]))
        elif "image/png" in data:
            px += FIGURE_PX
        elif "text/html" in data or "text/markdown" in data:
            text = "".join(data.get("text/markdown") or data["text/html"])
            plain = re.sub(r"<[^>]+>", "", text)
            rows = max(text.count("<tr"), text.count("\n|"), 2)
            px += min(30 * rows + 22 * math.ceil(len(plain) / 90), 2000)
        elif "text/plain" in data:
            px += min(_text_px("".join(data["text/plain"]), CODE_LINE_PX, 90), 600)
    return px


def slide_type(cell: Mapping[str, Any]) -> str | None:
    """Return a cell's ``slideshow.slide_type``, or None when it has none.

    >>> slide_type({"metadata": {"slideshow": {"slide_type": "notes"}}}), slide_type({"metadata": {}})
    ('notes', None)
    """
    return (cell.get("metadata", {}).get("slideshow") or {}).get("slide_type")


def markdown_px(text: str) -> int:
    """Estimate the height of markdown prose on a slide."""
    return _text_px(text, PROSE_LINE_PX, PROSE_CHARS) + 20


def split_markdown(text: str, *, budget: int = SLIDE_PX) -> list[str]:
    """Return ``text`` cut at blank lines (never inside a code fence) into parts that each fit ``budget`` px.

    A paragraph taller than the budget by itself stays whole (a part of one paragraph).
    """
    blocks: list[str] = []
    fence = False
    for block in text.split("\n\n"):
        if fence and blocks:
            blocks[-1] += "\n\n" + block
        else:
            blocks.append(block)
        fence ^= len(re.findall(r"^(```|~~~)", block, re.M)) % 2 == 1
    parts: list[str] = []
    for block in blocks:
        if parts and markdown_px(parts[-1] + "\n\n" + block) <= budget:
            parts[-1] += "\n\n" + block
        else:
            parts.append(block)
    return parts


def split_tall_prose(cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return ``cells`` with each markdown cell taller than a slide cut into parts, each after the first a sub-slide.

    The notes that follow the cell stay with its first part (its section's cue on the section's first slide).
    """
    import copy

    out: list[dict[str, Any]] = []
    i = 0
    while i < len(cells):
        cell = cells[i]
        i += 1
        text = _source(cell)
        if cell.get("cell_type") != "markdown" or slide_type(cell) == "notes" or markdown_px(text) <= SLIDE_PX:
            out.append(cell)
            continue
        first, *rest = split_markdown(text)
        out.append({**cell, "source": first})
        while i < len(cells) and slide_type(cells[i]) == "notes":
            out.append(cells[i])
            i += 1
        for n, part in enumerate(rest, start=1):
            meta = copy.deepcopy(cell.get("metadata", {}))
            meta.setdefault("slideshow", {})["slide_type"] = "subslide"
            out.append({**cell, "id": f"{cell.get('id', 'cell')}-{n}", "source": part, "metadata": meta})
    return out
