"""Session plans computed from the decks: each slot names a deck, its sections and their slide numbers, and fits.

The plans are data (``scripts/session_plans.yml``); the minutes come from the decks' own speaker notes
(:mod:`coursebuild.speaker_notes`), the slide numbers from the decks as :func:`coursebuild.slides.deck_notebook`
makes them (reveal numbers every slide and sub-slide: ``c/t``). :func:`load_plans` raises when a slot's
sections take longer than the slot, when the slots do not add up to the plan, or when a section, deck or
exercise it names does not exist. The instructors' page prints :func:`plan_markdown`; a plan with a ``deck``
also gets its own deck (:func:`session_deck_notebook`: the sections it uses, in order, with a slide before
each slot and the notes' pace cues counted on the session's clock), written into the site's ``slides/`` by this
module as a Sphinx extension (``_config.yml``: ``coursebuild.session_plans``, after ``coursebuild.slides``).

>>> clock(0), clock(75)
('0:00', '1:15')
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from . import speaker_notes
from .slide_layout import slide_type
from .speaker_notes import headings, minutes_text, retime

__all__ = ["PLANS_FILE", "BOOK_DIR", "Section", "Slot", "Plan", "clock", "deck_sections", "load_plans",
           "plan_markdown", "session_deck_notebook", "session_deck_sections", "write_session_decks"]

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
        """Return its slide numbers as a range (``9-12``, or ``9`` for one slide)."""
        return str(self.first) if self.first == self.last else f"{self.first}-{self.last}"


@dataclass(frozen=True)
class Slot:
    """One slot of a plan: what it shows, when it starts, how long it takes."""

    kind: str
    start: float
    minutes: float
    deck: str = ""
    chapter: str = ""  # the deck's title (its ``#`` heading)
    sections: tuple[Section, ...] = ()
    demo: str = ""
    give: tuple[str, ...] = ()
    pause: str = ""
    setup: float = 0.0  # a lab slot: minutes of set-up before the hands-on work
    setup_steps: str = ""
    hands_on: str = ""
    fallback: str = ""

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
    found, number = _heading_slides(deck)
    for heading, first in found:
        starts.setdefault(heading, first)
    order = sorted(starts.items(), key=lambda item: item[1])
    ends = [first - 1 for _, first in order[1:]] + [number]
    return {heading: (first, max(first, end)) for (heading, first), end in zip(order, ends)}, number


def _heading_slides(deck: Mapping[str, Any]) -> tuple[list[tuple[str, int]], int]:
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
def _chapter_deck(stem: str, book: Path) -> dict[str, Any]:
    import nbformat

    from .lite_notebooks import glue_values
    from .slides import deck_notebook

    path = book / f"{stem}.ipynb"
    if not path.is_file():
        raise ValueError(f"a session plan names deck {stem!r}, but {path} does not exist")
    nb = nbformat.read(path, as_version=4)
    return deck_notebook(nb, glue_values(nb))


def _title(deck: Mapping[str, Any]) -> str:
    return next((h for cell in deck["cells"] for h in headings(cell, level=1)), "")


def _slot(key: str, raw: Mapping[str, Any], start: float, book: Path, notes: Mapping[str, Any]) -> Slot:
    from labcore.checks import EXERCISES

    kind = str(raw.get("kind", "deck"))
    if kind not in KINDS:
        raise ValueError(f"plan {key!r}: slot at {clock(start)} has kind {kind!r}; expected one of {KINDS}")
    minutes = float(raw["minutes"])
    stem = str(raw.get("deck", ""))
    sections: list[Section] = []
    chapter = ""
    if stem:
        deck = _chapter_deck(stem, book)
        chapter = _title(deck)
        where, _ = deck_sections(deck)
        timed = speaker_notes.section_minutes(notes.get(stem, {}))
        for heading in raw.get("sections", []):
            if heading not in where or heading not in timed:
                raise ValueError(f"plan {key!r}: deck {stem} has no section {heading!r} (its sections: {list(where)})")
            sections.append(Section(heading, timed[heading], *where[heading]))
        if [s.first for s in sections] != sorted(s.first for s in sections):
            raise ValueError(f"plan {key!r}: the sections of {stem} at {clock(start)} are not in the deck's order")
    labels = {e.label: e for e in EXERCISES}
    give = tuple(str(label) for label in raw.get("give", []))
    for label in give:
        if label not in labels or labels[label].kind == "code":
            raise ValueError(f"plan {key!r}: exercise {label!r} is not a compute or predict exercise of the book")
    slot = Slot(kind, start, minutes, stem, chapter, tuple(sections), str(raw.get("demo", "")), give,
                str(raw.get("pause", "")), float(raw.get("setup", 0)), str(raw.get("setup_steps", "")),
                str(raw.get("hands_on", "")), str(raw.get("fallback", "")))
    if slot.used > minutes:
        raise ValueError(f"plan {key!r}: the slot at {clock(start)} ({stem or kind}) has {minutes_text(minutes)}, "
                         f"but its sections take {minutes_text(slot.used)} by the deck's notes")
    return slot


def load_plans(path: Path = PLANS_FILE, *, book: Path = BOOK_DIR,
               notes: Mapping[str, Any] | None = None) -> dict[str, Plan]:
    """Return every plan of ``path``, timed by the decks' notes; raise ``ValueError`` naming a plan that does not fit."""
    import yaml

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
        plans[str(key)] = Plan(str(key), str(raw["title"]), str(raw.get("audience", "")), minutes,
                               str(raw.get("deck", "")), str(raw.get("handout", "")), tuple(slots))
    return plans


