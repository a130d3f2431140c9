"""The session plans fit their slots by the decks' own timings, name real slides, and make one deck and a handout."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from coursebuild import session_plans
from coursebuild.session_plans import clock, deck_sections, load_plans, plan_markdown, session_deck_notebook
from coursebuild.speaker_notes import is_notes, load_notes, section_minutes, source

PLANS = load_plans()


def _plan_file(tmp_path: Path, slots: list[dict], minutes: float) -> Path:
    path = tmp_path / "plans.yml"
    path.write_text(yaml.safe_dump({"x": {"title": "X", "minutes": minutes, "slots": slots}}), encoding="utf-8")
    return path


def test_the_plans_are_the_sixty_minute_session_and_the_three_hour_workshop() -> None:
    assert {key: plan.minutes for key, plan in PLANS.items()} == {"60min": 60, "3h": 180}
    assert PLANS["60min"].deck and all(plan.handout for plan in PLANS.values())


@pytest.mark.parametrize("key", sorted(PLANS))
def test_every_slot_fits_and_the_slots_fill_the_plan(key: str) -> None:
    plan, notes = PLANS[key], load_notes()
    assert sum(slot.minutes for slot in plan.slots) == plan.minutes
    for slot in plan.slots:
        timed = section_minutes(notes[slot.deck]) if slot.deck else {}
        used = sum(timed[s.heading] for s in slot.sections) + slot.setup
        assert used <= slot.minutes, f"{key} at {clock(slot.start)}: {used} min of sections in {slot.minutes}"
        assert [s.minutes for s in slot.sections] == [timed[s.heading] for s in slot.sections]


@pytest.mark.parametrize("key", sorted(PLANS))
def test_each_section_names_the_slides_its_deck_gives_it(key: str) -> None:
    for slot in PLANS[key].slots:
        if not slot.deck:
            continue
        deck = session_plans._chapter_deck(slot.deck, session_plans.BOOK_DIR)
        where, total = deck_sections(deck)
        for section in slot.sections:
            assert (section.first, section.last) == where[section.heading] and section.last <= total


def test_a_slot_whose_sections_overrun_it_is_refused(tmp_path: Path) -> None:
    """Chapter 1's bill (3 min) and its panel (4 min) do not fit 5 minutes: the plan does not load."""
    slots = [{"deck": "01_why_multi_lora", "minutes": 5,
              "sections": ["The bill for 40 tenants", "Move the tenants, the price, the adapter and the load"]}]
    with pytest.raises(ValueError, match=r"has 5 min, but its sections take 7 min"):
        load_plans(_plan_file(tmp_path, slots, 5))


@pytest.mark.parametrize("slots, minutes, message", [
    ([{"kind": "questions", "minutes": 10}], 15, "add up to 10 min, not 15 min"),
    ([{"deck": "01_why_multi_lora", "minutes": 5, "sections": ["The bill"]}], 5, "has no section 'The bill'"),
    ([{"deck": "01_why_multi_lora", "minutes": 5, "sections": ["The bill for 40 tenants"], "give": ["2.1"]}], 5,
     "'2.1' is not a compute or predict exercise"),
    ([{"deck": "99_no_such_chapter", "minutes": 5}], 5, "does not exist"),
    ([{"kind": "lunch", "minutes": 5}], 5, "kind 'lunch'"),
])
def test_a_plan_that_names_what_is_not_there_is_refused(tmp_path: Path, slots: list, minutes: int, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        load_plans(_plan_file(tmp_path, slots, minutes))


@pytest.mark.parametrize("key", sorted(PLANS))
def test_the_plan_table_has_a_row_per_slot_with_its_time_and_slides(key: str) -> None:
    plan = PLANS[key]
    rows = plan_markdown(plan).splitlines()[2:]
    assert len(rows) == len(plan.slots)
    for row, slot in zip(rows, plan.slots):
        assert row.startswith(f"| {clock(slot.start)}-{clock(slot.end)} |")
        assert all(f"slides {s.slides})" in row for s in slot.sections)


def test_the_session_deck_shows_the_plans_sections_in_order_with_its_own_clock() -> None:
    plan = PLANS["60min"]
    deck = session_deck_notebook(plan)
    shown = session_plans.session_deck_sections(plan, deck)
    assert [section.heading for _, section, _ in shown] == [s.heading for slot in plan.slots for s in slot.sections]
    cues = [source(c) for c in deck["cells"] if is_notes(c) and source(c).startswith("**Speaker notes: ")
            and "min by its end)" in source(c).split("\n", 1)[0]]
    ends = [float(m[1]) for c in cues if (m := re.search(r"; ([\d.]+) of 60 min by its end", c))]
    expected, elapsed = [], 0.0
    for slot in plan.slots:
        elapsed = slot.start + slot.setup
        for section in slot.sections:
            elapsed += section.minutes
            expected.append(elapsed)
    assert ends == expected
    assert len(cues) == len(expected), "a section's pace cue was not carried into the session deck"
