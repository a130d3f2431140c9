"""Let a reader answer each exercise on the static page, checked there by its labcore rule, or open it in Live.

On a chapter page, each ``**Exercise N.M.**`` paragraph of an exercise in :data:`labcore.chapters.EXERCISES` gets,
after its check cell, a box (:func:`exercise_html`):

* an exercise whose check is a rule (:meth:`labcore.checks.exercise.Exercise.rule`: a number, a choice or an
  ordered list) gets a form: a labelled input with its unit (radio buttons for a choice, names separated by commas
  for a list), a Check button (Enter checks), and a live region that shows the verdict labcore would print.
  The rule is computed when the site is built, with the page's arguments, and written beside the form as JSON;
  ``static/course-exercises.js`` judges by it and records the verdict in the reader's progress under the
  exercise's key (:attr:`~labcore.checks.exercise.Exercise.key`), as the check does in the live site;
* an exercise that needs code (or a design the simulator checks) gets a link that opens its own notebook in the
  live site (:mod:`coursebuild.lite.exercises`: the exercise with what it needs from its chapter), where its check
  cell runs the reader's code (plain text when this build has no live site).

The check cell's stored output ("✗ Not answered yet: replace None ...") is not shown on the page that has the box:
it is what the cell printed when the book was built, not an answer the reader can give here.

>>> e = next(e for e in EXERCISES if e.label == "4.2")
>>> '"kind": "number"' in exercise_html(e, live_href="../lite/notebooks/index.html?path=04_the_cache.ipynb")
True
"""

from __future__ import annotations

import functools
import html
import json
import re
from pathlib import Path
from typing import Any

from docutils import nodes

from labcore.chapters import EXERCISES
from labcore.checks.exercise import Exercise
from labcore.site import LIVE_DIR, PROGRESS_KEY

from .lite.exercises import exercise_notebook_name
from .lite.requirements import missing_requirement

__all__ = [
    "SCRIPT",
    "CSS",
    "MARKER",
    "CELL_CLASS",
    "exercise_data",
    "exercise_html",
    "exercise_live_href",
    "live_href",
    "setup",
]

SCRIPT = "course-exercises.js"  # in coursebuild/static, which coursebuild.panels_site adds to html_static_path
CSS = "course-exercises.css"
MARKER = 'class="course-exercise'
#: the class of an exercise's check cell on a page that has its box (its stored output is hidden)
CELL_CLASS = "course-exercise-cell"
_TITLE = re.compile(r"Exercise (\d+\.\d+)\.$")
#: the live site's notebook app (coursebuild.lite.site.LITE_APPS_LINK, named here without importing the Lite build)
_NOTEBOOKS = "notebooks/index.html"


def live_href(page: str, docname: str) -> str:
    """Return the address that opens notebook ``page`` (a chapter's or an exercise's) in Live, from page ``docname``.

    >>> live_href("04_the_cache", "book/04_the_cache")
    '../lite/notebooks/index.html?path=04_the_cache.ipynb'
    """
    return "../" * docname.count("/") + f"{LIVE_DIR}/{_NOTEBOOKS}?path={page}.ipynb"


def exercise_live_href(label: str, docname: str) -> str:
    """Return the address that opens exercise ``label``'s own notebook in Live (:mod:`coursebuild.lite.exercises`).

    >>> exercise_live_href("7.2", "book/07_do_the_lab")
    '../lite/notebooks/index.html?path=exercise_7_2.ipynb'
    """
    return live_href(Path(exercise_notebook_name(label)).stem, docname)


@functools.cache
def exercise_data(label: str) -> dict[str, Any]:
    """Return what the page's script needs of exercise ``label``: its key, the progress key and its rule (or None)."""
    exercise = next(e for e in EXERCISES if e.label == label)
    rule = exercise.rule()
    return {
        "label": label,
        "key": exercise.key,
        "storage": PROGRESS_KEY,
        "rule": None if rule is None else rule.to_json(),
    }


def _id(label: str) -> str:
    return "course-exercise-" + label.replace(".", "-")


def _live(exercise: Exercise, href: str | None, *, needs_code: bool) -> str:
    chapter = exercise.label.split(".")[0]
    what = "write and run your code" if needs_code else "run its check"
    if href is None:
        return (
            f'<p class="course-exercise-live">To {what}, open chapter {chapter} in the live site (not part of '
            f"this build of the course), then go to Exercise {exercise.label} under Exercises.</p>"
        )
    return (
        f'<p class="course-exercise-live"><a class="course-exercise-live-link" href="{html.escape(href)}">'
        f"Open exercise {exercise.label} in Live</a> to {what}: a notebook with just this exercise opens in "
        f"your browser, with a link back to the whole of chapter {chapter}.</p>"
    )


