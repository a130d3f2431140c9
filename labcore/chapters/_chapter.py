"""Declare what one chapter owns, once: its number and slug, panels, exercises, quiz, plan sections and Live needs.

A :class:`Chapter` is the chapter's manifest. Everything else is derived from it: the notebook's name
(``NN_slug``), its speaker notes' file, its exercises' page, and what its Live kernel installs. A page beside
the chapters (the fleet calculator, the lab notebook) is a manifest with no number.

>>> from labcore.checks.cache import EXERCISES
>>> from labcore.panels.cache import lru_thrash_panel
>>> from labcore.quizzes.cache import cache_quiz
>>> ch = Chapter(4, "the_cache", panels=(lru_thrash_panel,), exercises=EXERCISES, quiz=cache_quiz, live=("figures",))
>>> ch.notebook, ch.notes_file, ch.exercises[0].page, ch.live_needs
('04_the_cache', '04_the_cache.yml', '04_the_cache', ('quiz', 'panels', 'figures'))
>>> Chapter(4, "the_cache", exercises=tuple(EXERCISES) + (EXERCISES[0].__class__("5.9", "compute",
...         EXERCISES[1].grade, right=1.0, wrong=(2.0, 3.0)),))
Traceback (most recent call last):
...
ValueError: chapter 04_the_cache: exercise '5.9' is numbered for another chapter; its exercises are numbered 4.1, 4.2, ...
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from .._validate import choice, count, function, instance, items, text
from ..checks.exercise import Exercise

__all__ = ["Chapter", "LIVE_NEEDS", "DECLARED_NEEDS"]

#: What a Live kernel can need beyond labcore: the contract suite's packages (pytest, hypothesis), jupyterquiz for a
#: quiz, the book build's panel grids, the book build's figures (the Live kernel has no matplotlib). ipywidgets is
#: always preloaded, so no chapter declares it.
LIVE_NEEDS: tuple[str, ...] = ("suite", "quiz", "panels", "figures")
#: The needs a manifest declares in ``live``; a quiz and panels are needed exactly when the manifest names them.
DECLARED_NEEDS: tuple[str, ...] = ("suite", "figures")

_SLUG = re.compile(r"[a-z][a-z0-9_]*")


@dataclass(frozen=True, slots=True)
class Chapter:
    """One chapter's manifest (or a page beside the chapters when ``number`` is None)."""

    number: int | None
    slug: str
    panels: tuple[Callable[..., Any], ...] = ()
    exercises: tuple[Exercise, ...] = ()
    quiz: Callable[[], Any] | None = None
    #: the ``##`` sections of its deck a session plan may take (``scripts/session_plans.yml`` is checked against them)
    plan_sections: tuple[str, ...] = ()
    #: what its Live kernel needs besides what its quiz and panels imply: any of :data:`DECLARED_NEEDS`
    live: tuple[str, ...] = ()
    #: the notebook its page's Live button opens instead of its own live copy (chapter 7: the lab notebook)
    live_notebook: str = ""

    def __post_init__(self) -> None:
        if self.number is not None:
            count("chapter number", self.number)
        if not isinstance(self.slug, str) or not _SLUG.fullmatch(self.slug):
            raise ValueError(f"chapter slug must be lower-case letters, digits and _ (a file name), got {self.slug!r}")
        for field_name in ("panels", "exercises", "plan_sections", "live"):
            object.__setattr__(
                self, field_name, items(f"chapter {self.notebook}: {field_name}", getattr(self, field_name))
            )
        for panel in self.panels:
            function(f"chapter {self.notebook}: each of panels (a labcore panel factory)", panel, suffix="_panel")
        if self.quiz is not None:
            function(f"chapter {self.notebook}: quiz (a labcore quiz factory)", self.quiz, suffix="_quiz")
        for need in self.live:
            choice(f"chapter {self.notebook}: a live need", need, DECLARED_NEEDS)
        if self.live_notebook and not self.live_notebook.endswith(".ipynb"):
            raise ValueError(
                f"chapter {self.notebook}: live_notebook must name a notebook file, got {self.live_notebook!r}"
            )
        for section in self.plan_sections:
            text(f"chapter {self.notebook}: a plan section (a ## heading)", section)
        object.__setattr__(self, "exercises", tuple(self._bound(e) for e in self.exercises))

    def _bound(self, exercise: Exercise) -> Exercise:
        """Return ``exercise`` on this chapter's page; raise when it is numbered or placed for another."""
        instance(f"chapter {self.notebook}: an exercise", exercise, Exercise)
        if self.number is None or not exercise.label.startswith(f"{self.number}."):
            n = self.number
            raise ValueError(
                f"chapter {self.notebook}: exercise {exercise.label!r} is numbered for another chapter; "
                + (f"its exercises are numbered {n}.1, {n}.2, ..." if n else "a page has no exercises")
            )
        if exercise.page not in ("", self.notebook):
            raise ValueError(f"chapter {self.notebook}: exercise {exercise.label} is already on page {exercise.page!r}")
        return replace(exercise, page=self.notebook)

    @property
    def notebook(self) -> str:
        """Return its notebook's stem: ``NN_slug`` for a chapter, the slug for a page beside the chapters."""
        return self.slug if self.number is None else f"{self.number:02d}_{self.slug}"

    @property
    def notes_file(self) -> str:
        """Return its speaker notes' file name, in ``scripts/speaker_notes/``."""
        return f"{self.notebook}.yml"

    @property
    def live_needs(self) -> tuple[str, ...]:
        """Return what its Live kernel needs, in :data:`LIVE_NEEDS` order."""
        needs = {*self.live, *(("quiz",) if self.quiz else ()), *(("panels",) if self.panels else ())}
        return tuple(n for n in LIVE_NEEDS if n in needs)
