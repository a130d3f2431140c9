"""Check the capstone's exercises (chapter 16): a design decision that the simulator checks."""

from __future__ import annotations

from .exercise import Exercise

__all__ = ["EXERCISES"]

#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = ()
