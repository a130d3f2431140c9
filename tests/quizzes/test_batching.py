"""Tests for labcore.quizzes.batching: chapter 12's quiz says what the fitted kernel model says."""

from __future__ import annotations

import pytest

from labcore.batching import FLAT_OVERHEAD, PUNICA_FIG9_SINGLE_US, break_even_utilisation, fit_sgmv
from labcore.quizzes import batching_quiz

from ._helpers import assert_chapter_shape, right


def test_the_quiz_has_the_chapter_shape():
    assert_chapter_shape(batching_quiz())


def test_distinct_adapters_cost_and_requests_for_one_adapter_do_not():
    model = fit_sgmv()
    assert model.kernel_us(1, 64) == PUNICA_FIG9_SINGLE_US  # one adapter, any batch, any rank
    assert model.kernel_us(64, 16) > model.kernel_us(8, 16) > model.kernel_us(1, 64)
    assert right(batching_quiz().questions[0]).text == "64 requests over 64 distinct rank-16 adapters"


def test_the_honest_break_even_is_one_over_one_plus_the_fitted_overhead():
    quiz = batching_quiz()
    overhead = fit_sgmv().overhead_fraction(64, 64)
    assert quiz.questions[1].answer == pytest.approx(100 / (1 + overhead))
    assert quiz.questions[1].answer < 100 * break_even_utilisation(FLAT_OVERHEAD)
    assert f"{100 * overhead:.1f}% overhead" in quiz.questions[1].question
    assert "flat" in quiz.grade(1, 100 * break_even_utilisation(FLAT_OVERHEAD))[1]


def test_the_assumed_number_is_the_one_adapter_batch_cost():
    q = batching_quiz().questions[2]
    assert right(q).text == f"The {FLAT_OVERHEAD:.0%} cost of a batch whose requests all share one adapter"
    assert fit_sgmv().overhead_fraction(1, 16) == FLAT_OVERHEAD  # the anchor the model scales from
