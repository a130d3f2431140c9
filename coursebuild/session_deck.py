"""The session plans' own decks: a plan with a ``deck`` gets one deck of the chapter sections it uses, in order.

Before each slot a slide says its time (teaching and exercise minutes; its speaker notes: the demo, the
exercises, where to pause, the hand-over to the next slot); after a slot's sections, a slide per exercise it
gives the room (worded as the handout words it, with the figures it needs); each section's pace cue is counted on
the session's clock; the questions' slide is a summary of the slots' takeaways, the deck's last, and the site's address
with its QR code (when ``_config.yml`` sets one) opens and closes it. Written into the site's ``slides/`` by this
module as a Sphinx extension (``_config.yml``: ``coursebuild.session_deck``, after ``coursebuild.slides``).
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sphinx.util import logging

from . import speaker_notes
from .handouts import exercise_text, givens_text, site_address, site_card_html
from .lite.notebooks import glue_values
from .myst_text import to_commonmark
from .session_plans import (
    BOOK_DIR,
    Plan,
    Section,
    Slot,
    chapter_deck,
    chapter_notebook,
    clock,
    heading_slides,
    load_plans,
)
from .slides import SLIDES_DIR, SUFFIX, DeckWriter
from .speaker_notes import as_written, headings, minutes_text, retime

__all__ = ["session_deck_notebook", "session_deck_sections", "write_session_decks"]


def _cell_id(text: str) -> str:
    return "session-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _markdown_slide(text: str, kind: str = "slide") -> dict[str, Any]:
    return {
        "cell_type": "markdown",
        "id": _cell_id(text),
        "source": text,
        "metadata": {"slideshow": {"slide_type": kind}},
    }


def _notes(text: str) -> dict[str, Any]:
    return {
        "cell_type": "markdown",
        "id": _cell_id(text),
        "source": text,
        "metadata": {"slideshow": {"slide_type": "notes"}, "tags": [speaker_notes.NOTES_TAG]},
    }


def _section_cells(deck: Mapping[str, Any], heading: str) -> list[dict[str, Any]]:
    """Return the cells of one ``##`` section of a deck notebook: from its heading to the next ``##`` heading."""
    cells = deck["cells"]
    start = next(i for i, c in enumerate(cells) if heading in headings(c))
    end = next((i for i in range(start + 1, len(cells)) if headings(cells[i])), len(cells))
    return copy.deepcopy(cells[start:end])


def _slot_notes(number: int, plan: Plan, slot: Slot) -> str:
    lines = [
        f"**Slot {number} of {len(plan.slots)}** ({clock(slot.start)} to {clock(slot.end)}, "
        f"{minutes_text(slot.minutes)}"
        + (f": {minutes_text(slot.teaching)} teaching, {minutes_text(slot.exercises)} exercises)" if slot.deck else ")")
    ]
    if slot.sections:
        lines.append("Sections: " + "; ".join(f"{s.heading} ({minutes_text(s.minutes)})" for s in slot.sections))
    for label, text in (
        ("Demo", slot.demo),
        ("Give the room", ", ".join(f"exercise {g} (handout)" for g in slot.give)),
        ("Pause here", slot.pause),
    ):
        if text:
            lines.append(f"**{label}:** {text}")
    if slot.notes:
        lines.append(as_written(slot.notes))
    following = plan.slots[number] if number < len(plan.slots) else None
    if following is not None:
        upcoming = following.chapter or ("the break" if following.kind == "break" else "questions from the room")
        lines.append(f"**Hand over at {clock(slot.end)}:** to {upcoming}.")
    return "\n\n".join(lines)


def _slot_title(slot: Slot) -> str:
    return slot.chapter or ("Break" if slot.kind == "break" else "Questions")


def _slot_slide(slot: Slot) -> str:
    when = f"{clock(slot.start)} to {clock(slot.end)} · {minutes_text(slot.minutes)}"
    if slot.deck:
        when += f" ({minutes_text(slot.teaching)} teaching, {minutes_text(slot.exercises)} exercises)"
    return f"# {_slot_title(slot)}\n\n{when}"


def _exercise_cells(slot: Slot, book: Path) -> list[dict[str, Any]]:
    """Return a slide per exercise ``slot`` gives, worded as the handout words it, with the figures it needs."""
    cells = []
    share = slot.exercises / max(len(slot.give), 1)
    for label in slot.give:
        cells.append(
            _markdown_slide(
                f"### Your turn: exercise {label} ({minutes_text(share)}, on the handout)\n\n"
                f"{exercise_text(label, book=book)}\n\n{givens_text(label)}",
                "subslide",
            )
        )
        cells.append(
            _notes(
                f"**Say:** {minutes_text(share)}, on paper, alone or with a neighbour; the handout holds "
                "every number it needs. **Ask:** take three answers before showing the panel. **Next:** "
                "move the panel to the exercise's values in front of the room."
            )
        )
    return cells


def _summary(plan: Plan, book: Path) -> str:
    """Return the session deck's closing slide's bullets: each slot's takeaway, its numbers from its chapter's glue."""

    lines = []
    for slot in plan.slots:
        if slot.takeaway:
            nb = chapter_notebook(slot.deck, book)
            lines.append(f"- **{slot.chapter}.** " + " ".join(to_commonmark(slot.takeaway, glue_values(nb)).split()))
    return "\n".join(lines)