def _inputs(exercise: Exercise, rule: dict[str, Any]) -> str:
    ident = _id(exercise.label)
    if rule["kind"] == "choice":
        radios = "".join(
            f'<label class="course-exercise-option"><input type="radio" name="{ident}-answer" '
            f'value="{html.escape(option)}"> {html.escape(option)}</label>'
            for option in rule["options"]
        )
        return (
            f'<fieldset class="course-exercise-choices"><legend>Your answer, one of '
            f"{', '.join(rule['options'])}</legend>{radios}</fieldset>"
        )
    if rule["kind"] == "list":
        label, unit, mode = "Your answer: the names in order, separated by commas", "", "text"
    else:
        label, unit, mode = f"Your answer: {rule['what']} ({rule['unit']})", rule["unit"], "decimal"
    unit_html = f'<span class="course-exercise-unit" aria-hidden="true">{html.escape(unit)}</span>' if unit else ""
    return (
        f'<label class="course-exercise-label" for="{ident}-answer">{html.escape(label)}</label>'
        f'<span class="course-exercise-field"><input id="{ident}-answer" name="{ident}-answer" type="text" '
        f'inputmode="{mode}" autocomplete="off" spellcheck="false">{unit_html}</span>'
    )


def exercise_html(exercise: Exercise, *, live_href: str | None) -> str:
    """Return the box an exercise gets on its page: a form checked by its rule, or a link to it in Live."""
    data = exercise_data(exercise.label)
    rule = data["rule"]
    ident = _id(exercise.label)
    if rule is None:
        return (
            f'<section class="course-exercise course-exercise-code" id="{ident}" '
            f'aria-label="Answer Exercise {exercise.label}">'
            f"<p>Exercise {exercise.label} asks for Python code, which needs a kernel.</p>"
            f"{_live(exercise, live_href, needs_code=True)}</section>"
        )
    payload = json.dumps(data, ensure_ascii=False, allow_nan=False).replace("</", "<\\/")
    return (
        f'<form class="course-exercise" id="{ident}" data-label="{exercise.label}" novalidate '
        f'aria-label="Answer Exercise {exercise.label}">'
        f'<script type="application/json" class="course-exercise-data">{payload}</script>'
        f'<p class="course-exercise-title">Answer Exercise {exercise.label} here: it is checked on this page, '
        f"with the same hints as its check cell.</p>"
        f'<div class="course-exercise-row">{_inputs(exercise, rule)}'
        f'<button type="submit" class="course-exercise-check">Check</button></div>'
        f'<p class="course-exercise-verdict" role="status" aria-live="polite"></p>'
        f"<noscript><p>Checking an answer on this page needs JavaScript.</p></noscript></form>"
    )


def _page_exercises(docname: str) -> dict[str, Exercise]:
    page = Path(docname).name
    return {e.label: e for e in EXERCISES if e.page == page}


def _check_cell(paragraph: nodes.paragraph) -> nodes.Element | None:
    """Return the code cell after an exercise's paragraph (its check), before any other paragraph or heading."""
    parent = paragraph.parent
    for sibling in parent.children[parent.index(paragraph) + 1 :]:
        if isinstance(sibling, nodes.container) and "cell" in sibling["classes"]:
            return sibling
        if isinstance(sibling, (nodes.paragraph, nodes.section)):
            return None
    return None


def _add_boxes(app: Any, doctree: nodes.document, docname: str) -> None:
    """Put each exercise's box after its check cell (after its paragraph if it has none)."""
    exercises = _page_exercises(docname)
    if not exercises or app.builder.format != "html":
        return
    live = missing_requirement() is None
    for paragraph in list(doctree.findall(nodes.paragraph)):
        first = next((c for c in paragraph.children if not (isinstance(c, nodes.Text) and not c.strip())), None)
        match = _TITLE.match(first.astext().strip()) if isinstance(first, nodes.strong) else None
        if match is None or match[1] not in exercises:
            continue
        exercise = exercises[match[1]]
        cell = _check_cell(paragraph)
        anchor = cell if cell is not None else paragraph
        if cell is not None:
            cell["classes"].append(CELL_CLASS)
        needs_live = live and exercise_data(exercise.label)["rule"] is None
        href = exercise_live_href(exercise.label, docname) if needs_live else None
        box = exercise_html(exercise, live_href=href)
        anchor.parent.insert(anchor.parent.index(anchor) + 1, nodes.raw("", box, format="html"))


def _page_assets(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    if doctree is None or MARKER not in context.get("body", ""):
        return
    app.add_js_file(SCRIPT, priority=700)
    app.add_css_file(CSS)


def setup(app: Any) -> dict[str, Any]:
    """Register the exercise boxes on the chapter pages and their script and stylesheet."""
    app.connect("doctree-resolved", _add_boxes)
    app.connect("html-page-context", _page_assets)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
