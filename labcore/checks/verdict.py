"""What every check returns and prints: a ``Verdict`` (right or not, and the one line the learner sees).

Each exercise has a pure ``grade_<thing>(answer, ...) -> Verdict`` and a one-line
``check_<thing>(answer, ...)`` that prints the verdict (``✓ ...`` or ``✗ ... hint``) and, in the live
site, records it as the learner's (:mod:`labcore.progress`), unless the answer is still the exercise's
placeholder. A solution cell prints ``grade_<thing>(...)`` instead: a ``Verdict`` prints (and displays)
as its message, and grading records nothing. Known wrong
answers (a forgotten factor of two, MB for MiB, a fraction for a percentage, ...) are listed as
``Mistake`` pairs and get their specific hint; anything else gets the formula. How a number, a choice
or a list is judged is a rule (:mod:`labcore.checks.rules`), whose verdict a grade function returns.

>>> print(Verdict(False, "✗ 8 MiB is half."))
✗ 8 MiB is half.
>>> Verdict(False, UNANSWERED + ": replace None with your answer.").answered
False
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..progress import record_exercise

__all__ = ["Mistake", "Verdict", "UNANSWERED"]

#: how the verdict on an exercise's placeholder (``None``, ``...``, a function that returns ``None``) begins
UNANSWERED = "✗ Not answered yet"

Mistake = tuple[float, str]  # (the value that mistake produces, the hint)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of one check: whether the answer is right, and the line shown to the learner."""

    ok: bool
    message: str

    def __post_init__(self) -> None:
        if not self.message.startswith("✓" if self.ok else "✗"):
            raise ValueError(f"a verdict message starts with ✓ or ✗ to match ok={self.ok}, got {self.message!r}")

    @property
    def answered(self) -> bool:
        """Tell whether this is the verdict on an answer, not on the exercise's placeholder (see ``UNANSWERED``)."""
        return not self.message.startswith(UNANSWERED)

    def __str__(self) -> str:
        return self.message

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # IPython shows a verdict as its message
        printer.text(self.message)


def _close(a: float, b: float, rel_tol: float) -> bool:
    return math.isclose(a, b, rel_tol=rel_tol, abs_tol=1e-9)


def _printer(grade: Callable[..., Verdict]) -> Callable[..., None]:
    def check(answer: Any, **kwargs: Any) -> None:
        verdict = grade(answer, **kwargs)
        print(verdict)
        if verdict.answered:  # the learner's own answer: in the live site, kept in their browser
            record_exercise(grade.__name__, kwargs, verdict.ok)

    name = grade.__name__.replace("grade_", "check_")
    check.__name__ = check.__qualname__ = name
    check.__doc__ = (
        f"Print whether ``answer`` is right (see ``{grade.__name__}``), one line with a hint if not, "
        "and record it as the learner's answer unless it is the placeholder."
    )
    return check
