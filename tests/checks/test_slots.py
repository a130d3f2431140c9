"""Tests for labcore.checks.slots and labcore.checks.prefix_cache: the right answers pass, each known mistake gets its hint."""

from __future__ import annotations

import pytest

from labcore.checks import (
    SLOT_WAIT_EXERCISE,
    STALE_EXERCISE,
    check_slot_pool_mb,
    check_stale_hits,
    check_ttft_behind_slots,
    grade_slot_pool_mb,
    grade_stale_hits,
    grade_ttft_behind_slots,
)


def test_slot_pool_right_answers():
    assert grade_slot_pool_mb(512).ok and grade_slot_pool_mb(512.0).ok
    assert grade_slot_pool_mb(128, max_lora_rank=16).ok  # slots at the adapters' own rank when it is the maximum
    assert grade_slot_pool_mb(1024, max_slots=16).ok


@pytest.mark.parametrize(("answer", "hint"), [
    (128, "own rank 16"), (64, "is one slot"), (16, "one adapter at its own rank"), (256, "only A or only B"),
    (1024, "4 bytes per parameter"), (300, "is not it"), (None, "Not answered"), ("512", "Expected a number"),
])
def test_slot_pool_hints(answer, hint):
    verdict = grade_slot_pool_mb(answer)
    assert not verdict.ok and hint in verdict.message, verdict.message


def test_ttft_behind_slots_right_answer():
    assert SLOT_WAIT_EXERCISE[-1][1] == "c"
    assert grade_ttft_behind_slots(2054).ok
    assert grade_ttft_behind_slots(42, max_slots=3).ok  # with a third slot c waits only for its copy and prefill


@pytest.mark.parametrize(("answer", "hint"), [
    (42, "ignores the slot limit"), (4054, "waits for the longest request"), (2052, "forgets the 2 ms copy"),
    (2014, "stops at the copy"), (2064, "measures from 0 ms"), (99, "is not it"), (None, "Not answered"),
])
def test_ttft_behind_slots_hints(answer, hint):
    verdict = grade_ttft_behind_slots(answer)
    assert not verdict.ok and hint in verdict.message, verdict.message


def test_stale_hits_right_answer():
    assert len(STALE_EXERCISE) == 5 and grade_stale_hits(2).ok
    assert grade_stale_hits(0, sequence=(("1.0.0", "p1"), ("1.1.0", "p2"))).ok  # nothing cached before the swap


@pytest.mark.parametrize(("answer", "hint"), [
    (0, "registry's key"), (3, "never cached"), (1, "stops at the first stale hit"), (5, "is not it"),
    (2.5, "is not it"), (None, "Not answered"),
])
def test_stale_hits_hints(answer, hint):
    verdict = grade_stale_hits(answer)
    assert not verdict.ok and hint in verdict.message, verdict.message


def test_checkers_print_one_line(capsys):
    check_slot_pool_mb(512)
    check_ttft_behind_slots(2054)
    check_stale_hits(2)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and all(line.startswith("✓") for line in lines)
