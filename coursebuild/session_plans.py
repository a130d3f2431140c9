"""Session plans computed from the decks: each slot names a deck, its sections and their slide numbers, and fits.

The plans are data (``scripts/session_plans.yml``); the minutes come from the decks' own speaker notes
(:mod:`coursebuild.speaker_notes`), the slide numbers from the decks as :func:`coursebuild.slides.deck_notebook`
makes them (reveal numbers every slide and sub-slide: ``c/t``). :func:`load_plans` raises when a slot's
sections take longer than the slot, when the slots do not add up to the plan, or when a section, deck or
exercise it names does not exist, and a deck or lab slot must state its teaching and its exercise minutes (as the
Carpentries' lesson plans do): a slot that gives the room exercises with no minutes for them is refused. A lab
slot's modules follow :data:`labcore.contract.LAB_MODULES` from the first. The instructors' page prints :func:`plan_markdown`; a plan with a ``deck``
also gets its own deck (:mod:`coursebuild.session_deck`: the sections it uses, in order, with a slide before
each slot, a slide per exercise given, the notes' pace cues counted on the session's clock and a summary slide
at its end).

>>> clock(0), clock(75)
('0:00', '1:15')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import nbformat
import yaml

from labcore.chapters import EXERCISES
from labcore.chapters import chapter as manifest
from labcore.contract import LAB_MODULES

from . import speaker_notes
from .lite.notebooks import glue_values
from .slide_layout import slide_type
from .slides import deck_notebook
from .speaker_notes import headings, minutes_text

__all__ = [
    "PLANS_FILE",
    "BOOK_DIR",
    "Section",
    "Slot",
    "Plan",
    "clock",
    "deck_sections",
    "load_plans",
    "plan_markdown",
    "chapter_notebook",
    "chapter_deck",
    "heading_slides",
]

ROOT = Path(__file__).resolve().parent.parent
PLANS_FILE = ROOT / "scripts" / "session_plans.yml"
BOOK_DIR = ROOT / "book"
KINDS = ("deck", "lab", "break", "questions")


@dataclass(frozen=True)
class Section:
    """One ``##`` section of a deck: its heading, its minutes in the notes, its first and last slide (1-based)."""

    heading: str
    minutes: float
    first: int
    last: int

    @property
    def slides(self) -> str:
        """Return its slide numbers as the plan says them (``slides 9-12``, or ``slide 9`` for one slide)."""
        return f"slide {self.first}" if self.first == self.last else f"slides {self.first}-{self.last}"


@dataclass(frozen=True)
class Slot:
    """One slot of a plan: what it shows, when it starts, how long it takes."""

    kind: str
    start: float
    minutes: float
    deck: str = ""
    teaching: float = 0.0  # a deck or lab slot: minutes of talk (its sections and a lab's set-up)
    exercises: float = 0.0  # a deck or lab slot: minutes of the room's own work
    chapter: str = ""  # the deck's title (its ``#`` heading)
    sections: tuple[Section, ...] = ()
    demo: str = ""
    give: tuple[str, ...] = ()
    pause: str = ""
    setup: float = 0.0  # a lab slot: minutes of set-up before the hands-on work
    setup_steps: str = ""
    modules: tuple[str, ...] = ()  # a lab slot: the lab modules the room writes, in dependency order
    fallback: str = ""
    takeaway: str = ""  # its line on the session deck's summary slide (glue roles resolved from its chapter)
    notes: str = ""  # a break's or the questions' speaker notes

    @property
    def hands_on(self) -> str:
        """Return a lab slot's hands-on goal: its modules in order, until their rows are green."""
        files = [f"{m}.py" for m in self.modules]
        if not files:
            return ""
        listed = files[0] if len(files) == 1 else ", ".join(files[:-1]) + f", then {files[-1]}"
        return (
            f"Everyone: {listed} (the order they depend on each other), until their rows of the table are "
            "green; who finishes goes on to the next module."
        )

    @property
    def end(self) -> float:
        return self.start + self.minutes

    @property
    def used(self) -> float:
        """Return the minutes its sections (and a lab slot's set-up) take."""
        return sum(s.minutes for s in self.sections) + self.setup


@dataclass(frozen=True)
class Plan:
    """A session plan: its key, title, audience, minutes, its own deck and handout (stems, or empty), its slots."""

    key: str
    title: str
    audience: str
    minutes: float
    deck: str
    handout: str
    slots: tuple[Slot, ...]

    @property
    def exercises(self) -> tuple[str, ...]:
        """Return the exercise labels its slots give the room, in order."""
        return tuple(label for slot in self.slots for label in slot.give)


def clock(minutes: float) -> str:
    """Return minutes into a session as ``h:mm``."""
    whole = round(minutes)
    return f"{whole // 60}:{whole % 60:02d}"


