"""Tests for labcore.quizzes' registry: every quiz in QUIZZES builds, grades as the page will, and is unambiguous.

What the browser test (tests/browser/test_quizzes.py) relies on is checked here, for every quiz, without a
browser: each question's text is unique across all quizzes (the page test finds a question by its text);
exactly one choice of a multiple-choice question is correct and every wrong one says why, in its own words;
a numeric question accepts its answer (and the answer rounded as the question asks), gives each known
mistake its own hint, and answers an unrelated value (the page test types ``answer * 7 + 13``) with the
explanation. ``show()`` is rendered under a real IPython shell (without one, ``display`` only prints a
repr and there is nothing to compare) and must give the same HTML and JavaScript twice, with the quiz's
questions in it and no address outside the page but jupyterquiz's own MathJax fallback.
"""

from __future__ import annotations

import builtins
import html
import json
import math
import random
import re
import sys

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from labcore.quizzes import QUIZZES, MultipleChoice, Numeric, Quiz

BUILT = {name: factory() for name, factory in QUIZZES.items()}
QUESTIONS = [(name, i, q) for name, quiz in BUILT.items() for i, q in enumerate(quiz.questions)]
ids = [f"{name}[{i}]" for name, i, _ in QUESTIONS]
MULTIPLE_CHOICE = [(n, i, q) for n, i, q in QUESTIONS if isinstance(q, MultipleChoice)]
NUMERIC = [(n, i, q) for n, i, q in QUESTIONS if isinstance(q, Numeric)]


@pytest.mark.parametrize("name", sorted(QUIZZES))
def test_every_quiz_builds_under_its_own_name_with_both_kinds_of_question(name):
    quiz = BUILT[name]
    assert isinstance(quiz, Quiz) and quiz.name == name == QUIZZES[name].__name__
    assert quiz.title.startswith("Chapter ")
    kinds = {type(q) for q in quiz.questions}
    assert kinds == {MultipleChoice, Numeric}, f"{name}: needs at least one question of each kind, has {kinds}"


def test_every_question_text_is_unique_across_quizzes_as_written_and_as_drawn():
    written = [q.question for _, _, q in QUESTIONS]
    drawn = [html.unescape(q.to_jupyterquiz()["question"]) for _, _, q in QUESTIONS]  # what the page shows
    for texts in (written, drawn):
        repeated = sorted({t for t in texts if texts.count(t) > 1})
        assert repeated == [], f"question texts used twice: {repeated}"


@pytest.mark.parametrize(("name", "i", "q"), QUESTIONS, ids=ids)
def test_question_texts_are_plain_text(name, i, q):
    texts = [q.question, *([c.text for c in q.choices] if isinstance(q, MultipleChoice) else [q.unit])]
    for text in texts:
        # escaped on the page, so "<=" is fine; tags, Markdown and MyST roles would show raw
        assert not re.search(r"<[A-Za-z/]|`|\*\*|\{glue|\$", text), f"{name}[{i}]: markup in {text!r}"
        assert text == text.strip() and "  " not in text, f"{name}[{i}]: stray spaces in {text!r}"


@pytest.mark.parametrize(("name", "i", "q"), MULTIPLE_CHOICE, ids=[f"{n}[{i}]" for n, i, _ in MULTIPLE_CHOICE])
def test_multiple_choice_marks_exactly_the_correct_choice_and_explains_every_wrong_one(name, i, q):
    quiz = BUILT[name]
    verdicts = {c.text: quiz.grade(i, c.text) for c in q.choices}
    assert [t for t, (ok, _) in verdicts.items() if ok] == [next(c.text for c in q.choices if c.correct)]
    wrong = [fb for ok, fb in verdicts.values() if not ok]
    assert len(wrong) >= 2, f"{name}[{i}]: give at least two wrong choices"
    assert len(set(wrong)) == len(wrong), f"{name}[{i}]: two wrong choices share one feedback"
    assert all(len(fb) > 30 and not fb.startswith("Right") for fb in wrong), wrong
    right = next(fb for ok, fb in verdicts.values() if ok)
    assert right not in wrong


