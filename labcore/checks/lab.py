"""Check the exercises of chapter 7, the lab: what the contract suite and the learner's code say."""

from __future__ import annotations

from .exercise import Exercise

__all__ = ["EXERCISES"]

#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = ()
