"""Every chapter's quiz answers on the static page as labcore grades it; no solution shows before it is opened.

Quizzes (``labcore.quizzes``) are drawn by jupyterquiz's static JavaScript. For each chapter page, every
question of the quiz its notebook shows must be on the page; each multiple-choice button is clicked and
the page's verdict (the feedback text and its correct/incorrect class) must equal ``Quiz.grade`` computed
here; each numeric question gets the right answer, every known mistake and an unrelated value, typed and
submitted with Enter, and the feedback must again equal ``Quiz.grade``.

Solutions and self-check answers are ``hide-cell`` cells: the page must hold exactly as many collapsed
``<details>`` as the notebook has such cells, none open and none of their text visible at load; opening
one shows it.

Each page is loaded once (:func:`visit`): the folded cells are read before anything is clicked, then
every answer is given, then the first folded cell is opened; both tests read that one visit.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from labcore.quizzes import QUIZZES, MultipleChoice
from tests.browser import browser_site as site

QUIZ_CALL = re.compile(r"\b(\w+_quiz)\(\)\.show\(\)")


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"])


def quizzes_of(path: Path) -> list[str]:
    """Return the names of the quizzes a notebook shows (``<name>().show()`` in a code cell)."""
    return [m for c in _cells(path) if c["cell_type"] == "code" for m in QUIZ_CALL.findall(_source(c))]


def hidden_cells_of(path: Path) -> int:
    """Return how many cells of a notebook are tagged ``hide-cell`` (solutions, self-check answers)."""
    return sum("hide-cell" in c["metadata"].get("tags", []) for c in _cells(path))


def test_every_chapter_shows_a_quiz_that_labcore_defines() -> None:
    missing = [p.name for p in site.chapter_sources() if not quizzes_of(p)]
    assert missing == [], f"chapters without a quiz: {missing}"
    unknown = sorted({q for p in site.chapter_sources() for q in quizzes_of(p)} - set(QUIZZES))
    assert unknown == [], f"quizzes shown by chapters but not in labcore.quizzes.QUIZZES: {unknown}"


_QUESTIONS_JS = """() => [...document.querySelectorAll('.Quiz')].map(w => ({
  text: (w.querySelector('[id^=quizQn]') || {}).textContent || '',
  buttons: [...w.querySelectorAll('.MCButton')].map(b => b.textContent),
  numeric: !!w.querySelector('input.Input-text'),
}))"""


def _feedback(wrapper) -> tuple[bool, str]:  # noqa: ANN001
    fb = wrapper.locator(".Feedback")
    classes = (fb.get_attribute("class") or "").split()
    return "correct" in classes, fb.inner_text().strip()


_FOLDED_JS = """() => [...document.querySelectorAll('div.cell.tag_hide-cell > details')].map(d => ({
    open: d.open,
    shown: [...d.querySelectorAll('.cell_input, .cell_output')].some(e => e.checkVisibility()),
}))"""


@dataclass
class QuizVisit:
    """One load of a chapter page: the folded cells as the reader meets them, then every quiz answer given."""

    folded: list[dict]  # per hide-cell ``<details>`` at load: open, any of its content visible
    opens: bool | None  # whether opening the first folded cell shows its input (None: no folded cell)
    same_questions: bool  # the page shows exactly labcore's questions (the answers are given only then)
    problems: list[str]  # verdicts of the page that differ from labcore's grade
    log: object  # conftest.PageLog


_VISITS: dict[str, QuizVisit] = {}


def visit(open_page, rel: str) -> QuizVisit:  # noqa: ANN001
    """Load ``rel`` once: record its folded cells, answer every quiz question, then open the first folded cell."""
    if rel in _VISITS:
        return _VISITS[rel]
    source = site.BOOK / (Path(rel).stem + ".ipynb")
    quizzes = [QUIZZES[name]() for name in quizzes_of(source) if name in QUIZZES]
    if not quizzes:
        pytest.fail(f"{source.name} shows no quiz from labcore.quizzes", pytrace=False)
    page, log = open_page(rel)
    page.wait_for_selector(".Quiz")
    folded = page.evaluate(_FOLDED_JS)  # before anything is clicked
    expected = {
        html.unescape(q.to_jupyterquiz()["question"]): (quiz, i)
        for quiz in quizzes
        for i, q in enumerate(quiz.questions)
    }
    drawn = page.evaluate(_QUESTIONS_JS)
    same_questions = sorted(d["text"] for d in drawn) == sorted(expected)

    wrappers = page.locator(".Quiz")
    problems = []
    for k, d in enumerate(drawn if same_questions else []):
        quiz, i = expected[d["text"]]
        question = quiz.questions[i]
        wrapper = wrappers.nth(k)
        if isinstance(question, MultipleChoice):
            if sorted(d["buttons"]) != sorted(c.text for c in question.choices):
                problems.append(f"{d['text'][:50]!r}: buttons {d['buttons']} are not labcore's choices")
                continue
            for label in d["buttons"]:
                wrapper.locator(".MCButton", has_text=label).first.click()
                got = _feedback(wrapper)
                want = question.grade(label)
                if got != want:
                    problems.append(f"{d['text'][:50]!r} / {label[:30]!r}: page {got}, labcore {want}")
        else:
            if not d["numeric"]:
                problems.append(f"{d['text'][:50]!r}: no number box for a numeric question")
                continue
            box = wrapper.locator("input.Input-text")
            for value in (question.answer, *(v for v, _ in question.mistakes), question.answer * 7 + 13):
                box.fill(repr(value))
                box.press("Enter")
                got = _feedback(wrapper)
                want = question.grade(value)
                if got != want:
                    problems.append(f"{d['text'][:50]!r} / {value!r}: page {got}, labcore {want}")
    opens = None
    details = page.locator("div.cell.tag_hide-cell > details")
    if details.count():
        details.first.locator("summary").click()
        opens = details.first.locator(".cell_input").first.is_visible()
    _VISITS[rel] = QuizVisit(folded=folded, opens=opens, same_questions=same_questions, problems=problems, log=log)
    return _VISITS[rel]


@pytest.mark.parametrize("rel", site.chapter_pages())
def test_every_quiz_answer_on_the_page_is_labcores(built_site, open_page, rel: str) -> None:  # noqa: ANN001
    seen = visit(open_page, rel)
    assert seen.same_questions, f"{rel}: questions on the page differ from labcore's"
    assert seen.problems == [], f"{rel}: quiz verdicts differ from labcore.quizzes:\n" + "\n".join(seen.problems)
    assert not seen.log.blocked and not seen.log.unexpected_errors(), (seen.log.blocked, seen.log.unexpected_errors())


@pytest.mark.parametrize("rel", site.chapter_pages())
def test_solutions_stay_collapsed_until_opened(built_site, open_page, rel: str) -> None:  # noqa: ANN001
    hidden = hidden_cells_of(site.BOOK / (Path(rel).stem + ".ipynb"))
    seen = visit(open_page, rel)
    assert len(seen.folded) == hidden, (
        f"{rel}: {len(seen.folded)} collapsed cells on the page, {hidden} in the notebook"
    )
    opened = [i for i, s in enumerate(seen.folded) if s["open"] or s["shown"]]
    assert opened == [], f"{rel}: solution cells visible before the reader opens them: {opened}"
    if hidden:
        assert seen.opens, f"{rel}: opening a solution does not show it"
