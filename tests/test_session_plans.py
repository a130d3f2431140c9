"""The session plans fit their slots by the decks' own timings, name real slides, and make one deck and a handout."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from coursebuild import session_deck, session_plans
from coursebuild.session_deck import session_deck_notebook, session_deck_sections
from coursebuild.session_plans import clock, deck_sections, load_plans, plan_markdown
from coursebuild.speaker_notes import is_notes, load_notes, section_minutes, source
from labcore.capacity import memory_split
from labcore.contract import LAB_MODULES, run_contract_suite
from labcore.model_config import exact_adapter_mb

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
        room = slot.teaching if slot.kind in ("deck", "lab") else slot.minutes
        assert used <= room, f"{key} at {clock(slot.start)}: {used} min of sections in {room} min of teaching"
        assert [s.minutes for s in slot.sections] == [timed[s.heading] for s in slot.sections]


@pytest.mark.parametrize("key", sorted(PLANS))
def test_each_section_names_the_slides_its_deck_gives_it(key: str) -> None:
    for slot in PLANS[key].slots:
        if not slot.deck:
            continue
        deck = session_plans.chapter_deck(slot.deck, session_plans.BOOK_DIR)
        where, total = deck_sections(deck)
        for section in slot.sections:
            assert (section.first, section.last) == where[section.heading] and section.last <= total


@pytest.mark.parametrize("key", sorted(PLANS))
def test_every_slot_states_teaching_and_exercise_minutes_and_the_room_gets_its_exercises(key: str) -> None:
    """As the Carpentries' lesson plans do: each deck or lab slot states both, and each exercise given has minutes."""
    raw = yaml.safe_load(session_plans.PLANS_FILE.read_text(encoding="utf-8"))[key]["slots"]
    for slot, entry in zip(PLANS[key].slots, raw, strict=True):
        if slot.kind in ("deck", "lab"):
            assert {"teaching", "exercises"} <= set(entry) and slot.minutes == slot.teaching + slot.exercises
            assert bool(slot.give) == (slot.exercises > 0) or slot.kind == "lab"


def test_the_sixty_minute_plan_gives_the_room_ten_minutes_for_two_or_three_exercises() -> None:
    plan = PLANS["60min"]
    assert sum(slot.exercises for slot in plan.slots) >= 10 and 2 <= len(plan.exercises) <= 3


def test_a_slot_whose_sections_overrun_it_is_refused(tmp_path: Path) -> None:
    """Chapter 1's bill (3 min) and its panel (4 min) do not fit 5 minutes of teaching: the plan does not load."""
    slots = [
        {
            "deck": "01_why_multi_lora",
            "teaching": 5,
            "exercises": 0,
            "sections": ["The bill for 40 tenants", "Move the tenants, the price, the adapter and the load"],
        }
    ]
    with pytest.raises(ValueError, match=r"has 5 min of teaching, but its sections take 7 min"):
        load_plans(_plan_file(tmp_path, slots, 5))


BILL = {"deck": "01_why_multi_lora", "sections": ["The bill for 40 tenants"]}


