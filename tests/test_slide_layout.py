"""Long prose is split into slides that fit, never inside a code fence, with the notes on the section's first slide."""

from __future__ import annotations

import json
import re

from coursebuild.slide_layout import (
    SLIDE_PX,
    cell_px,
    markdown_px,
    quiz_questions,
    slide_type,
    split_markdown,
    split_quizzes,
    split_tall_prose,
)
from labcore.quizzes import QUIZZES, Quiz


def _para(words: int) -> str:
    return " ".join(["word"] * words)


def test_every_part_fits_and_together_they_are_the_text() -> None:
    text = "\n\n".join(_para(120) for _ in range(8))
    parts = split_markdown(text)
    assert len(parts) > 1 and all(markdown_px(p) <= SLIDE_PX for p in parts)
    assert "\n\n".join(parts) == text


def test_a_code_fence_is_never_cut() -> None:
    fence = "```python\n" + "\n\n".join(f"x{i} = {i}" for i in range(60)) + "\n```"
    parts = split_markdown(_para(200) + "\n\n" + fence, budget=300)
    assert any(p.startswith("```python") and p.endswith("```") for p in parts)
    assert all(p.count("```") in (0, 2) for p in parts)


def test_the_notes_stay_with_the_first_part_and_the_rest_are_subslides() -> None:
    long = {
        "cell_type": "markdown",
        "id": "c",
        "source": "## A\n\n" + "\n\n".join(_para(150) for _ in range(6)),
        "metadata": {"slideshow": {"slide_type": "slide"}},
    }
    notes = {
        "cell_type": "markdown",
        "id": "n",
        "source": "Say it.",
        "metadata": {"slideshow": {"slide_type": "notes"}},
    }
    out = split_tall_prose([long, notes])
    kinds = [c["metadata"]["slideshow"]["slide_type"] for c in out]
    assert kinds[:2] == ["slide", "notes"] and set(kinds[2:]) == {"subslide"} and len(out) > 2
    assert out[0]["source"].startswith("## A") and len({c["id"] for c in out}) == len(out)


def _quiz_cell(quiz, kind: str = "subslide") -> dict:  # noqa: ANN001
    """A notebook cell as ``quiz.show()`` leaves it: the container and styles, then the script."""
    html, script = quiz.render()
    return {
        "cell_type": "code",
        "id": "quiz",
        "source": f"{quiz.name}().show()",
        "metadata": {"slideshow": {"slide_type": kind}},
        "outputs": [
            {"output_type": "display_data", "data": {"text/html": html}, "metadata": {}},
            {"output_type": "display_data", "data": {"application/javascript": script}, "metadata": {}},
        ],
    }


def test_a_quiz_shows_one_question_to_a_slide_each_fitting_it() -> None:
    """Every quiz of the course splits into one slide per question; each part has its own container (in its HTML and
    its script), declares the whole quiz (so jupyterquiz numbers each question as the page does and the progress kept
    is the right question's), hides every question but its own, says which it is, and fits a slide."""

    for make in QUIZZES.values():
        quiz = make()
        cell = _quiz_cell(quiz)
        notes = {
            "cell_type": "markdown",
            "id": "n",
            "source": "Vote first.",
            "metadata": {"slideshow": {"slide_type": "notes"}},
        }
        out = split_quizzes([cell, notes])
        parts = [c for c in out if c is not notes]
        n = len(quiz.questions)
        assert len(parts) == n and out[1] is notes, f"{quiz.name}: {len(parts)} parts for {n} questions"
        assert [slide_type(c) for c in parts] == ["subslide"] * n and parts[0]["source"] == cell["source"]
        assert all(c["metadata"]["transient"]["remove_source"] for c in parts[1:])
        ids = [quiz_questions(c)[0] for c in parts]
        assert len(set(ids)) == n and len({c["id"] for c in parts}) == n, f"{quiz.name}: {ids}"
        for k, (part, div_id) in enumerate(zip(parts, ids, strict=True)):
            html, script = (part["outputs"][i]["data"][m] for i, m in ((0, "text/html"), (1, "application/javascript")))
            assert quiz_questions(part)[1] == quiz.to_jupyterquiz(), f"{quiz.name} part {k + 1}: not the whole quiz"
            assert f'<div id="{div_id}"' in html and json.dumps(div_id) in script
            assert f'.Quiz[data-qnum]:not([data-qnum="{k}"]) {{ display: none; }}' in html
            assert re.search(rf">Question {k + 1} of {n}<", html), f"{quiz.name} part {k + 1}: {html[:200]!r}"
            assert cell_px(part) <= SLIDE_PX, f"{quiz.name} question {k + 1}: {cell_px(part)} px on a slide"
        assert cell_px(cell) > max(cell_px(p) for p in parts)


def test_a_one_question_quiz_and_other_cells_are_left_alone() -> None:
    """A quiz of one question stays one cell, as does every cell that shows no quiz."""

    quiz = next(make() for make in QUIZZES.values())
    single = Quiz(quiz.name, quiz.title, quiz.questions[:1])
    cells = [_quiz_cell(single), {"cell_type": "markdown", "id": "m", "source": "text", "metadata": {}}]
    assert split_quizzes(cells) == cells
