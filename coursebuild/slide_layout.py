r"""How tall a notebook cell is on a slide, and a deck's long prose and full slides split into slides that fit.

Heights are estimates, in pixels of the decks' 1200 x 700 slide as ``coursebuild/templates/course_reveal/deck.css``
sets text, code, figures and panels. ``scripts/slide_metadata.py`` lays cells out into slides with
:func:`cell_px`; :func:`coursebuild.slides.deck_notebook` splits a markdown cell taller than a slide at its
paragraphs (:func:`split_markdown`), each part after the first a sub-slide of its own, then (:func:`split_full_slides`)
starts a sub-slide at a cell that would overfill its slide and shows a code cell taller than a slide as its code, then
its output on the next slide. A quiz (``labcore.quizzes``, shown by jupyterquiz) of more than one question is shown
one question to a slide (:func:`split_quizzes`), so that none scrolls inside its slide.

>>> [len(part) for part in split_markdown("a\n\nb", budget=10_000)]
[4]
>>> split_markdown("\n\n".join(["word " * 200] * 3), budget=700)[1].startswith("word")
True
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Mapping
from typing import Any

from labcore.site import VEGALITE_MIME

from .speaker_notes import source as _source

__all__ = [
    "SLIDE_HEIGHT_PX",
    "SLIDE_PX",
    "SLIDE_WIDTH_PX",
    "cell_px",
    "markdown_px",
    "slide_type",
    "split_full_slides",
    "split_markdown",
    "split_quizzes",
    "split_table_html",
    "split_tall_prose",
    "split_tall_tables",
]

#: the decks' slide (reveal's width and height; coursebuild/slides.py's DECK_CSS sizes its text)
SLIDE_WIDTH_PX, SLIDE_HEIGHT_PX = 1200, 700
# The slide's height budget, in pixels of the slide.
SLIDE_PX = 680
PROSE_LINE_PX, PROSE_CHARS = 32, 100
#: code and printed output at 19 px (line height 1.3), about 98 characters to a line of the slide
CODE_LINE_PX, CODE_CHARS = 25, 98
TABLE_ROW_PX = 34
PANEL_PX = 520
FIGURE_PX = 420
#: a quiz question: its box, question and feedback lines, then one line of answer buttons or a number box
QUIZ_PX, QUIZ_LINE_PX, QUIZ_CHARS, QUIZ_ANSWER_PX = 120, 27, 48, 62
_SVG_SIZE = re.compile(
    r'<svg[^>]*?\bheight="([\d.]+)(pt|px)?"[^>]*?\bwidth="([\d.]+)(pt|px)?"'
    r'|<svg[^>]*?\bwidth="([\d.]+)(pt|px)?"[^>]*?\bheight="([\d.]+)(pt|px)?"',
    re.S,
)


def _text_px(text: str, line_px: int, chars: int) -> int:
    return sum(
        max(1, math.ceil(len(line) / chars)) * line_px if line.strip() else line_px // 2 for line in text.split("\n")
    )


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
    return int(h * min(1.0, (SLIDE_WIDTH_PX - 60) / w))  # at most the slide's width (deck.js may shrink it further)


def cell_px(cell: Mapping[str, Any]) -> int:
    """Estimate a cell's height on a slide, in pixels (prose, code, text outputs, figures, panels)."""
    if cell.get("cell_type") == "markdown":
        return markdown_px(_source(cell))
    px = (
        0
        if (cell.get("metadata", {}).get("transient") or {}).get("remove_source")
        else _text_px(_source(cell), CODE_LINE_PX, CODE_CHARS) + 24
    )
    return px + outputs_px(cell)


