"""Tests for labcore.quizzes.engines: chapter 15's quiz takes its answers from labcore and hints at each known slip."""

from __future__ import annotations

from labcore.quizzes import QUIZZES, MultipleChoice, Numeric, engines_quiz
from labcore.slots import slot_pool_mb


def test_the_quiz_is_registered_and_every_choice_question_has_one_right_answer():
    quiz = engines_quiz()
    assert QUIZZES["engines_quiz"] is engines_quiz and quiz.name == "engines_quiz"
    for q in quiz.questions:
        if isinstance(q, MultipleChoice):
            right = [c.text for c in q.choices if c.correct]
            assert len(right) == 1 and q.grade(right[0])[0]


def test_the_numeric_answer_is_labcores_and_the_slips_get_hints():
    q = next(q for q in engines_quiz().questions if isinstance(q, Numeric))
    assert q.answer == slot_pool_mb(4, max_lora_rank=32, target_modules=["qkv_proj", "o_proj"]) == 208.0
    assert q.grade(208.0)[0]
    assert "own rank 16" in q.grade(104.0)[1] and "is one slot" in q.grade(52.0)[1] and "4 bytes" in q.grade(416.0)[1]
    assert "square formula" in q.grade(128.0)[1]  # 4 slots x one q,v adapter at rank 32 by the square formula
    assert q.grade(100.0) == (False, f"✗ Not it. {q.explanation}")
