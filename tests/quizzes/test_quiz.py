"""Tests for labcore.quizzes._quiz: the quiz records, their validation, grading and the jupyterquiz JSON."""

from __future__ import annotations

import pytest

from labcore.quizzes import Choice, MultipleChoice, Numeric, Quiz


def _mc(correct=(True, False)) -> MultipleChoice:
    return MultipleChoice("Which?", tuple(Choice(f"c{i}", ok, f"because {i}") for i, ok in enumerate(correct)))


def test_multiple_choice_needs_exactly_one_correct_choice_and_says_which_were_marked():
    with pytest.raises(ValueError, match=r"exactly one choice must be correct, got \['c0', 'c1'\]"):
        _mc((True, True))
    with pytest.raises(ValueError, match=r"exactly one choice must be correct, got \[\]"):
        _mc((False, False))
    with pytest.raises(ValueError, match="at least two choices"):
        MultipleChoice("Which?", (Choice("a", True, "yes"),))


def test_choice_feedback_and_texts_are_required():
    with pytest.raises(ValueError, match="feedback"):
        Choice("a", True, "")
    with pytest.raises(ValueError, match="correct must be True or False, got 1"):
        Choice("a", 1, "x")  # type: ignore[arg-type]


def test_multiple_choice_grades_by_text_and_refuses_an_unknown_choice():
    q = _mc()
    assert q.grade("c0") == (True, "because 0") and q.grade("c1") == (False, "because 1")
    with pytest.raises(KeyError, match="'c9' is not a choice"):
        q.grade("c9")


def test_numeric_grades_answer_mistakes_and_anything_else():
    q = Numeric("Size?", answer=13.0, unit="MiB", explanation="2 r d L bytes.", mistakes=((6.5, "forgets A or B."),))
    assert q.grade(13.0) == (True, "✓ Correct: 2 r d L bytes.")
    assert q.grade(13.05)[0] and not q.grade(13.2)[0]  # within 0.5%, not beyond
    assert q.grade(6.5) == (False, "✗ 6.5 MiB forgets A or B.")
    assert q.grade(99.0) == (False, "✗ Not it. 2 r d L bytes.")


def test_a_mistake_inside_the_answers_tolerance_is_refused():
    with pytest.raises(ValueError, match="mistake value 13.01 is within tolerance"):
        Numeric("Size?", answer=13.0, unit="MiB", explanation="x", mistakes=((13.01, "close"),))


def test_jupyterquiz_json_carries_the_same_verdicts_as_grade():
    q = Numeric("Load?", answer=2.0, unit="ms", explanation="16 / 8.", mistakes=((0.5, "inverts."),))
    data = q.to_jupyterquiz()
    correct = [a for a in data["answers"] if a.get("correct")]
    assert len(correct) == 1 and correct[0]["range"][0] <= 2.0 < correct[0]["range"][1]
    wrong = next(a for a in data["answers"] if a.get("range") and not a["correct"])
    assert wrong["range"][0] <= 0.5 < wrong["range"][1] and wrong["feedback"] == "✗ 0.5 ms inverts."
    assert data["answers"][-1] == {"type": "default", "feedback": "✗ Not it. 16 / 8."}
    mc = _mc().to_jupyterquiz()
    assert [a["correct"] for a in mc["answers"]] == [True, False] and mc["type"] == "multiple_choice"


def test_question_text_is_escaped_for_the_page():
    q = MultipleChoice("Is <b> bold?", (Choice("a < b", True, "yes & no"), Choice("x", False, "n")))
    data = q.to_jupyterquiz()
    assert data["question"] == "Is &lt;b&gt; bold?" and data["answers"][0]["feedback"] == "yes &amp; no"


def test_quiz_validates_its_name_and_questions():
    with pytest.raises(ValueError, match="identifier"):
        Quiz("not a name", "T", (_mc(),))
    with pytest.raises(ValueError, match="no questions"):
        Quiz("q", "T", ())
    with pytest.raises(ValueError, match="MultipleChoice or Numeric"):
        Quiz("q", "T", ("what?",))  # type: ignore[arg-type]
