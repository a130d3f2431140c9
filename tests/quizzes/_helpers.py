"""What the per-chapter quiz tests share: the shape every chapter quiz has, and its correct choice."""

from __future__ import annotations

from labcore.quizzes import Choice, MultipleChoice, Numeric, Quiz


def right(question: MultipleChoice) -> Choice:
    """Return the one correct choice of ``question``."""
    (choice,) = [c for c in question.choices if c.correct]
    return choice


def assert_chapter_shape(quiz: Quiz) -> None:
    """A chapter quiz has three questions, at least one of each kind."""
    assert len(quiz.questions) == 3, quiz
    assert any(isinstance(q, Numeric) for q in quiz.questions)
    assert any(isinstance(q, MultipleChoice) for q in quiz.questions)