def deck_sections(deck: Mapping[str, Any]) -> tuple[dict[str, tuple[int, int]], int]:
    """Return ``({## heading: (first slide, last slide)}, number of slides)`` of a deck notebook.

    Slides are counted as reveal numbers them: a cell of type ``slide`` or ``subslide`` starts one, and the
    first cell shown starts the first (``notes`` and ``skip`` cells show none).

    >>> md = lambda text, kind: {"cell_type": "markdown", "source": text, "metadata": {"slideshow": {"slide_type": kind}}}
    >>> deck_sections({"cells": [md("# T", "-"), md("## A", "slide"), md("x", "subslide"), md("## B", "slide")]})
    ({'A': (2, 3), 'B': (4, 4)}, 4)
    """
    starts: dict[str, int] = {}
    found, number = heading_slides(deck)
    for heading, first in found:
        starts.setdefault(heading, first)
    order = sorted(starts.items(), key=lambda item: item[1])
    ends = [first - 1 for _, first in order[1:]] + [number]
    return {heading: (first, max(first, end)) for (heading, first), end in zip(order, ends, strict=True)}, number


def heading_slides(deck: Mapping[str, Any]) -> tuple[list[tuple[str, int]], int]:
    """Return every ``##`` heading of a deck notebook with the slide it is on, in order, and the number of slides."""
    found: list[tuple[str, int]] = []
    number = 0
    for cell in deck.get("cells", []):
        kind = slide_type(cell) or "-"
        if kind in ("notes", "skip"):
            continue
        if number == 0 or kind in ("slide", "subslide"):
            number += 1
        found += [(heading, number) for heading in headings(cell)]
    return found, number


@cache
def chapter_notebook(stem: str, book: Path) -> Any:
    """Return chapter ``stem``'s notebook as stored in ``book`` (read once); raise naming a chapter that is not there."""

    path = book / f"{stem}.ipynb"
    if not path.is_file():
        raise ValueError(f"a session plan names deck {stem!r}, but {path} does not exist")
    return nbformat.read(path, as_version=4)


@cache
def chapter_deck(stem: str, book: Path) -> dict[str, Any]:
    """Return chapter ``stem``'s deck notebook as :func:`coursebuild.slides.deck_notebook` makes it (made once)."""

    nb = chapter_notebook(stem, book)
    return deck_notebook(nb, glue_values(nb))


def _title(deck: Mapping[str, Any]) -> str:
    return next((h for cell in deck["cells"] for h in headings(cell, level=1)), "")


def _minutes(key: str, raw: Mapping[str, Any], start: float, kind: str) -> tuple[float, float, float]:
    """Return a slot's ``(minutes, teaching, exercises)``; raise naming the slot when its minutes are not stated."""
    where = f"plan {key!r}: the slot at {clock(start)} ({raw.get('deck') or kind})"
    if kind in ("break", "questions"):
        if "minutes" not in raw:
            raise ValueError(f"{where} states no minutes")
        return float(raw["minutes"]), 0.0, 0.0
    missing = [name for name in ("teaching", "exercises") if name not in raw]
    if missing or "minutes" in raw:
        raise ValueError(
            f"{where} must state its teaching and exercise minutes (teaching: N, exercises: N), "
            f"not {'minutes' if 'minutes' in raw else 'without ' + ' and '.join(missing)}"
        )
    teaching, exercises = float(raw["teaching"]), float(raw["exercises"])
    if teaching < 0 or exercises < 0:
        raise ValueError(
            f"{where} has {teaching:g} teaching and {exercises:g} exercise minutes; neither can be negative"
        )
    if raw.get("give") and exercises <= 0:
        raise ValueError(
            f"{where} gives the room exercise(s) {', '.join(map(str, raw['give']))} but no minutes "
            "for them: set exercises to the minutes the room works"
        )
    if exercises > 0 and not raw.get("give") and kind != "lab":
        raise ValueError(f"{where} has {exercises:g} exercise minutes but gives the room no exercise")
    return teaching + exercises, teaching, exercises


def _lab_modules(key: str, raw: Mapping[str, Any], start: float) -> tuple[str, ...]:

    modules = tuple(str(m) for m in raw.get("modules", []))
    if (
        raw.get("kind") == "lab"
        and modules != LAB_MODULES[: len(modules)]
        or (raw.get("kind") == "lab") != bool(modules)
    ):
        raise ValueError(
            f"plan {key!r}: the lab slot at {clock(start)} names modules {list(modules)}; a lab slot names "
            f"the first modules of the lab's dependency order {list(LAB_MODULES)}, and only a lab slot"
        )
    return modules