def _what(slot: Slot) -> str:
    if slot.kind == "break":
        return "Break"
    if slot.kind == "questions":
        return "Questions from the room"
    number = slot.deck.split("_", 1)[0].lstrip("0")
    shown = "; ".join(f"{s.heading} ({minutes_text(s.minutes)}, slides {s.slides})" for s in slot.sections)
    text = f"[Deck {number}]({slot.deck}.ipynb): {shown}"
    if slot.kind == "lab":
        text += (f". Set-up ({minutes_text(slot.setup)}): {slot.setup_steps} Hands on: {slot.hands_on} "
                 f"Without a laptop: {slot.fallback}")
    return text


def plan_markdown(plan: Plan) -> str:
    """Return a plan as a Markdown table: time, deck and slides, demo, what the room does, where to pause."""
    rows = ["| Time | Deck, sections and slides | Demo | Give the room | Pause here |", "| --- | --- | --- | --- | --- |"]
    for slot in plan.slots:
        give = ", ".join(f"exercise {label}" for label in slot.give)
        cells = [f"{clock(slot.start)}-{clock(slot.end)}", _what(slot), slot.demo, give, slot.pause]
        rows.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |")
    return "\n".join(rows)


def _cell_id(text: str) -> str:
    import hashlib

    return "session-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _markdown_slide(text: str, kind: str = "slide") -> dict[str, Any]:
    return {"cell_type": "markdown", "id": _cell_id(text), "source": text,
            "metadata": {"slideshow": {"slide_type": kind}}}


def _notes(text: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "id": _cell_id(text), "source": text,
            "metadata": {"slideshow": {"slide_type": "notes"}, "tags": [speaker_notes.NOTES_TAG]}}


def _section_cells(deck: Mapping[str, Any], heading: str) -> list[dict[str, Any]]:
    """Return the cells of one ``##`` section of a deck notebook: from its heading to the next ``##`` heading."""
    cells = deck["cells"]
    start = next(i for i, c in enumerate(cells) if heading in headings(c))
    end = next((i for i in range(start + 1, len(cells)) if headings(cells[i])), len(cells))
    return copy.deepcopy(cells[start:end])


def _slot_notes(number: int, plan: Plan, slot: Slot) -> str:
    lines = [f"**Slot {number} of {len(plan.slots)}** ({clock(slot.start)} to {clock(slot.end)}, "
             f"{minutes_text(slot.minutes)})"]
    if slot.sections:
        lines.append("Sections: " + "; ".join(f"{s.heading} ({minutes_text(s.minutes)})" for s in slot.sections))
    for label, text in (("Demo", slot.demo), ("Give the room", ", ".join(f"exercise {g} (handout)" for g in slot.give)),
                        ("Pause here", slot.pause)):
        if text:
            lines.append(f"**{label}:** {text}")
    return "\n\n".join(lines)


