"""Tests for labcore.checks.real_files: exact adapter size from config.json and peft tensor bytes, with a hint per known mistake."""

from __future__ import annotations

import pytest

from labcore.checks import (
    check_exact_adapter_mb,
    check_peft_tensor_bytes,
    grade_exact_adapter_mb,
    grade_peft_tensor_bytes,
)
from labcore.model_config import exact_adapter_mb, lora_params


def test_right_answers_come_from_model_config():
    assert grade_exact_adapter_mb(exact_adapter_mb("llama-3-8b", 16, ["q", "k", "v", "o"])).ok
    assert grade_exact_adapter_mb(26).ok and not grade_exact_adapter_mb(27).ok
    assert grade_exact_adapter_mb(13.0, targets=("q_proj", "v_proj")).ok
    assert grade_peft_tensor_bytes(4 * lora_params("tiny-llama-demo", 16, ["q", "k", "v", "o"])).ok
    assert grade_peft_tensor_bytes(14_336, rank=8, targets=("q_proj", "v_proj")).ok  # the demo adapter's file


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (32, "naive formula"),
        (52, "4 bytes per parameter"),
        (26 * 2**20 / 1e6, "in MB"),
        (13 * 2**20 / 1e6, "parameters in millions"),
        (26 / 32, "one layer"),
        (13, "is not it"),
    ],
)
def test_exact_size_mistakes_get_specific_hints(answer, hint):
    verdict = grade_exact_adapter_mb(answer)
    assert not verdict.ok and hint in verdict.message


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (28_672, "bf16"),  # also the one-layer value: the first hint wins
        (14_336, "counts parameters"),
        (65_536, "naive d x d"),
        (57_344 + 1_032, "is not it"),  # tensor bytes plus a header: not tensor data
        (57_344.5, "is not it"),
    ],
)
def test_peft_bytes_mistakes_get_specific_hints(answer, hint):
    verdict = grade_peft_tensor_bytes(answer)
    assert not verdict.ok and hint in verdict.message


def test_llama2_has_no_gqa_hint_collision():
    # without GQA the naive formula is the right answer, so it must not be reported as a mistake
    assert grade_exact_adapter_mb(32, model="llama-2-7b").ok


@pytest.mark.parametrize("answer", [None, "26", True])
def test_non_answers_are_explained(answer):
    assert not grade_exact_adapter_mb(answer).ok and not grade_peft_tensor_bytes(answer).ok


def test_check_prints_one_line(capsys):
    check_exact_adapter_mb(26)
    check_peft_tensor_bytes(28_672)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("✓") and lines[1].startswith("✗ 28,672 bytes is bf16")