def _slot(key: str, raw: Mapping[str, Any], start: float, book: Path, notes: Mapping[str, Any]) -> Slot:

    kind = str(raw.get("kind", "deck"))
    if kind not in KINDS:
        raise ValueError(f"plan {key!r}: slot at {clock(start)} has kind {kind!r}; expected one of {KINDS}")
    minutes, teaching, exercises = _minutes(key, raw, start, kind)
    stem = str(raw.get("deck", ""))
    sections: list[Section] = []
    chapter = ""
    if stem:
        deck = chapter_deck(stem, book)
        chapter = _title(deck)
        where, _ = deck_sections(deck)
        timed = speaker_notes.section_minutes(notes.get(stem, {}))
        try:
            offered = manifest(stem).plan_sections  # the sections its manifest offers session plans (labcore.chapters)
        except KeyError:
            raise ValueError(f"plan {key!r}: deck {stem} has no chapter manifest in labcore/chapters/") from None
        for heading in raw.get("sections", []):
            if heading not in where or heading not in timed:
                raise ValueError(f"plan {key!r}: deck {stem} has no section {heading!r} (its sections: {list(where)})")
            if heading not in offered:
                raise ValueError(
                    f"plan {key!r}: chapter {stem}'s manifest offers no section {heading!r} to session "
                    f"plans (it offers {list(offered)}: add it to plan_sections in labcore/chapters/)"
                )
            sections.append(Section(heading, timed[heading], *where[heading]))
        if [s.first for s in sections] != sorted(s.first for s in sections):
            raise ValueError(f"plan {key!r}: the sections of {stem} at {clock(start)} are not in the deck's order")
    labels = {e.label: e for e in EXERCISES}
    give = tuple(str(label) for label in raw.get("give", []))
    for label in give:
        if label not in labels or labels[label].kind == "code":
            raise ValueError(f"plan {key!r}: exercise {label!r} is not a compute or predict exercise of the book")
    slot = Slot(
        kind,
        start,
        minutes,
        stem,
        teaching,
        exercises,
        chapter,
        tuple(sections),
        str(raw.get("demo", "")),
        give,
        str(raw.get("pause", "")),
        float(raw.get("setup", 0)),
        str(raw.get("setup_steps", "")),
        _lab_modules(key, raw, start),
        str(raw.get("fallback", "")),
        str(raw.get("takeaway", "")).strip(),
        str(raw.get("notes", "")).strip(),
    )
    if slot.used > (teaching if kind in ("deck", "lab") else minutes):
        raise ValueError(
            f"plan {key!r}: the slot at {clock(start)} ({stem or kind}) has {minutes_text(teaching)} "
            f"of teaching, but its sections take {minutes_text(slot.used)} by the deck's notes"
        )
    return slot


def load_plans(
    path: Path = PLANS_FILE, *, book: Path = BOOK_DIR, notes: Mapping[str, Any] | None = None
) -> dict[str, Plan]:
    """Return every plan of ``path``, timed by the decks' notes; raise ``ValueError`` naming a plan that does not fit."""

    notes = speaker_notes.load_notes() if notes is None else notes
    plans = {}
    for key, raw in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items():
        slots, start = [], 0.0
        for raw_slot in raw["slots"]:
            slots.append(_slot(str(key), raw_slot, start, book, notes))
            start = slots[-1].end
        minutes = float(raw["minutes"])
        if start != minutes:
            raise ValueError(f"plan {key!r}: its slots add up to {minutes_text(start)}, not {minutes_text(minutes)}")
        plans[str(key)] = Plan(
            str(key),
            str(raw["title"]),
            str(raw.get("audience", "")),
            minutes,
            str(raw.get("deck", "")),
            str(raw.get("handout", "")),
            tuple(slots),
        )
    return plans


def _what(slot: Slot) -> str:
    if slot.kind == "break":
        return "Break"
    if slot.kind == "questions":
        return "Questions from the room"
    number = slot.deck.split("_", 1)[0].lstrip("0")
    shown = "; ".join(f"{s.heading} ({minutes_text(s.minutes)}, {s.slides})" for s in slot.sections)
    text = f"[Deck {number}]({slot.deck}.ipynb): {shown}"
    if slot.kind == "lab":
        text += (
            f". Set-up ({minutes_text(slot.setup)}): {slot.setup_steps} Hands on: {slot.hands_on} "
            f"Without a laptop: {slot.fallback}"
        )
    return text


def _minutes_cells(slot: Slot) -> list[str]:
    if slot.kind in ("break", "questions"):
        return ["", ""]
    return [minutes_text(slot.teaching), minutes_text(slot.exercises)]


def plan_markdown(plan: Plan) -> str:
    """Return a plan as a Markdown table: time, teaching and exercise minutes, deck and slides, demo, the room's
    exercises, where to pause."""
    rows = [
        "| Time | Teaching | Exercises | Deck, sections and slides | Demo | Give the room | Pause here |",
        "| --- | ---: | ---: | --- | --- | --- | --- |",
    ]
    for slot in plan.slots:
        give = ", ".join(f"exercise {label}" for label in slot.give)
        cells = [
            f"{clock(slot.start)}-{clock(slot.end)}",
            *_minutes_cells(slot),
            _what(slot),
            slot.demo,
            give,
            slot.pause,
        ]
        rows.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |")
    return "\n".join(rows)
