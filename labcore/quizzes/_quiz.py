"""Define a self-check quiz: questions whose answers labcore computes, shown by ``jupyterquiz`` with no kernel.

A :class:`Quiz` is data: multiple-choice questions (:class:`MultipleChoice`, each :class:`Choice` with
the feedback a reader gets for picking it) and numeric ones (:class:`Numeric`: the answer labcore
computes, a tolerance, and the values known mistakes produce, each with its hint). :meth:`Quiz.show`
hands the questions to ``jupyterquiz.display_quiz``, which writes them and its ~40 KB of JavaScript
into the cell's output: the quiz then answers on the static page, in a deck and in JupyterLite, and
loads nothing. The questions answered right are kept in the reader's browser
(:func:`labcore.progress.quiz_hook`). :meth:`Quiz.grade` says in Python what the page will say, so the browser
tests can click every answer and compare.

>>> q = Numeric("A 16 MiB adapter over 8 MiB/ms takes how many ms?", answer=2.0, unit="ms",
...             mistakes=((0.5, "divides bandwidth by size."),), explanation="16 / 8 = 2 ms.")
>>> quiz = Quiz("demo", "Demo", (q,))
>>> quiz.grade(0, 2.0), quiz.grade(0, 0.5), quiz.grade(0, 7.0)
((True, '✓ Correct: 16 / 8 = 2 ms.'), (False, '✗ 0.5 ms divides bandwidth by size.'), (False, '✗ Not it. 16 / 8 = 2 ms.'))
"""

from __future__ import annotations

import html
import json
import random
import re
import string
import zlib
from dataclasses import dataclass
from typing import Any

from .._validate import distinct, flag, identifier, instance, number, text
from ..progress import quiz_hook

__all__ = ["Choice", "MultipleChoice", "Numeric", "Quiz", "QUIZ_COLORS"]

#: the remote script jupyterquiz's code may add (its MathJax 3 fallback, in two places), blanked in what we show
_REMOTE_SCRIPT = re.compile(r"script\.src = 'https?://[^']*';")

#: Name each answer box by its question (jupyterquiz leaves its number boxes unlabelled: a screen reader said "edit text").
_LABEL_INPUTS_JS = """(function (quizId) {
  var box = document.getElementById(quizId);
  if (!box) { return; }
  function label() {
    box.querySelectorAll("input").forEach(function (input) {
      if (input.hasAttribute("aria-label") || input.hasAttribute("aria-labelledby")) { return; }
      var wrap = input.closest(".Quiz"), question = wrap && wrap.querySelector("[id^=quizQn]");
      if (question) { input.setAttribute("aria-labelledby", question.id); }
      else { input.setAttribute("aria-label", "Your answer"); }
    });
  }
  label();
  if (window.MutationObserver) { new MutationObserver(label).observe(box, {childList: true, subtree: true}); }
})(%s);"""

#: The course palette (Okabe-Ito) for jupyterquiz's CSS variables: readable in light and dark pages.
QUIZ_COLORS = {
    "--jq-multiple-choice-bg": "#0b4f7c",
    "--jq-numeric-bg": "#0b4f7c",
    "--jq-mc-button-bg": "#fafafa",
    "--jq-correct-color": "#009E73",
    "--jq-incorrect-color": "#D55E00",
    "--jq-text-color": "#fafafa",
}


@dataclass(frozen=True, slots=True)
class Choice:
    """One answer of a multiple-choice question, and the feedback a reader gets for picking it."""

    text: str
    correct: bool
    feedback: str

    def __post_init__(self) -> None:
        text("choice text", self.text)
        flag(f"choice {self.text!r}: correct", self.correct)
        text(f"choice {self.text!r}: feedback", self.feedback)


@dataclass(frozen=True, slots=True)
class MultipleChoice:
    """A question with two or more choices, exactly one of them correct."""

    question: str
    choices: tuple[Choice, ...]

    def __post_init__(self) -> None:
        text("question", self.question)
        object.__setattr__(self, "choices", tuple(self.choices))
        for c in self.choices:
            instance("choice", c, Choice, error=ValueError)
        if len(self.choices) < 2:
            raise ValueError(f"{self.question!r}: give at least two choices, got {len(self.choices)}")
        if sum(c.correct for c in self.choices) != 1:
            raise ValueError(
                f"{self.question!r}: exactly one choice must be correct, got "
                f"{[c.text for c in self.choices if c.correct]}"
            )
        distinct(f"{self.question!r}: choice texts", [c.text for c in self.choices])

    def grade(self, answer: str) -> tuple[bool, str]:
        """Return (correct, feedback) for picking the choice whose text is ``answer``."""
        for c in self.choices:
            if c.text == answer:
                return c.correct, c.feedback
        raise KeyError(f"{answer!r} is not a choice of {self.question!r}; choices: {[c.text for c in self.choices]}")

    def to_jupyterquiz(self) -> dict[str, Any]:
        """Return the question in jupyterquiz's JSON format."""
        return {
            "question": html.escape(self.question),
            "type": "multiple_choice",
            "answers": [
                {"answer": html.escape(c.text), "correct": c.correct, "feedback": html.escape(c.feedback)}
                for c in self.choices
            ],
        }


