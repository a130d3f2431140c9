"""Each plan's handout words its exercises for paper, and its answer key gives labcore's answers and hints."""

from __future__ import annotations

import re

import pytest

from coursebuild import handouts
from coursebuild.session_plans import load_plans
from labcore.checks import EXERCISES

PLANS = load_plans()


@pytest.mark.parametrize("key", sorted(PLANS))
def test_the_handout_words_every_exercise_for_paper(key: str) -> None:
    plan = PLANS[key]
    text = handouts.handout_markdown(plan)
    assert [m[1] for m in re.finditer(r"^\*\*(\d+\.\d+)\.\*\*", text, re.M)] == list(plan.exercises)
    for cell_word in ("`prediction`", "`None` with", "run the cell", "panel above", "{glue"):
        assert cell_word not in text, f"{key}: the handout still says {cell_word!r}"


@pytest.mark.parametrize("key", sorted(PLANS))
def test_the_answer_key_gives_labcores_answer_and_each_slips_hint(key: str) -> None:
    plan = PLANS[key]
    key_text = handouts.answer_key_markdown(plan)
    for label in plan.exercises:
        exercise = next(e for e in EXERCISES if e.label == label)
        entry = key_text.split(f"**{label}.**", 1)[1].split("\n\n**", 1)[0]
        right = exercise.verdict(exercise.right).message.removeprefix("✓ Correct: ")
        assert right[1:] in entry, f"{label}: the key does not give {right!r}"
        for wrong in exercise.wrong:
            hint = exercise.verdict(wrong).message.removeprefix("✗ ")
            assert hint in entry, f"{label}: the key leaves out the hint for {wrong!r}"