@pytest.mark.parametrize(("name", "i", "q"), NUMERIC, ids=[f"{n}[{i}]" for n, i, _ in NUMERIC])
def test_numeric_accepts_the_answer_and_gives_each_mistake_its_own_hint(name, i, q):
    quiz = BUILT[name]
    assert math.isfinite(q.answer) and all(math.isfinite(v) for v, _ in q.mistakes)
    assert quiz.grade(i, q.answer) == (True, f"✓ Correct: {q.explanation}")
    assert q.mistakes, f"{name}[{i}]: list the values common mistakes produce"
    hints = [h for _, h in q.mistakes]
    assert len(set(hints)) == len(hints), f"{name}[{i}]: two mistakes share one hint"
    assert len({v for v, _ in q.mistakes}) == len(q.mistakes), f"{name}[{i}]: a mistake value is listed twice"
    for value, hint in q.mistakes:
        assert quiz.grade(i, value) == (False, f"✗ {value:,g} {q.unit} {hint}"), (value, hint)
    unrelated = q.answer * 7 + 13  # what the browser test types as "anything else"
    assert quiz.grade(i, unrelated) == (False, f"✗ Not it. {q.explanation}")


@pytest.mark.parametrize(("name", "i", "q"), NUMERIC, ids=[f"{n}[{i}]" for n, i, _ in NUMERIC])
def test_numeric_accepts_the_answer_rounded_as_the_question_asks(name, i, q):
    asked = re.search(r"\b(one|two|three) decimals?\b", q.question)
    if asked:
        digits = ("one", "two", "three").index(asked[1]) + 1
    elif float(q.answer).is_integer():
        digits = 0
    else:
        pytest.skip("the question asks for no rounding; the tolerance covers the reading")
    assert BUILT[name].grade(i, round(q.answer, digits))[0], f"{name}[{i}]: {round(q.answer, digits)} is refused"


@pytest.fixture(scope="module")
def shell():
    """An IPython shell, so that ``display`` publishes rich outputs that ``capture_output`` can record."""
    if InteractiveShell.initialized():
        yield InteractiveShell.instance()
        return
    saved_builtins, saved_ps1 = set(vars(builtins)), getattr(sys, "ps1", None)
    yield InteractiveShell.instance()
    InteractiveShell.clear_instance()
    for name in set(vars(builtins)) - saved_builtins:  # display, __IPYTHON__: other tests must not see a shell
        delattr(builtins, name)
    if saved_ps1 is None:
        vars(sys).pop("ps1", None)
    else:
        sys.ps1 = saved_ps1


@pytest.mark.parametrize("name", sorted(QUIZZES))
def test_show_draws_the_same_quiz_every_time_and_loads_nothing(shell, name):
    quiz = BUILT[name]
    random.seed(7)
    expected_next = random.random()
    random.seed(7)
    renders = []
    for _ in range(2):
        with capture_output() as captured:
            quiz.show()
        renders.append([dict(o.data) for o in captured.outputs])
    assert random.random() == expected_next  # the caller's random stream is untouched
    first, second = renders
    assert first == second
    kinds = [k for out in first for k in out if k != "text/plain"]
    assert kinds == ["text/html", "application/javascript"], kinds
    page = first[0]["text/html"] + first[1]["application/javascript"]
    assert json.dumps(quiz.to_jupyterquiz()) in page  # every question, answer and feedback, as graded
    assert "src=" not in first[0]["text/html"], "the quiz's HTML must load nothing"
    # the quiz loads nothing: jupyterquiz's MathJax fallback is blanked, and no other address is named
    assert re.findall(r"https?://\S{0,60}", page) == []
    assert first[1]["application/javascript"].startswith("(function (MathJax) {")  # the page's MathJax untouched