@dataclass(frozen=True, slots=True)
class Numeric:
    """A question whose answer is a number: right within ``rel_tol``; known ``mistakes`` get their own hint.

    ``mistakes`` are ``(value, hint)`` pairs (the value a known slip produces, and what went wrong);
    ``explanation`` is shown with the correct answer and after any other wrong one.
    """

    question: str
    answer: float
    unit: str
    explanation: str
    mistakes: tuple[tuple[float, str], ...] = ()
    rel_tol: float = 0.005

    def __post_init__(self) -> None:
        text("question", self.question)
        number(f"{self.question!r}: answer", abs(self.answer), inclusive=True)
        text(f"{self.question!r}: unit", self.unit)
        text(f"{self.question!r}: explanation", self.explanation)
        number(f"{self.question!r}: rel_tol", self.rel_tol)
        object.__setattr__(self, "mistakes", tuple((float(v), str(h)) for v, h in self.mistakes))
        lo, hi = self.window(self.answer)
        for value, hint in self.mistakes:
            text(f"{self.question!r}: mistake hint", hint)
            m_lo, m_hi = self.window(value)
            if m_lo < hi and lo < m_hi:
                raise ValueError(
                    f"{self.question!r}: mistake value {value:g} is within tolerance of the answer {self.answer:g}"
                )

    def window(self, value: float) -> tuple[float, float]:
        """Return the half-open range ``[lo, hi)`` of submissions counted as ``value``."""
        tol = max(abs(value) * self.rel_tol, 1e-9)
        return value - tol, value + tol

    def grade(self, answer: float) -> tuple[bool, str]:
        """Return (correct, feedback) for the submission ``answer``, as the page computes it."""
        lo, hi = self.window(self.answer)
        if lo <= answer < hi:
            return True, f"✓ Correct: {self.explanation}"
        for value, hint in self.mistakes:
            m_lo, m_hi = self.window(value)
            if m_lo <= answer < m_hi:
                return False, f"✗ {value:,g} {self.unit} {hint}"
        return False, f"✗ Not it. {self.explanation}"

    def to_jupyterquiz(self) -> dict[str, Any]:
        """Return the question in jupyterquiz's JSON format (ranges for the answer and each mistake)."""
        lo, hi = self.window(self.answer)
        answers: list[dict[str, Any]] = [
            {"type": "range", "range": [lo, hi], "correct": True, "feedback": html.escape(self.grade(self.answer)[1])}
        ]
        for value, _ in self.mistakes:
            m_lo, m_hi = self.window(value)
            answers.append(
                {
                    "type": "range",
                    "range": [m_lo, m_hi],
                    "correct": False,
                    "feedback": html.escape(self.grade(value)[1]),
                }
            )
        answers.append({"type": "default", "feedback": html.escape(f"✗ Not it. {self.explanation}")})
        return {"question": html.escape(f"{self.question} ({self.unit})"), "type": "numeric", "answers": answers}


Question = MultipleChoice | Numeric


@dataclass(frozen=True, slots=True)
class Quiz:
    """A chapter's self-check quiz: a name (its key in ``labcore.quizzes.QUIZZES``), a title, its questions."""

    name: str
    title: str
    questions: tuple[Question, ...]

    def __post_init__(self) -> None:
        identifier("quiz name", self.name)
        text("quiz title", self.title)
        object.__setattr__(self, "questions", tuple(self.questions))
        if not self.questions:
            raise ValueError(f"quiz {self.name!r} has no questions")
        for q in self.questions:
            instance(f"quiz {self.name!r}: a question", q, (MultipleChoice, Numeric), error=ValueError)

    def grade(self, index: int, answer: Any) -> tuple[bool, str]:
        """Return (correct, feedback) for ``answer`` to question ``index``, exactly as the page shows it."""
        return self.questions[index].grade(answer)

    def to_jupyterquiz(self) -> list[dict[str, Any]]:
        """Return the questions in jupyterquiz's JSON format."""
        return [q.to_jupyterquiz() for q in self.questions]

    def show(self) -> None:
        """Display the quiz with jupyterquiz (static JavaScript, no network), with a stable container id.

        Built from jupyterquiz's own parts (its container, styles and script, as ``display_quiz`` builds
        them), with two changes to the script: it runs in a scope where ``MathJax`` is undefined, so it
        never touches the page's MathJax (a page still loading MathJax 3 made it throw, and its fallback
        would fetch MathJax from the internet: the questions hold no maths), and that fallback's address
        is blanked. The container id is drawn from a generator seeded by the quiz name, so the output is
        the same on every run (strict nbval) and the global ``random`` is untouched.
        """
        from IPython.display import HTML, Javascript, display  # optional: only in a kernel

        html_out, script = self.render()
        display(HTML(html_out))
        display(Javascript(script))

    def render(self) -> tuple[str, str]:
        """Return the quiz's HTML (container and styles) and JavaScript, as :meth:`show` displays them."""
        # optional: labcore depends on nothing; jupyterquiz is the book's (requirements.txt), not the library's
        from jupyterquiz.dynamic.loader import load_questions_script
        from jupyterquiz.dynamic.renderer import build_script, build_styles, render_div

        rng = random.Random(zlib.crc32(self.name.encode()))
        div_id = "".join(rng.choice(string.ascii_letters) for _ in range(12))
        prefix, static, url = load_questions_script(self.to_jupyterquiz(), div_id)
        div = render_div(div_id, False, True, False, 1_000_000, 600, 10, "left")  # answers shuffled in the page
        script, fallbacks = _REMOTE_SCRIPT.subn("script.src = '';", build_script(prefix, static, url, div_id, True))
        if fallbacks != 2:  # jupyterquiz 2.9.6.4 has two; any other count means its script changed: look again
            raise RuntimeError(f"jupyterquiz's script changed: expected two remote-script lines, found {fallbacks}")
        hook = quiz_hook(
            div_id, self.name, len(self.questions)
        )  # which questions were answered right, kept in the browser
        return (
            div + build_styles(div_id, dict(QUIZ_COLORS)),
            f"(function (MathJax) {{\n{script}\n}})(undefined);\n{_LABEL_INPUTS_JS % json.dumps(div_id)}\n{hook}",
        )

    def __repr__(self) -> str:
        return f"Quiz({self.name!r}, {len(self.questions)} questions)"
