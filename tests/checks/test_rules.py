"""The checks as rules: each grade function is its rule's verdict, the rules judge as the checks did before they were
rules, and a rule's JSON export carries all it judges by (the static pages' script reads it).

``data/verdicts_before_rules.json`` holds the verdicts of every exercise with a rule on its right answer, each of its
tested wrong answers and a few more (nothing typed, text, ``True``, NaN, 1, a large number, near misses), recorded
from the grade functions as they were before :mod:`labcore.checks.rules` (commit 812f332). Exercise 2.2's rows were
recorded again when the chapters' split took the engine's 0.9 share of the GPU (:data:`labcore.capacity.TEACHING`):
its right answer moved from 2,574 to 1,947 adapters.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from labcore.chapters import EXERCISES
from labcore.checks.rules import ChoiceRule, ListRule, NumberRule, graded, rule_from_json, rule_of

BEFORE = json.loads((Path(__file__).parent / "data" / "verdicts_before_rules.json").read_text(encoding="utf-8"))
BY_LABEL = {e.label: e for e in EXERCISES}
#: Verdicts that changed on purpose: quotes around a word are now ignored, as the lab's choice always did.
CHANGED = {("11.3", json.dumps("'hold'"))}
IN_PAGE = [e for e in EXERCISES if e.has_rule]


@functools.cache
def _rule(label: str):
    return BY_LABEL[label].rule()  # once per exercise: some rules replay a chapter's runs


def _answer(row: dict):
    if row.get("nan"):
        return float("nan")
    return tuple(row["answer"]) if row.get("tuple") else row["answer"]


@pytest.mark.parametrize("row", BEFORE, ids=lambda r: f"{r['label']}-{r['answer']!r}"[:60])
def test_the_rule_judges_as_the_check_did_before(row):
    verdict = _rule(row["label"]).verdict(_answer(row))
    if (row["label"], json.dumps(row["answer"])) in CHANGED:
        assert verdict.ok and not row["ok"]
    else:
        assert (verdict.ok, verdict.message) == (row["ok"], row["message"])


def test_the_record_covers_every_exercise_with_a_rule_and_its_right_and_wrong_answers():
    recorded = {(r["label"], json.dumps(r["answer"])) for r in BEFORE}
    for e in IN_PAGE:
        for answer in (e.right, *e.wrong):
            assert (e.label, json.dumps(answer)) in recorded, (e.label, answer)


@pytest.mark.parametrize("exercise", IN_PAGE, ids=lambda e: e.label)
def test_the_grade_is_the_rule_and_the_export_carries_the_whole_rule(exercise):
    rule = _rule(exercise.label)
    exported = rule_from_json(json.loads(json.dumps(rule.to_json(), allow_nan=False)))
    assert exported == rule
    for answer in (exercise.right, *exercise.wrong, None, "12 ms"):
        assert exercise.verdict(answer) == rule.verdict(answer) == exported.verdict(answer)


def test_code_exercises_have_no_rule_and_every_other_kind_of_answer_has_one():
    no_rule = sorted(e.label for e in EXERCISES if not e.has_rule)
    assert {e.kind for e in EXERCISES if not e.has_rule} <= {"code", "predict"}
    assert all(callable(e.right) or isinstance(e.right, dict) for e in EXERCISES if not e.has_rule), no_rule
    assert all(isinstance(_rule(e.label), (NumberRule, ChoiceRule, ListRule)) for e in IN_PAGE)


def test_a_count_of_one_is_singular_in_every_message_and_only_when_asked():
    rule = NumberRule(3, unit="requests", what="the number refused", mistakes=((1, "is one."),), singular=True)
    assert rule.verdict(1).message == "✗ 1 request is one."
    assert NumberRule(3, unit="requests", what="x", singular=False).verdict(1).message.startswith("✗ 1 requests")


def test_graded_names_the_grade_after_the_rule_and_refuses_another_name():
    def rule_twice(*, x: float = 2.0) -> NumberRule:
        return NumberRule(2 * x, unit="MiB", what="twice")

    grade_twice = graded(rule_twice)
    assert grade_twice.__name__ == "grade_twice" and rule_of(grade_twice) is rule_twice
    assert grade_twice(6, x=3).ok and not grade_twice(5, x=3).ok

    def twice() -> NumberRule:
        return NumberRule(2, unit="MiB", what="twice")

    with pytest.raises(ValueError, match="rule_<thing>"):
        graded(twice)


@pytest.mark.parametrize(
    "bad",
    [{"kind": "bool"}, {"kind": "number", "texts": {}, "expected": 1, "unit": "u", "what": "w", "singular": None}],
)
def test_an_export_that_is_not_a_rule_is_refused(bad):
    with pytest.raises(ValueError):
        rule_from_json(bad)


def test_a_rule_refuses_what_it_cannot_judge_by():
    with pytest.raises(ValueError, match="finite"):
        NumberRule(float("nan"), unit="ms", what="x")
    with pytest.raises(ValueError, match="a message for each choice"):
        ChoiceRule(
            "yes", options=("yes",), words={"yes": ("yes",)}, messages={}, unanswered="✗", not_text="✗", unknown="✗"
        )