def outputs_px(cell: Mapping[str, Any]) -> int:
    """Estimate the height of a code cell's outputs on a slide, in pixels."""
    px = 0
    for out in cell.get("outputs", []):
        data = out.get("data", {})
        if out.get("output_type") == "stream":
            px += _text_px("".join(out.get("text", "")), CODE_LINE_PX, CODE_CHARS) + 10
        elif VEGALITE_MIME in data:
            px += PANEL_PX
        elif "image/svg+xml" in data:
            px += _svg_px("".join(data["image/svg+xml"]))
        elif "image/png" in data:
            px += FIGURE_PX
        elif "text/html" in data and _QUIZ_DIV.search("".join(data["text/html"])):
            px += quiz_px(cell, "".join(data["text/html"]))
        elif "text/html" in data or "text/markdown" in data:
            text = "".join(data.get("text/markdown") or data["text/html"])
            plain = re.sub(r"<[^>]+>", "", text)
            table = _TABLE.match(text)
            rows = max(text.count("<tr"), text.count("\n|"), 2)
            px += (
                sum(map(_row_px, _ROW.findall(text)))
                if table
                else TABLE_ROW_PX * rows + 25 * math.ceil(len(plain) / 90)
            )
        elif "text/plain" in data:
            px += _text_px("".join(data["text/plain"]), CODE_LINE_PX, CODE_CHARS) + 10
    return px


def slide_type(cell: Mapping[str, Any]) -> str | None:
    """Return a cell's ``slideshow.slide_type``, or None when it has none.

    >>> slide_type({"metadata": {"slideshow": {"slide_type": "notes"}}}), slide_type({"metadata": {}})
    ('notes', None)
    """
    return (cell.get("metadata", {}).get("slideshow") or {}).get("slide_type")


def markdown_px(text: str) -> int:
    """Estimate the height of markdown prose on a slide (a pipe table's rows by their cells)."""
    lines = text.split("\n")
    table = "\n".join(line for line in lines if line.lstrip().startswith("|"))
    prose = "\n".join(line for line in lines if not line.lstrip().startswith("|"))
    return _text_px(prose, PROSE_LINE_PX, PROSE_CHARS) + (_pipe_table_px(table) if table else 0) + 20


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
    blocks = [piece for block in blocks for piece in _table_pieces(block, budget)]
    parts: list[str] = []
    for block in blocks:
        if parts and markdown_px(parts[-1] + "\n\n" + block) <= budget:
            parts[-1] += "\n\n" + block
        else:
            parts.append(block)
    return parts


def _table_pieces(block: str, budget: int) -> list[str]:
    """Return a pipe table taller than ``budget`` as tables of whole rows that fit, each with the header; else [block].

    >>> table = "| a | b |\\n|---|---|\\n" + "\\n".join(f"| {'word ' * 40} | {n} |" for n in range(20))
    >>> pieces = _table_pieces(table, 400)
    >>> len(pieces) > 1 and all(p.startswith("| a | b |\\n|---|---|\\n") for p in pieces)
    True
    """
    lines = block.split("\n")
    if (
        markdown_px(block) <= budget
        or len(lines) < 4
        or not all(line.lstrip().startswith("|") for line in lines)
        or not re.fullmatch(r"\s*\|[\s:|-]+\|?\s*", lines[1])
    ):
        return [block]
    header = "\n".join(lines[:2])
    pieces = [header]
    for row in lines[2:]:
        if pieces[-1] != header and markdown_px(pieces[-1] + "\n" + row) > budget:
            pieces.append(header)
        pieces[-1] += "\n" + row
    return pieces


