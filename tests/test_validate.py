"""Tests for labcore._validate: every helper returns a valid value and refuses a bad one with one message shape."""

from __future__ import annotations

import math

import pytest

from labcore import _validate as v
from labcore.errors import InvalidAdapterError
from labcore.quizzes._quiz import MultipleChoice, Numeric


@pytest.mark.parametrize(
    ("check", "bad", "message"),
    [
        (lambda x: v.number("budget_mb", x), 0, "budget_mb must be a finite number > 0, got 0"),
        (lambda x: v.number("budget_mb", x), math.inf, "budget_mb must be a finite number > 0, got inf"),
        (lambda x: v.number("budget_mb", x), True, "budget_mb must be a finite number > 0, got True"),
        (lambda x: v.count("tenants", x), 0, "tenants must be a positive int, got 0"),
        (lambda x: v.count("tenants", x), 1.0, "tenants must be a positive int, got 1.0"),
        (lambda x: v.count("warmup", x, minimum=0), -1, "warmup must be an int >= 0, got -1"),
        (lambda x: v.between("p", x, 0, 100), 100.5, r"p must be a finite number in \[0, 100\], got 100.5"),
        (lambda x: v.fraction("share", x), 1.5, r"share must be a fraction in \[0, 1\], got 1.5"),
        (lambda x: v.fraction("share", x, high_inclusive=False), 1, r"share must be a fraction in \[0, 1\), got 1"),
        (lambda x: v.text("base_model", x), "  ", "base_model must be a non-empty string, got '  '"),
        (lambda x: v.text("base_model", x, blank_ok=True), "", "base_model must be a non-empty string, got ''"),
        (lambda x: v.flag("merged", x), 1, "merged must be True or False, got 1"),
        (lambda x: v.number("intercept", x, minimum=None), math.nan, "intercept must be a finite number, got nan"),
        (lambda x: v.count("seed", x, minimum=None), 1.0, "seed must be an int, got 1.0"),
        (lambda x: v.count("tenant", x, maximum=8), 9, r"tenant must be an int in \[1, 8\], got 9"),
        (lambda x: v.count("tenant", x, maximum=8), 0, r"tenant must be an int in \[1, 8\], got 0"),
        (
            lambda x: v.between("gb", x, 0, 10, low_inclusive=False, high_inclusive=False),
            10,
            r"gb must be a finite number in \(0, 10\), got 10",
        ),
        (lambda x: v.identifier("panel name", x), "a b", "panel name must be a Python identifier, got 'a b'"),
        (lambda x: v.identifier("panel name", x), 3, "panel name must be a Python identifier, got 3"),
        (
            lambda x: v.items("targets", x),
            "q",
            r"targets must be a list or tuple, got the string 'q' \(write \('q',\)\)",
        ),
        (lambda x: v.items("targets", x), 3, "targets must be a list or tuple, got int: 3"),
        (
            lambda x: v.distinct("pins", x),
            ["a", "b", "a"],
            r"pins must be distinct, got \['a', 'b', 'a'\] \('a' repeats\)",
        ),
        (lambda x: v.distinct("pins", x, nonempty=True), [], r"pins must be one or more distinct values, got \[\]"),
        (
            lambda x: v.one_each("adapters", x, 3, "arrival"),
            ["a"],
            r"adapters must be 3 long \(one per arrival\), got 1",
        ),
        (lambda x: v.one_each("adapters", x, 3, "arrival"), [], r"adapters must be 3 long \(one per arrival\), got 0"),
        (
            lambda x: v.function("grade", x, prefix="grade_"),
            max,
            "grade must be a function named grade_<thing>, got <built-in function max>",
        ),
        (
            lambda x: v.function("quiz", x, suffix="_quiz"),
            "cache_quiz",
            "quiz must be a function named <thing>_quiz, got 'cache_quiz'",
        ),
    ],
)
def test_a_bad_value_is_refused_with_a_message_naming_it(check, bad, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        check(bad)


def test_good_values_come_back_and_errors_can_be_specific():
    assert v.number("x", 2) == 2.0 and isinstance(v.number("x", 2), float)
    assert v.count("x", 3) == 3 and v.between("p", 99, 0, 100) == 99.0 and v.fraction("f", 0) == 0.0
    assert v.text("x", " a ") == " a " and v.text("x", " ", blank_ok=True) == " " and v.flag("x", False) is False
    assert v.instance("x", 3, int) == 3 and v.instance("x", 3.0, (int, float)) == 3.0
    assert v.count("seed", -5, minimum=None) == -5 and v.count("tenant", 8, maximum=8) == 8
    assert v.number("x", -1.5, minimum=None) == -1.5 and v.between("gb", 5, 0, 10, low_inclusive=False) == 5.0
    assert v.function("x", v.count, prefix="co", suffix="nt") is v.count
    assert v.identifier("x", "cache_panel") == "cache_panel" and v.items("x", iter("ab")) == ("a", "b")
    assert v.distinct("x", [3, 1, 2]) == (3, 1, 2) and v.distinct("x", []) == ()
    assert v.one_each("x", iter("ab"), 2, "ref") == ("a", "b") and v.one_each("x", [], 2, "ref", empty_ok=True) == ()
    with pytest.raises(ValueError, match="^question must be a MultipleChoice or Numeric, got str: 'q'$"):
        v.instance("question", "q", (MultipleChoice, Numeric), error=ValueError)
    with pytest.raises(TypeError, match="^adapter must be an int, got str: 'a'$"):
        v.instance("adapter", "a", int)
    with pytest.raises(InvalidAdapterError, match="rank must be a positive int, got 0"):
        v.count("rank", 0, error=InvalidAdapterError)
