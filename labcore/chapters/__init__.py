"""Every chapter's manifest, one module per chapter, and the registries derived from them.

Each module of this package (``labcore/chapters/<slug>.py``) holds one :class:`Chapter` named ``CHAPTER``: the
chapter's number and slug, its panels, exercises, quiz, the deck sections session plans may take, and what its
Live kernel needs. Adding a chapter is adding a module here; nothing below lists chapters by hand:

* :data:`CHAPTERS`, every manifest in chapter order (the pages beside the chapters last);
* :data:`PANELS`, :data:`QUIZZES` (by factory name) and :data:`EXERCISES` (each on its chapter's page).

This package is the top of the presentation layer: it imports panels, checks and quizzes, and none of them (nor
anything below) imports it.

>>> CHAPTERS[3].notebook, chapter("04_the_cache").quiz.__name__
('04_the_cache', 'cache_quiz')
>>> next(e for e in EXERCISES if e.label == "15.3").page
'15_production_engines'
>>> chapter("99_nope")
Traceback (most recent call last):
...
KeyError: "no chapter manifest for notebook '99_nope'; notebooks: ['01_why_multi_lora', ...]"
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable
from typing import Any

from ..checks.exercise import Exercise
from ._chapter import DECLARED_NEEDS, LIVE_NEEDS, Chapter

__all__ = [
    "Chapter",
    "CHAPTERS",
    "DECLARED_NEEDS",
    "EXERCISES",
    "LIVE_NEEDS",
    "PANELS",
    "QUIZZES",
    "chapter",
    "manifests",
    "registries",
]


def manifests(package: str = __name__) -> tuple[Chapter, ...]:
    """Return the ``CHAPTER`` of every public module of ``package``, numbered chapters first, in order.

    Raise naming a module without one, and two manifests that claim one notebook.
    """
    found: dict[str, Chapter] = {}
    for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
        if info.name.startswith("_"):
            continue
        manifest = getattr(importlib.import_module(f"{package}.{info.name}"), "CHAPTER", None)
        if not isinstance(manifest, Chapter):
            raise TypeError(f"{package}.{info.name} holds no chapter manifest: define CHAPTER = Chapter(...)")
        if manifest.notebook in found:
            raise ValueError(f"{package}.{info.name}: notebook {manifest.notebook!r} already has a manifest")
        found[manifest.notebook] = manifest
    numbers = [m.number for m in found.values() if m.number is not None]
    if len(numbers) != len(set(numbers)):
        raise ValueError(f"{package}: two manifests share a chapter number: {sorted(numbers)}")
    return tuple(sorted(found.values(), key=lambda m: (m.number is None, m.number or 0, m.slug)))


def _label_order(exercise: Exercise) -> list[Any]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", exercise.label)]


def registries(
    chapters: tuple[Chapter, ...],
) -> tuple[dict[str, Callable[..., Any]], dict[str, Callable[[], Any]], tuple[Exercise, ...]]:
    """Return the panels and quizzes (by factory name) and the exercises (in label order) that ``chapters`` declare.

    A panel may be shown by several chapters; a quiz and an exercise belong to one.
    """
    panels = {f.__name__: f for c in chapters for f in c.panels}
    quizzes: dict[str, Callable[[], Any]] = {}
    for c in chapters:
        if c.quiz is not None:
            if c.quiz.__name__ in quizzes:
                raise ValueError(f"chapter {c.notebook}: quiz {c.quiz.__name__} is already another chapter's")
            quizzes[c.quiz.__name__] = c.quiz
    exercises = tuple(sorted((e for c in chapters for e in c.exercises), key=_label_order))
    labels = [e.label for e in exercises]
    if len(labels) != len(set(labels)):
        raise ValueError(f"two manifests declare one exercise: {sorted(x for x in labels if labels.count(x) > 1)}")
    return panels, quizzes, exercises


#: Every manifest: the chapters in order, then the pages beside them.
CHAPTERS: tuple[Chapter, ...] = manifests()
#: Every panel a page shows, every chapter's quiz, by factory name; every exercise, on its chapter's page.
PANELS, QUIZZES, EXERCISES = registries(CHAPTERS)


def chapter(notebook: str) -> Chapter:
    """Return the manifest of the notebook with stem ``notebook`` (``04_the_cache``)."""
    found = next((c for c in CHAPTERS if c.notebook == notebook), None)
    if found is None:
        raise KeyError(
            f"no chapter manifest for notebook {notebook!r}; notebooks: {[c.notebook for c in CHAPTERS][:1] + ['...']}"
        )
    return found