@pytest.mark.parametrize(
    "slot, message",
    [
        (
            {**BILL, "teaching": 3, "exercises": 0, "give": ["1.2"]},
            "the slot at 0:00 (01_why_multi_lora) gives the room exercise(s) 1.2 but no minutes for them",
        ),
        ({**BILL, "teaching": 3, "give": ["1.2"]}, "(01_why_multi_lora) must state its teaching and exercise minutes"),
        (
            {**BILL, "minutes": 3},
            "must state its teaching and exercise minutes (teaching: N, exercises: N), not minutes",
        ),
        ({**BILL, "teaching": 1, "exercises": 2}, "has 2 exercise minutes but gives the room no exercise"),
    ],
)
def test_a_slot_without_minutes_for_its_exercises_is_refused(tmp_path: Path, slot: dict, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        load_plans(_plan_file(tmp_path, [slot], 3))


@pytest.mark.parametrize("modules", [["versions", "registry"], ["sizing"], []])
def test_a_lab_slot_out_of_the_modules_dependency_order_is_refused(tmp_path: Path, modules: list) -> None:
    slot = {
        "kind": "lab",
        "deck": "07_do_the_lab",
        "teaching": 2,
        "exercises": 10,
        "sections": ["Red first"],
        "modules": modules,
    }
    with pytest.raises(ValueError, match=re.escape(f"names modules {modules}; a lab slot names the first modules")):
        load_plans(_plan_file(tmp_path, [slot], 12))


@pytest.mark.parametrize(
    "slots, minutes, message",
    [
        ([{"kind": "questions", "minutes": 10}], 15, "add up to 10 min, not 15 min"),
        (
            [{"deck": "01_why_multi_lora", "teaching": 5, "exercises": 0, "sections": ["The bill"]}],
            5,
            "has no section 'The bill'",
        ),
        (
            [
                {
                    "deck": "01_why_multi_lora",
                    "teaching": 5,
                    "exercises": 0,
                    "sections": ["Why it works: the adapter is small"],
                }
            ],
            5,
            "chapter 01_why_multi_lora's manifest offers no section 'Why it works: the adapter is small'",
        ),
        (
            [
                {
                    "deck": "01_why_multi_lora",
                    "teaching": 3,
                    "exercises": 2,
                    "sections": ["The bill for 40 tenants"],
                    "give": ["2.1"],
                }
            ],
            5,
            "'2.1' is not a compute or predict exercise",
        ),
        ([{"deck": "99_no_such_chapter", "teaching": 5, "exercises": 0}], 5, "does not exist"),
        ([{"kind": "lunch", "minutes": 5}], 5, "kind 'lunch'"),
    ],
)
def test_a_plan_that_names_what_is_not_there_is_refused(
    tmp_path: Path, slots: list, minutes: int, message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        load_plans(_plan_file(tmp_path, slots, minutes))


def test_a_plan_that_names_a_notebook_without_a_manifest_is_refused(tmp_path: Path) -> None:
    """A deck's sections are offered by its chapter's manifest: a notebook that has none offers nothing."""
    book = tmp_path / "book"
    book.mkdir()
    shutil.copy(session_plans.BOOK_DIR / "01_why_multi_lora.ipynb", book / "00_no_manifest.ipynb")
    slot = {"deck": "00_no_manifest", "teaching": 5, "exercises": 0, "sections": ["The bill for 40 tenants"]}
    notes = {"00_no_manifest": load_notes()["01_why_multi_lora"]}
    with pytest.raises(ValueError, match="deck 00_no_manifest has no chapter manifest"):
        load_plans(_plan_file(tmp_path, [slot], 5), book=book, notes=notes)


@pytest.mark.parametrize("key", sorted(PLANS))
def test_the_plan_table_has_a_row_per_slot_with_its_time_and_slides(key: str) -> None:
    plan = PLANS[key]
    rows = plan_markdown(plan).splitlines()[2:]
    assert len(rows) == len(plan.slots)
    for row, slot in zip(rows, plan.slots, strict=True):
        assert row.startswith(f"| {clock(slot.start)}-{clock(slot.end)} |")
        if slot.kind in ("deck", "lab"):
            assert f"| {slot.teaching:g} min | {slot.exercises:g} min |" in row
        assert all(f"{s.slides})" in row for s in slot.sections)


def test_the_session_deck_shows_the_plans_sections_in_order_with_its_own_clock() -> None:
    plan = PLANS["60min"]
    deck = session_deck_notebook(plan)
    shown = session_deck_sections(plan, deck)
    assert [section.heading for _, section, _ in shown] == [s.heading for slot in plan.slots for s in slot.sections]
    cues = [
        source(c)
        for c in deck["cells"]
        if is_notes(c)
        and source(c).startswith("**Speaker notes: ")
        and "min by its end)" in source(c).split("\n", 1)[0]
    ]
    ends = [float(m[1]) for c in cues if (m := re.search(r"; ([\d.]+) of 60 min by its end", c))]
    expected, elapsed = [], 0.0
    for slot in plan.slots:
        elapsed = slot.start + slot.setup
        for section in slot.sections:
            elapsed += section.minutes
            expected.append(elapsed)
    assert ends == expected
    assert len(cues) == len(expected), "a section's pace cue was not carried into the session deck"


@pytest.mark.parametrize("key", sorted(k for k, plan in PLANS.items() if any(s.kind == "lab" for s in plan.slots)))
def test_the_lab_block_names_modules_the_reference_turns_green_in_dependency_order(key: str) -> None:
    """The workshop's lab goal is reachable: the reference passes exactly the modules the plan names, in order."""

    lab = next(slot for slot in PLANS[key].slots if slot.kind == "lab")
    assert lab.modules == LAB_MODULES[: len(lab.modules)] and len(lab.modules) >= 2
    assert lab.hands_on.startswith("Everyone: " + ", ".join(f"{m}.py" for m in lab.modules[:-1]))
    run = run_contract_suite("labcore", modules=lab.modules, root=session_plans.ROOT)
    assert [(m.module, m.green) for m in run.modules] == [(m, True) for m in lab.modules], run.table()
    assert run.passed > 0 and run.failed == run.errors == 0


NOTE_PARTS = ("**Say:**", "**Ask", "**Next:**")  # what to say, what to ask the room, how to hand over


@pytest.mark.parametrize("key", sorted(PLANS))
def test_every_sections_notes_say_what_to_say_ask_and_how_to_hand_over(key: str) -> None:
    notes, missing = load_notes(), []
    for slot in PLANS[key].slots:
        texts = {s.heading: notes[slot.deck]["sections"][s.heading] for s in slot.sections}
        for heading, entry in texts.items():
            text = str(entry.get("notes", "")) + "".join(map(str, (entry.get("at") or {}).values()))
            missing += [f"{slot.deck}: {heading}: {part}" for part in NOTE_PARTS if part not in text]
        if slot.kind in ("break", "questions"):
            missing += [f"{slot.kind} at {clock(slot.start)}: {part}" for part in NOTE_PARTS if part not in slot.notes]
    assert not missing, "speaker notes without " + "; ".join(missing)


def test_the_session_deck_ends_on_a_summary_then_questions_and_hands_over_between_slots() -> None:
    plan = PLANS["60min"]
    deck = session_deck_notebook(plan)
    slides = [
        source(c)
        for c in deck["cells"]
        if not is_notes(c) and c["metadata"].get("slideshow", {}).get("slide_type") in ("slide", "subslide")
    ]
    summary = next(i for i, text in enumerate(slides) if text.startswith("# Summary"))
    assert summary == len(slides) - 1 and "Questions: " in slides[summary], "the deck does not end on its summary"
    takeaways = [s for s in plan.slots if s.takeaway]
    assert slides[summary].count("\n- **") == len(takeaways) >= 4 and "{glue" not in slides[summary]
    handovers = [source(c) for c in deck["cells"] if is_notes(c) and "**Hand over at " in source(c)]
    assert len(handovers) == len(plan.slots) - 1


def _deck_text(deck: dict) -> str:
    parts = []
    for cell in deck["cells"]:
        parts.append(source(cell))
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            parts.append(str(data.get("text/markdown") or data.get("text/plain") or output.get("text", "")))
    return "\n".join(parts)


def test_the_session_deck_quotes_one_value_per_quantity() -> None:
    """The adapters that fit in the default split: the deck quotes the square formula's count or the exact one, never
    both (the 60-minute deck once said 2,604 on one slide and 3,205 on four others)."""

    text = _deck_text(session_deck_notebook(PLANS["60min"]))
    counts = {
        size: memory_split("llama-3-8b", "H100-80GB", adapter_mb=size).adapters_that_fit
        for size in (16.0, exact_adapter_mb("llama-3-8b", 16, ["q_proj", "v_proj"]))
    }
    quoted = {size: n for size, n in counts.items() if re.search(rf"(?<![\d,]){n:,}(?![\d,])", text)}
    assert len(quoted) == 1, f"the deck quotes {quoted} adapters (MiB: count) for the same GPU split"


def test_the_session_deck_shows_the_sites_address_and_qr_code_only_when_one_is_set(monkeypatch) -> None:  # noqa: ANN001

    plan = PLANS["60min"]
    monkeypatch.setattr(session_deck, "site_address", lambda: "https://course.example.org/")
    slides = [source(c) for c in session_deck_notebook(plan)["cells"] if not is_notes(c)]
    with_card = [s for s in slides if 'alt="QR code of https://course.example.org/"' in s]
    assert with_card == [slides[0], slides[-1]], "the address opens and closes the deck"
    monkeypatch.setattr(session_deck, "site_address", lambda: "")
    assert not any(
        'class="site-card"' in s or "QR code of" in s for s in map(source, session_deck_notebook(plan)["cells"])
    )
