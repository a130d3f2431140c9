"""Tests for labcore.checks.capstone: the design check says what holds, what fails, and the hint for each likely design."""

from __future__ import annotations

import pytest

from labcore.checks.capstone import DESIGN_TEMPLATE, EXERCISES, RIGHT_DESIGN, check_design, grade_design


def test_the_right_design_is_accepted_with_its_numbers():
    verdict = grade_design(RIGHT_DESIGN)
    assert verdict.ok and "2 GPUs (1 merged, 1 shared)" in verdict.message and "p99 42 ms" in verdict.message


@pytest.mark.parametrize(
    ("change", "first", "hint"),
    [
        ({"flagship": "dynamic", "replicas": 2}, "fails on load", "merged on a GPU of its own"),
        ({"flagship": "dynamic", "replicas": 3}, "fails on budget", "merged on a GPU of its own"),
        ({"quiet": "merged", "replicas": 0}, "fails on budget", "Serve the quiet class dynamically"),
        ({"sequences": 56}, "fails on memory (and p99)", "keep at most 55 sequences"),
        ({"sequences": 60}, "fails on memory", "keep at most 55 sequences"),
        ({"sequences": 8}, "fails on load", "Little's law"),
        ({"replicas": 0}, "fails on load", "Add shared replicas"),
        ({"replicas": 3}, "fails on budget", "no more shared replicas than"),
    ],
)
def test_each_likely_design_gets_its_hint(change, first, hint):
    verdict = grade_design(RIGHT_DESIGN | change)
    assert not verdict.ok and first in verdict.message.splitlines()[0] and hint in verdict.message, verdict.message


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        (None, "Not answered yet"),
        (DESIGN_TEMPLATE, "still None"),
        ({"sequences": 24}, "not a design"),
        ([1, 2], "not a design"),
        (RIGHT_DESIGN | {"quiet": "half"}, "must be one of"),
    ],
)
def test_unfinished_or_malformed_answers(answer, says):
    verdict = grade_design(answer)
    assert not verdict.ok and says in verdict.message


def test_the_exercise_record_and_the_printer(capsys):
    (exercise,) = EXERCISES
    assert (exercise.label, exercise.kind, exercise.tool) == ("16.1", "predict", "evaluate_design")
    check_design(RIGHT_DESIGN)
    assert capsys.readouterr().out.startswith("✓ The design holds")
