"""Say how an exercise's answer is judged, as data: a number, a choice or an ordered list, with its hints.

Each rule is a frozen record whose :meth:`~NumberRule.verdict` is the check's one implementation; a
``grade_<thing>`` function is made from a ``rule_<thing>(**kwargs)`` function by :func:`graded`, so
``grade_x(answer, **kw) == rule_x(**kw).verdict(answer)``. :meth:`~NumberRule.to_json` exports a rule with
the texts its verdicts are made of (:data:`TEXTS`), so a page with no kernel can judge an answer by the
same rule (``coursebuild/static/course-exercises.js``), as the quizzes are built.

>>> rule = NumberRule(16.0, unit="MiB", what="the size", mistakes=((8.0, "is half."),), fallback="Size = ...")
>>> rule.verdict(15.9).ok, rule.verdict(16.05).ok
(False, True)
>>> print(rule.verdict(8.0).message)
✗ 8 MiB is half.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._validate import fraction, function, number
from .verdict import UNANSWERED, Mistake, Verdict, _close

__all__ = ["TEXTS", "SINGULAR", "NumberRule", "ChoiceRule", "ListRule", "Rule", "graded", "rule_of", "rule_from_json"]

#: The texts verdicts are made of, by rule kind; ``{name}`` is filled with a field (values are never re-read).
TEXTS: dict[str, dict[str, str]] = {
    "number": {
        "unanswered": UNANSWERED + ": replace None with your answer, {what} ({unit}).",
        "not_a_number": "✗ Expected a number in {unit} for {what}, got {answer}.",
        "correct": "✓ Correct: {what} is {expected} {unit}.",
        "not_whole": "✗ {shown} is not a whole number: {what} is a count.",
        "mistake": "✗ {shown} {unit} {hint}",
        "other": "✗ {shown} {unit} is not it. {fallback}",
    },
}

#: A count of one said in the singular ("1 request", not "1 requests") when a rule asks for it.
SINGULAR = r"(?<![\d.,])1 (request|adapter|tenant)s\b"

_FIELD = re.compile(r"\{(\w+)\}")


def _fill(template: str, **values: Any) -> str:
    """Return ``template`` with each ``{name}`` replaced by ``values[name]`` (one pass, as the page's script does)."""
    return _FIELD.sub(lambda m: str(values[m[1]]), template)


@dataclass(frozen=True, slots=True)
class NumberRule:
    """A number within ``rel_tol`` of ``expected`` is right; each mistake's value gets its hint, anything else the
    fallback. ``integer``: the answer is a count; ``singular``: say "1 request", not "1 requests"."""

    expected: float
    unit: str
    what: str
    mistakes: Sequence[Mistake] = ()  # any sequence; kept as a tuple
    fallback: str = ""
    rel_tol: float = 0.005
    integer: bool = False
    singular: bool = False

    def __post_init__(self) -> None:
        number("a number rule's expected value", self.expected, minimum=None)
        fraction("rel_tol", self.rel_tol, high_inclusive=False)
        object.__setattr__(self, "mistakes", tuple((float(v), str(h)) for v, h in self.mistakes))

    def verdict(self, answer: Any) -> Verdict:
        """Return the verdict on ``answer``."""
        texts, values = TEXTS["number"], {"unit": self.unit, "what": self.what}
        if answer is None or answer is Ellipsis:
            return self._said(False, texts["unanswered"], **values)
        if isinstance(answer, bool) or not isinstance(answer, (int, float)) or math.isnan(answer):
            return self._said(False, texts["not_a_number"], answer=repr(answer), **values)
        shown = f"{answer:,g}"
        if _close(answer, self.expected, self.rel_tol):
            if self.integer and answer != int(answer):
                return self._said(False, texts["not_whole"], shown=shown, **values)
            return self._said(True, texts["correct"], expected=f"{self.expected:,g}", **values)
        for value, hint in self.mistakes:
            if _close(answer, value, self.rel_tol):
                return self._said(False, texts["mistake"], shown=shown, hint=hint, **values)
        return self._said(False, texts["other"], shown=shown, fallback=self.fallback, **values)

    def _said(self, ok: bool, template: str, **values: Any) -> Verdict:
        message = _fill(template, **values)
        return Verdict(ok, re.sub(SINGULAR, r"1 \1", message) if self.singular else message)

    def to_json(self) -> dict[str, Any]:
        """Return the rule as JSON data, with its texts and the pattern of :data:`SINGULAR`."""
        return {
            "kind": "number",
            "expected": self.expected,
            "unit": self.unit,
            "what": self.what,
            "mistakes": [list(m) for m in self.mistakes],
            "fallback": self.fallback,
            "rel_tol": self.rel_tol,
            "integer": self.integer,
            "singular": SINGULAR if self.singular else None,
            "texts": TEXTS["number"],
        }


def _normal(answer: str, cut: str) -> str:
    """Return ``answer`` as a rule compares it: up to ``cut`` (e.g. a version's ``@``), trimmed, unquoted, lower case."""
    return (answer.split(cut)[0] if cut else answer).strip().strip("'\"").lower()


@dataclass(frozen=True, slots=True)
class ChoiceRule:
    """One of a few words is right: each choice has the spellings that mean it and the full message it gets.

    ``options`` are the choices a page offers; ``words`` maps every choice (also ones the page does not offer,
    such as "nothing") to its spellings; ``messages`` maps it to its verdict line (``✓`` for ``right``).
    ``not_text`` and ``unknown`` hold ``{answer}``, the answer's repr.
    """

    right: str
    options: tuple[str, ...]
    words: Mapping[str, tuple[str, ...]]
    messages: Mapping[str, str]
    unanswered: str
    not_text: str
    unknown: str
    cut: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", tuple(self.options))
        object.__setattr__(self, "words", {k: tuple(v) for k, v in self.words.items()})
        object.__setattr__(self, "messages", dict(self.messages))
        if (
            set(self.messages) != set(self.words)
            or self.right not in self.words
            or not set(self.options) <= set(self.words)
        ):
            raise ValueError(
                f"a choice rule needs a message for each choice and the right one among them, got "
                f"choices {sorted(self.words)}, messages {sorted(self.messages)}, right {self.right!r}"
            )

    def verdict(self, answer: Any) -> Verdict:
        """Return the verdict on ``answer``."""
        if answer is None or answer is Ellipsis:
            return Verdict(False, self.unanswered)
        if not isinstance(answer, str):
            return Verdict(False, _fill(self.not_text, answer=repr(answer)))
        got = _normal(answer, self.cut)
        said = next((choice for choice, words in self.words.items() if got in words), None)
        if said is None:
            return Verdict(False, _fill(self.unknown, answer=repr(answer)))
        return Verdict(said == self.right, self.messages[said])

    def to_json(self) -> dict[str, Any]:
        """Return the rule as JSON data."""
        return {
            "kind": "choice",
            "right": self.right,
            "options": list(self.options),
            "words": {k: list(v) for k, v in self.words.items()},
            "messages": dict(self.messages),
            "unanswered": self.unanswered,
            "not_text": self.not_text,
            "unknown": self.unknown,
            "cut": self.cut,
        }


@dataclass(frozen=True, slots=True)
class ListRule:
    """An ordered list of names is right; known wrong lists get their own message, then the same names in another
    order, then a list of another length (``miscounted``: ``{got}``, ``{count}``), then ``other`` (``{got}``)."""

    expected: Sequence[str]  # any sequence; kept as a tuple
    correct: str
    known: Sequence[tuple[Sequence[str], str]]  # likewise
    reordered: str
    miscounted: str
    other: str
    unanswered: str
    not_a_list: str
    cut: str = "@"

    def __post_init__(self) -> None:
        object.__setattr__(self, "expected", tuple(self.expected))
        object.__setattr__(self, "known", tuple((tuple(names), message) for names, message in self.known))

    def verdict(self, answer: Any) -> Verdict:
        """Return the verdict on ``answer``."""
        if answer is None or answer is Ellipsis:
            return Verdict(False, self.unanswered)
        if isinstance(answer, str) or not isinstance(answer, (list, tuple)):
            return Verdict(False, _fill(self.not_a_list, answer=repr(answer)))
        got = [
            str(getattr(item, "name", item)).partition(self.cut)[0] if self.cut else str(getattr(item, "name", item))
            for item in answer
        ]
        if got == list(self.expected):
            return Verdict(True, self.correct)
        known = next((message for names, message in self.known if got == list(names)), None)
        if known is not None:
            return Verdict(False, known)
        if sorted(got) == sorted(self.expected):
            return Verdict(False, self.reordered)
        if len(got) != len(self.expected):
            return Verdict(False, _fill(self.miscounted, got=repr(got), count=len(got)))
        return Verdict(False, _fill(self.other, got=repr(got)))

    def to_json(self) -> dict[str, Any]:
        """Return the rule as JSON data."""
        return {
            "kind": "list",
            "expected": list(self.expected),
            "correct": self.correct,
            "known": [[list(names), message] for names, message in self.known],
            "reordered": self.reordered,
            "miscounted": self.miscounted,
            "other": self.other,
            "unanswered": self.unanswered,
            "not_a_list": self.not_a_list,
            "cut": self.cut,
        }


#: What a rule function returns.
Rule = NumberRule | ChoiceRule | ListRule


def graded(rule: Callable[..., Rule]) -> Callable[..., Verdict]:
    """Return the grade function of ``rule_<thing>``: ``grade_<thing>(answer, **kw)`` is ``rule(**kw).verdict(answer)``.

    >>> def rule_half(*, whole: float = 8.0) -> NumberRule:
    ...     return NumberRule(whole / 2, unit="MiB", what="half")
    >>> grade_half = graded(rule_half)
    >>> grade_half.__name__, grade_half(2, whole=4).ok, rule_of(grade_half) is rule_half
    ('grade_half', True, True)
    """
    function("a rule", rule, prefix="rule_")

    @functools.wraps(rule)
    def grade(answer: Any, **kwargs: Any) -> Verdict:
        return rule(**kwargs).verdict(answer)

    grade.__name__ = grade.__qualname__ = rule.__name__.replace("rule_", "grade_", 1)
    del grade.__wrapped__  # its signature is (answer, **kwargs), not the rule's
    setattr(grade, "rule", rule)  # noqa: B010 - a function attribute: ``grade.rule = ...`` is not in its type
    return grade


def rule_of(grade: Callable[..., Verdict]) -> Callable[..., Rule] | None:
    """Return the rule function a grade function was made from by :func:`graded`, or None (a code check)."""
    return getattr(grade, "rule", None)


def rule_from_json(data: Mapping[str, Any]) -> Rule:
    """Return the rule ``data`` (from a rule's ``to_json``) describes: the export carries every field a verdict reads.

    >>> rule = NumberRule(16.0, unit="MiB", what="the size", mistakes=((8.0, "is half."),), singular=True)
    >>> rule_from_json(rule.to_json()) == rule
    True
    """
    fields = {k: v for k, v in data.items() if k not in ("kind", "texts")}
    if data.get("kind") == "number":
        if data["texts"] != TEXTS["number"]:
            raise ValueError("a number rule's texts are labcore's own (TEXTS['number']); got other texts")
        fields["singular"] = fields["singular"] is not None
        return NumberRule(**fields)
    if data.get("kind") == "choice":
        return ChoiceRule(**fields)
    if data.get("kind") == "list":
        fields["known"] = tuple((tuple(names), message) for names, message in fields["known"])
        return ListRule(**fields)
    raise ValueError(f"a rule's kind is number, choice or list, got {data.get('kind')!r}")
