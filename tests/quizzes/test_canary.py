"""Tests for labcore.quizzes.canary: chapter 11's quiz quotes the controller's own log lines and reads them right."""

from __future__ import annotations

import re

import pytest

from labcore.canary import CanarySplit, CanaryThresholds
from labcore.quizzes import canary_quiz
from labcore.sim.scenarios.canary import canary_log

from ._helpers import assert_chapter_shape, right


def test_the_quiz_has_the_chapter_shape():
    assert_chapter_shape(canary_quiz())


def test_a_user_keeps_one_version_across_requests_and_a_wider_canary():
    split = CanarySplit(tenant="support-bot", stable="1.10.0", candidate="2.0.0", fraction=0.05)
    users = [f"user-{i}" for i in range(2_000)]
    on = [u for u in users if split.in_canary(u)]
    assert on and all(split.version_for(u) == "2.0.0" for u in on for _ in range(3))
    assert all(split.with_fraction(0.25).in_canary(u) for u in on)
    assert right(canary_quiz().questions[0]).text == "2.0.0, every time"


def _numbers(text: str) -> tuple[float, float, float]:
    found = re.search(r"\(([+-][\d.]+) ± ([\d.]+) points, allowed \+([\d.]+)\)", text)
    assert found, text
    return tuple(float(x) for x in found.groups())  # type: ignore[return-value]


def test_the_held_line_is_the_controllers_last_word_and_its_limit_lies_between_the_two_ends():
    q = canary_quiz().questions[1]
    log = canary_log(candidate_error_pct=1.5, requests=20_000)
    assert {d.action for d in log} == {"hold"}
    quoted = re.search(r"error rate .*?allowed \+[\d.]+\)", q.question)
    assert quoted and quoted[0] in log[-1].reason  # the line is the controller's own
    increase, margin, allowed = _numbers(q.question)
    assert allowed == 100 * CanaryThresholds().max_error_rate_increase
    assert increase - margin <= allowed < increase + margin  # neither abort nor promote: hold
    assert right(q).text.startswith("Hold")


def test_the_flaky_abort_has_its_optimistic_end_above_the_limit():
    quiz = canary_quiz()
    q = quiz.questions[2]
    last = canary_log(candidate_error_pct=3.0)[-1]
    assert last.action == "abort" and last.fraction_before == 0.05
    increase, margin, allowed = _numbers(last.reason)
    assert f"({increase:+.2f} ± {margin:.2f} points" in q.question
    assert q.answer == pytest.approx(increase - margin) and q.answer > allowed
    assert "pessimistic" in quiz.grade(2, round(increase + margin, 2))[1]
