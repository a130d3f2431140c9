"""Describe one exercise of the book: where it is, what kind of thinking it asks for, and how its check is tested.

Each domain module of :mod:`labcore.checks` lists its exercises as :class:`Exercise` records (``EXERCISES``);
each chapter's manifest (:mod:`labcore.chapters`) names the ones it asks, and binds them to its page
(:data:`labcore.chapters.EXERCISES` holds them all). A record names the exercise as the page does (``4.1``),
its kind, the check's ``grade_`` function and the arguments the page passes it,
an answer the check accepts and the likeliest wrong answers, each of which the check must answer with
its own hint, and the texts that would give the answer away (a test fails when one of them appears on
the built page above the exercise).

Kinds: ``compute`` (a number from what the chapter taught, for a case it has not shown), ``predict``
(write a prediction, then find out with a panel or the simulator) and ``code`` (write a function).

>>> from labcore.checks.cache import grade_miss_load_ms
>>> e = Exercise("4.2", "compute", grade_miss_load_ms, right=8.0, wrong=(1024.0, 0.125), kwargs={"vram_mb": 64.0})
>>> e.verdict(8.0).ok, e.key, e.rule().expected
(True, 'grade_miss_load_ms(vram_mb=64.0)', 8.0)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._validate import choice, function, instance, text
from ..progress import exercise_key
from .rules import Rule, rule_of
from .verdict import Verdict

__all__ = ["KINDS", "Exercise"]

KINDS: tuple[str, ...] = ("compute", "predict", "code")


@dataclass(frozen=True, slots=True)
class Exercise:
    """One exercise: its label, its kind, its check with the page's arguments, known answers, and its page."""

    label: str
    kind: str
    grade: Callable[..., Verdict]
    right: Any
    wrong: tuple[Any, ...]
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    gives_away: tuple[str, ...] = ()
    #: for a ``predict`` exercise: what the reader moves or runs to find out (a panel's or a function's name)
    tool: str = ""
    #: the notebook stem of the chapter that asks it: set by the chapter's manifest (:mod:`labcore.chapters`)
    page: str = ""

    def __post_init__(self) -> None:
        text("label", self.label)
        instance("page", self.page, str)
        choice("kind", self.kind, KINDS)
        function(f"exercise {self.label}: grade", self.grade, prefix="grade_")
        object.__setattr__(self, "wrong", tuple(self.wrong))
        if len(self.wrong) < 2:
            raise ValueError(f"exercise {self.label}: give the two likeliest wrong answers, got {list(self.wrong)}")
        object.__setattr__(self, "kwargs", dict(self.kwargs))
        if self.kind == "predict" and not self.tool:
            raise ValueError(f"exercise {self.label}: a predict exercise names the panel or run that checks it")

    @property
    def key(self) -> str:
        """Return the key its check's results are kept under in the reader's browser (:mod:`labcore.progress`)."""
        return exercise_key(self.grade.__name__, self.kwargs)

    def verdict(self, answer: Any) -> Verdict:
        """Return the check's verdict on ``answer``, with the page's arguments."""
        return self.grade(answer, **self.kwargs)

    @property
    def has_rule(self) -> bool:
        """Whether its check judges by a rule (a page can judge it), known without making the rule (some replay runs)."""
        return rule_of(self.grade) is not None

    def rule(self) -> Rule | None:
        """Return the rule its check judges by, with the page's arguments, or None when it runs code (a function).

        A page with no kernel can judge an exercise that has a rule (:meth:`Rule.to_json`); one without needs Python.
        """
        make = rule_of(self.grade)
        return None if make is None else make(**self.kwargs)