def session_deck_notebook(plan: Plan, decks: Mapping[str, Mapping[str, Any]] | None = None, *,
                          book: Path = BOOK_DIR) -> dict[str, Any]:
    """Return one deck notebook for ``plan``: a title slide, then per slot a slide naming it and its sections' slides.

    ``decks`` maps a chapter stem to its deck notebook (:func:`coursebuild.slides.deck_notebook`; read from
    ``book`` when missing). Each section's pace cue is re-timed on the session's clock.
    """
    cells = [_markdown_slide(f"# {plan.title}: many adapters, one GPU\n\n{plan.audience}"),
             _notes(f"**Speaker notes** ({minutes_text(plan.minutes)} in all)\n\n" + "\n".join(
                 f"- {clock(s.start)}: {s.chapter or s.kind} ({minutes_text(s.minutes)})" for s in plan.slots))]
    for number, slot in enumerate(plan.slots, start=1):
        title = slot.chapter or ("Break" if slot.kind == "break" else "Questions")
        cells.append(_markdown_slide(f"# {title}\n\n{clock(slot.start)} to {clock(slot.end)} · "
                                     f"{minutes_text(slot.minutes)}"))
        cells.append(_notes(_slot_notes(number, plan, slot)))
        deck = (decks or {}).get(slot.deck) or (_chapter_deck(slot.deck, book) if slot.deck else None)
        elapsed = slot.start + slot.setup
        for section in slot.sections:
            elapsed += section.minutes
            for cell in _section_cells(deck, section.heading):
                if speaker_notes.is_notes(cell):
                    cell["source"] = retime(speaker_notes.source(cell), elapsed=elapsed, total=plan.minutes)
                cells.append(cell)
    first = decks[next(iter(decks))] if decks else _chapter_deck(plan.slots[0].deck, book)
    return {"cells": cells, "metadata": copy.deepcopy(dict(first.get("metadata", {}))), "nbformat": 4,
            "nbformat_minor": 5}


def session_deck_sections(plan: Plan, deck: Mapping[str, Any]) -> list[tuple[Slot, Section, int]]:
    """Return ``(slot, section, its first slide in the session deck)`` for every section of ``plan``, in order.

    The session deck may show two sections of one heading (from two chapters): they are matched in order.
    """
    firsts, _ = _heading_slides(deck)
    wanted = [(slot, section) for slot in plan.slots for section in slot.sections]
    if [h for h, _ in firsts] != [s.heading for _, s in wanted]:
        raise ValueError(f"the deck of plan {plan.key!r} does not show its sections in the plan's order")
    return [(slot, section, first) for (slot, section), (_, first) in zip(wanted, firsts)]


def write_session_decks(decks: Mapping[str, Mapping[str, Any]], slides_dir: Path, *,
                        plans: Mapping[str, Plan] | None = None) -> list[Path]:
    """Write the deck of every plan that names one (``deck:``) into ``slides_dir``; return their paths."""
    from .slides import SUFFIX, DeckWriter

    plans = load_plans() if plans is None else plans
    writer = DeckWriter()
    return [writer.write(session_deck_notebook(plan, decks), slides_dir / f"{plan.deck}{SUFFIX}")
            for plan in plans.values() if plan.deck]


def _on_build_finished(app: Any, exception: Exception | None) -> None:
    """Write the plans' own decks beside the chapter decks (after coursebuild.slides has cleared stale ones)."""
    if exception is not None or app.builder.format != "html":
        return
    from sphinx.util import logging

    from .slides import SLIDES_DIR

    written = write_session_decks({}, Path(app.outdir) / SLIDES_DIR)
    logging.getLogger(__name__).info(f"[slides] {len(written)} session decks: {', '.join(p.name for p in written)}")


def setup(app: Any) -> dict[str, Any]:
    """Register the session decks' writer, to run after coursebuild.slides has written the chapter decks."""
    app.connect("build-finished", _on_build_finished, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