def session_deck_notebook(
    plan: Plan, decks: Mapping[str, Mapping[str, Any]] | None = None, *, book: Path = BOOK_DIR
) -> dict[str, Any]:
    """Return one deck notebook for ``plan``: a title slide, then per slot a slide naming it and its sections' slides.

    ``decks`` maps a chapter stem to its deck notebook (:func:`coursebuild.slides.deck_notebook`; read from
    ``book`` when missing). Each section's pace cue is re-timed on the session's clock.
    """
    address = site_address()
    card = f"\n\n{site_card_html(address)}" if address else ""
    cells = [
        _markdown_slide(f"# {plan.title}: many adapters, one GPU\n\n{plan.audience}{card}"),
        _notes(
            f"**Speaker notes** ({minutes_text(plan.minutes)} in all)\n\n"
            + "\n".join(f"- {clock(s.start)}: {s.chapter or s.kind} ({minutes_text(s.minutes)})" for s in plan.slots)
        ),
    ]
    for number, slot in enumerate(plan.slots, start=1):
        summary = _summary(plan, book) if slot.kind == "questions" else ""
        if summary:  # the last slot's slide is the summary, left on the screen while the room asks
            when = _slot_slide(slot).split("\n\n", 1)[1]
            cells.append(_markdown_slide(f"# Summary\n\n{summary}\n\nQuestions: {when}{card}"))
        else:
            cells.append(_markdown_slide(_slot_slide(slot) + (card if slot.kind == "questions" else "")))
        cells.append(_notes(_slot_notes(number, plan, slot)))
        deck = (decks or {}).get(slot.deck) or (chapter_deck(slot.deck, book) if slot.deck else None)
        elapsed = slot.start + slot.setup
        for section in slot.sections:
            if deck is None:
                raise ValueError(
                    f"the {slot.kind} slot at minute {slot.start} lists the deck section "
                    f"{section.heading!r} but names no deck ({slot.deck!r})"
                )
            elapsed += section.minutes
            for cell in _section_cells(deck, section.heading):
                if speaker_notes.is_notes(cell):
                    cell["source"] = retime(speaker_notes.source(cell), elapsed=elapsed, total=plan.minutes)
                cells.append(cell)
        cells += _exercise_cells(slot, book)
    first = decks[next(iter(decks))] if decks else chapter_deck(plan.slots[0].deck, book)
    return {
        "cells": cells,
        "metadata": copy.deepcopy(dict(first.get("metadata", {}))),
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def session_deck_sections(plan: Plan, deck: Mapping[str, Any]) -> list[tuple[Slot, Section, int]]:
    """Return ``(slot, section, its first slide in the session deck)`` for every section of ``plan``, in order.

    The session deck may show two sections of one heading (from two chapters): they are matched in order.
    """
    firsts, _ = heading_slides(deck)
    wanted = [(slot, section) for slot in plan.slots for section in slot.sections]
    if [h for h, _ in firsts] != [s.heading for _, s in wanted]:
        raise ValueError(f"the deck of plan {plan.key!r} does not show its sections in the plan's order")
    return [(slot, section, first) for (slot, section), (_, first) in zip(wanted, firsts, strict=True)]


def write_session_decks(
    decks: Mapping[str, Mapping[str, Any]], slides_dir: Path, *, plans: Mapping[str, Plan] | None = None
) -> list[Path]:
    """Write the deck of every plan that names one (``deck:``) into ``slides_dir``; return their paths."""

    plans = load_plans() if plans is None else plans
    writer = DeckWriter()
    return [
        writer.write(session_deck_notebook(plan, decks), slides_dir / f"{plan.deck}{SUFFIX}")
        for plan in plans.values()
        if plan.deck
    ]


def _on_build_finished(app: Any, exception: Exception | None) -> None:
    """Write the plans' own decks beside the chapter decks (after coursebuild.slides has cleared stale ones)."""
    if exception is not None or app.builder.format != "html":
        return

    written = write_session_decks({}, Path(app.outdir) / SLIDES_DIR)
    logging.getLogger(__name__).info(f"[slides] {len(written)} session decks: {', '.join(p.name for p in written)}")


def _say_site_address(app: Any) -> None:
    """Tell the builder whether the handouts and the session deck print the site's address (``html: baseurl``)."""

    address = site_address()
    logger = logging.getLogger(__name__)
    if address:
        logger.info(
            f"[handouts] the site's address {address} and its QR code are on the handouts' first lines and the "
            "session deck's first and last slides (re-execute the handouts after changing it)"
        )
    else:
        logger.info(
            "[handouts] no site address: _config.yml sets no html: baseurl, so the handouts and the session "
            "deck print no address and no QR code; set it to the published site's address, then re-execute "
            "book/handout_*.ipynb"
        )


def setup(app: Any) -> dict[str, Any]:
    """Register the session decks' writer, to run after coursebuild.slides has written the chapter decks."""
    app.connect("builder-inited", _say_site_address)
    app.connect("build-finished", _on_build_finished, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
