"""The two tests every grader of labcore.checks passes, run by each test module that imports them over its own tables.

A module lists ``RIGHT`` (grader, the answer, keyword arguments) and ``WRONG`` (grader, a known-wrong answer,
a phrase its hint must contain); ``conftest.py`` parametrizes these two bodies with them.
"""

from __future__ import annotations


def test_checker_accepts_the_answer(grade, answer, kwargs) -> None:
    verdict = grade(answer, **kwargs)
    assert verdict.ok and verdict.message.startswith("✓")


def test_checker_names_the_known_mistake(grade, answer, hint) -> None:
    verdict = grade(answer)
    assert not verdict.ok and hint in verdict.message