def split_tall_prose(cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return ``cells`` with each markdown cell taller than a slide cut into parts, each after the first a sub-slide.

    The notes that follow the cell stay with its first part (its section's cue on the section's first slide).
    """

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


def _slides(cells: list[dict[str, Any]]) -> list[list[int]]:
    """Return the indices of ``cells`` grouped as reveal shows them: a ``slide``/``subslide`` cell starts a slide."""
    groups: list[list[int]] = []
    for i, cell in enumerate(cells):
        kind = slide_type(cell) or "-"
        if kind in ("slide", "subslide") or not groups:
            groups.append([])
        groups[-1].append(i)
    return groups


def _as_subslide(cell: dict[str, Any], **changes: Any) -> dict[str, Any]:

    meta = copy.deepcopy(cell.get("metadata", {}))
    meta.setdefault("slideshow", {})["slide_type"] = "subslide"
    return {**cell, **changes, "metadata": meta}


def split_full_slides(cells: list[dict[str, Any]], *, budget: int = SLIDE_PX) -> list[dict[str, Any]]:
    """Return ``cells`` laid out so that no slide holds more than ``budget`` px (as :func:`cell_px` estimates).

    A cell that would overfill its slide starts a sub-slide (the cells before it stay together); a code cell taller
    than a slide by itself, with code and output, shows its code, then its output alone on the next slide. A figure
    counts at half its height: the deck shrinks one on a full slide down to half its width (``deck.js``).

    >>> code = lambda n, kind="-": {"cell_type": "code", "id": f"c{n}", "source": "x = 1\\n" * n, "outputs": [],
    ...                              "metadata": {"slideshow": {"slide_type": kind}}}
    >>> [slide_type(c) for c in split_full_slides([code(10, "slide"), code(20), code(4)])]
    ['slide', 'subslide', '-']
    """

    out: list[dict[str, Any]] = []
    for group in _slides(cells):
        used = 0
        for i in group:
            cell = cells[i]
            kind = slide_type(cell) or "-"
            if kind in ("notes", "skip"):
                out.append(cell)
                continue
            height = _fitted_px(cell)
            removed = (cell.get("metadata", {}).get("transient") or {}).get("remove_source")
            if cell.get("cell_type") == "code" and height > budget and cell.get("outputs") and not removed:
                code = {**copy.deepcopy(cell), "outputs": []}
                if used and kind not in ("slide", "subslide"):
                    code = _as_subslide(code)
                shown = _as_subslide(copy.deepcopy(cell), id=f"{cell.get('id', 'cell')}-output")
                shown["metadata"].setdefault("transient", {})["remove_source"] = True
                out += [code, shown]
                used = _fitted_px(shown)
                continue
            if used and kind not in ("slide", "subslide") and used + height > budget:
                cell = _as_subslide(cell)
                used = 0
            out.append(cell)
            used += height
    return out


def _fitted_px(cell: Mapping[str, Any]) -> int:
    """Estimate a cell's height with its figures shrunk to half (what the deck can fit on a slide at the least)."""
    if cell.get("cell_type") != "code":
        return cell_px(cell)
    figures = sum(
        _svg_px("".join(o["data"]["image/svg+xml"])) if "image/svg+xml" in o.get("data", {}) else FIGURE_PX
        for o in cell.get("outputs", [])
        if {"image/svg+xml", "image/png"} & set(o.get("data", {}))
    )
    return cell_px(cell) - figures // 2


_TABLE = re.compile(
    r"^(?P<head>\s*<table\b[^>]*>\s*<thead>.*?</thead>\s*<tbody>)(?P<rows>.*)"
    r"(?P<tail></tbody>\s*</table>\s*)$",
    re.S,
)
_ROW = re.compile(r"<tr\b.*?</tr>", re.S)
_CELL = re.compile(r"<t[dh]\b[^>]*>(.*?)</t[dh]>", re.S)


def _cells_px(cells: list[str], *, line_px: int = CODE_LINE_PX, char_px: int = 11) -> int:
    """Estimate a table row's height from its cells' text (columns of equal width; 19 px text by default)."""
    cells = cells or [""]
    chars = max(6, (SLIDE_WIDTH_PX - 60) // len(cells) // char_px - 2)
    return 12 + line_px * max(max(1, math.ceil(len(c.strip()) / chars)) for c in cells)


def _row_px(row: str) -> int:
    return _cells_px([re.sub(r"<[^>]+>", "", c) for c in _CELL.findall(row)])


def _pipe_table_px(text: str) -> int:
    """Estimate a markdown pipe table's height (22 px prose text), row by row."""
    rows = [line.strip().strip("|").split("|") for line in text.split("\n") if line.strip().startswith("|")]
    rows = [r for r in rows if not re.fullmatch(r"[\s:-]*", "".join(r))]
    return sum(
        _cells_px([re.sub(r"[*`]|\[([^]]*)\]\([^)]*\)", r"\1", c) for c in r], line_px=30, char_px=12) for r in rows
    )


def split_table_html(html: str, *, budget: int = SLIDE_PX) -> list[str]:
    """Return an HTML table (one ``<table>`` with ``<thead>`` and ``<tbody>``) cut into tables of whole rows that each
    fit ``budget`` px, every part with the header; anything else, or a table that fits, as ``[html]``.

    >>> row = "<tr><td>" + "word " * 60 + "</td></tr>"
    >>> parts = split_table_html("<table><thead><tr><th>h</th></tr></thead><tbody>" + row * 12 + "</tbody></table>")
    >>> len(parts) > 1, all(p.startswith("<table><thead>") and p.endswith("</table>") for p in parts)
    (True, True)
    """
    match = _TABLE.match(html)
    if not match:
        return [html]
    head = _row_px(match["head"])
    rows = _ROW.findall(match["rows"])
    parts: list[list[str]] = [[]]
    used = head
    for row in rows:
        if parts[-1] and used + _row_px(row) > budget:
            parts.append([])
            used = head
        parts[-1].append(row)
        used += _row_px(row)
    if len(parts) == 1:
        return [html]
    return [match["head"] + "".join(part) + match["tail"] for part in parts]


def split_tall_tables(cells: list[dict[str, Any]], *, budget: int = SLIDE_PX) -> list[dict[str, Any]]:
    """Return ``cells`` with a code cell whose one output is an HTML table taller than ``budget`` shown as its code,
    then the table's rows over as many slides as they need (each a sub-slide with the table's header)."""

    out: list[dict[str, Any]] = []
    for cell in cells:
        outputs = cell.get("outputs", [])
        html = "".join(outputs[0].get("data", {}).get("text/html", "")) if len(outputs) == 1 else ""
        parts = split_table_html(html, budget=budget - 40) if cell.get("cell_type") == "code" and html else [html]
        if len(parts) == 1:
            out.append(cell)
            continue
        out.append({**copy.deepcopy(cell), "outputs": []})
        for n, part in enumerate(parts, start=1):
            output = {**copy.deepcopy(outputs[0]), "data": {"text/html": part}}
            shown = _as_subslide(copy.deepcopy(cell), id=f"{cell.get('id', 'cell')}-rows-{n}", outputs=[output])
            shown["metadata"].setdefault("transient", {})["remove_source"] = True
            out.append(shown)
    return out


#: jupyterquiz's container (``render_div``): its id names the script's ``questions<id>`` array
_QUIZ_DIV = re.compile(r'<div id="(?P<id>[A-Za-z]\w*)" data-shufflequestions="False"')
#: which of its quiz's questions a part made by :func:`split_quizzes` shows
_QUIZ_PART = re.compile(r'data-lc-question="(\d+)"')


def quiz_questions(cell: Mapping[str, Any]) -> tuple[str, list[dict[str, Any]]] | None:
    """Return a code cell's jupyterquiz container id and questions (jupyterquiz's JSON) when it shows a quiz, else None.

    The questions are read from the script output, which declares them as ``var questions<id>=[...]``.
    """
    if cell.get("cell_type") != "code":
        return None
    outputs = [o.get("data", {}) for o in cell.get("outputs", [])]
    found = next((m for d in outputs if (m := _QUIZ_DIV.search("".join(d.get("text/html", ""))))), None)
    if found is None:
        return None
    declared = f"var questions{found['id']}="
    for data in outputs:
        script = "".join(data.get("application/javascript", ""))
        if declared in script:
            questions, _ = json.JSONDecoder().raw_decode(script, script.index(declared) + len(declared))
            return found["id"], questions
    raise ValueError(
        f"cell {cell.get('id')!r} shows quiz container {found['id']!r}, but no script output declares "
        f"its questions ({declared!r})"
    )


def quiz_px(cell: Mapping[str, Any], html: str) -> int:
    """Estimate the height of a quiz's output: every question, or the one a part of :func:`split_quizzes` shows."""
    found = quiz_questions(cell)
    if found is None:
        return FIGURE_PX
    questions = found[1]
    part = _QUIZ_PART.search(html)
    shown = [questions[int(part[1])]] if part else questions

    def lines(text: str) -> int:
        return max(1, math.ceil(len(re.sub(r"<[^>]+>|&\w+;", " ", text)) / QUIZ_CHARS))

    return sum(
        QUIZ_PX
        + QUIZ_LINE_PX * lines(q.get("question", ""))
        + (
            sum(QUIZ_ANSWER_PX // 2 + QUIZ_LINE_PX * lines(a.get("answer", "")) for a in q.get("answers", []))
            if q.get("type") == "multiple_choice"
            else QUIZ_ANSWER_PX
        )
        for q in shown
    )


def split_quizzes(cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return ``cells`` with a quiz of several questions shown one question to a slide.

    The quiz's cell repeats once per question, each after the first a sub-slide with no code. Each copy renders the
    whole quiz in a container of its own (the container id made unique in its HTML and script) and shows only its
    question: jupyterquiz numbers questions in order (``data-qnum``), so what a learner answers right on any slide is
    kept under the right question (``labcore.progress``). Each part says which question it is. The notes that follow
    the quiz stay with its first question.

    >>> quiz = lambda n: {"cell_type": "code", "id": "q", "metadata": {}, "source": "quiz.show()", "outputs": [
    ...     {"output_type": "display_data", "data": {"text/html": '<div id="abc" data-shufflequestions="False">'}},
    ...     {"output_type": "display_data", "data": {"application/javascript": "var questionsabc=" +
    ...                                                                     json.dumps([{"question": "?"}] * n)}}]}
    >>> parts = split_quizzes([quiz(3)])
    >>> [slide_type(c) for c in parts], [c["outputs"][1]["data"]["application/javascript"][:16] for c in parts]
    ([None, 'subslide', 'subslide'], ['var questionsabc', 'var questionsabc', 'var questionsabc'])
    >>> [quiz_questions(c)[0] for c in parts], [len(quiz_questions(c)[1]) for c in parts]
    (['abcQuestionA', 'abcQuestionB', 'abcQuestionC'], [3, 3, 3])
    >>> len(split_quizzes([quiz(1)]))
    1
    """

    out: list[dict[str, Any]] = []
    i = 0
    while i < len(cells):
        cell = cells[i]
        i += 1
        found = quiz_questions(cell)
        if found is None or len(found[1]) < 2:
            out.append(cell)
            continue
        div_id, questions = found
        for n in range(len(questions)):
            part_id = f"{div_id}Question{chr(ord('A') + n)}"  # letters only: it also names a script variable
            outputs = []
            for output in copy.deepcopy(cell.get("outputs", [])):
                data = output.get("data", {})
                for mime, value in data.items():
                    text = "".join(value) if isinstance(value, list) else value
                    if isinstance(text, str):
                        data[mime] = text.replace(div_id, part_id)
                html = data.get("text/html")
                if isinstance(html, str) and _QUIZ_DIV.search(html):
                    data["text/html"] = (
                        f'<p class="lc-quiz-part" data-lc-question="{n}">Question {n + 1} of {len(questions)}</p>'
                        f'<style>#{part_id} .Quiz[data-qnum]:not([data-qnum="{n}"]) {{ display: none; }}</style>' + html
                    )
                outputs.append(output)
            if n == 0:
                out.append({**cell, "outputs": outputs})
                while i < len(cells) and slide_type(cells[i]) == "notes":
                    out.append(cells[i])
                    i += 1
                continue
            part = _as_subslide(cell, id=f"{cell.get('id', 'cell')}-question-{n + 1}", outputs=outputs)
            part["metadata"].setdefault("transient", {})["remove_source"] = True
            out.append(part)
    return out
