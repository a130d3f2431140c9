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
from labcore.checks.slots import fewest_slots_without_wait, grade_base_slots


def test_slot_pool_right_answers():
    # what vLLM allocates: every supported module of Llama-3-8B at rank 64, 8 slots (labcore.engines.lora_slot_bytes)
    assert grade_slot_pool_mb(2818.5).ok and grade_slot_pool_mb(2818.5).message.endswith("2,818.5 MiB.")
    assert grade_slot_pool_mb(704.625, max_lora_rank=16).ok  # at the adapters' own rank when it is the maximum
    assert grade_slot_pool_mb(5637, max_slots=16).ok
    assert grade_slot_pool_mb(2560, target_modules=["qkv_proj", "o_proj", "gate_up_proj", "down_proj"]).ok


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (512, "square formula over the adapters' own targets"),
        (128, "square formula at the adapters' own rank"),
        (704.625, "own rank 16"),
        (2560, "decoder layers only"),
        (576, "only the modules the adapters target"),
        (352.3125, "is one slot"),
        (5637, "4 bytes per parameter"),
        (300, "is not it"),
        (None, "Not answered"),
        ("512", "Expected a number"),
    ],
)
def test_slot_pool_hints(answer, hint):
    verdict = grade_slot_pool_mb(answer)
    assert not verdict.ok and hint in verdict.message, verdict.message


def test_ttft_behind_slots_right_answer():
    assert SLOT_WAIT_EXERCISE[-1][1] == "c"
    assert grade_ttft_behind_slots(2054).ok
    assert grade_ttft_behind_slots(42, max_slots=3).ok  # with a third slot c waits only for its copy and prefill


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (42, "ignores the slot limit"),
        (4054, "waits for the longest request"),
        (2052, "forgets the 2 ms copy"),
        (2014, "stops at the copy"),
        (2064, "measures from 0 ms"),
        (99, "is not it"),
        (None, "Not answered"),
    ],
)
def test_ttft_behind_slots_hints(answer, hint):
    verdict = grade_ttft_behind_slots(answer)
    assert not verdict.ok and hint in verdict.message, verdict.message


def test_stale_hits_right_answer():
    assert len(STALE_EXERCISE) == 5 and grade_stale_hits(2).ok
    assert grade_stale_hits(0, sequence=(("1.0.0", "p1"), ("1.1.0", "p2"))).ok  # nothing cached before the swap


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (0, "registry's key"),
        (3, "never cached"),
        (1, "stops at the first stale hit"),
        (5, "is not it"),
        (2.5, "is not it"),
        (None, "Not answered"),
    ],
)
def test_stale_hits_hints(answer, hint):
    verdict = grade_stale_hits(answer)
    assert not verdict.ok and hint in verdict.message, verdict.message


def test_base_slots_prediction_is_the_replay():
    assert grade_base_slots(9).ok and fewest_slots_without_wait(8, 0.2) == 9
    assert fewest_slots_without_wait(8, 0.2, base_takes_slot=False) == 8  # vLLM's rule: the base needs no slot
    for answer, hint in (
        (8, "vLLM's rule"),
        (16, "one more is enough"),
        (7, "pin"),
        (9.5, "is not it"),
        (12, "Count the distinct ids"),
    ):
        verdict = grade_base_slots(answer)
        assert not verdict.ok and hint in verdict.message, verdict.message


def test_checkers_print_one_line(capsys):
    check_slot_pool_mb(2818.5)
    check_ttft_behind_slots(2054)
    check_stale_hits(2)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and all(line.startswith("✓") for line in lines)
