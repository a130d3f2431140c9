"""Tests for labcore.quizzes.sizing: chapter 2's quiz says what the sizing formula and PEFT's shapes say."""

from __future__ import annotations

from labcore import adapter_vram_mb
from labcore.capacity import memory_split
from labcore.model_config import exact_adapter_mb, load_model_config, target_dims
from labcore.panels.sizing import gpu_split_panel
from labcore.quizzes import sizing_quiz

from ._helpers import assert_chapter_shape, right


def test_the_quiz_has_the_chapter_shape():
    assert_chapter_shape(sizing_quiz())


def test_the_retrained_adapter_scales_linearly_in_rank_and_targets():
    quiz = sizing_quiz()
    q = quiz.questions[0]
    base = adapter_vram_mb(16, 4096, 32, ["q_proj", "v_proj"])
    assert q.answer == adapter_vram_mb(64, 4096, 32, ["q_proj", "k_proj", "v_proj"]) == base * 4 * 3 / 2
    assert "rank" in quiz.grade(0, base * 4)[1] and "targets" in quiz.grade(0, base * 3 / 2)[1]
    assert "fp32" in quiz.grade(0, 2 * q.answer)[1] and "MB" in quiz.grade(0, q.answer * 2**20 / 1e6)[1]


def test_more_sequences_take_their_gib_from_the_adapter_pool():
    q = sizing_quiz().questions[1]
    exact = exact_adapter_mb("llama-3-8b", 16, ["q_proj", "v_proj"])
    before, after = memory_split(adapter_mb=exact), memory_split(sequences=48, adapter_mb=exact)
    assert (before.kv_gib, after.kv_gib) == (24.0, 48.0)  # one sequence of 8,192 tokens is 1 GiB for Llama-3-8B
    assert (before.adapters_that_fit, after.adapters_that_fit) == (2577, 687)  # 0.9 of 79.6 GiB - 15.0 - KV, / 13 MiB
    assert right(q).text == f"{after.adapters_that_fit:,}"
    assert f"{before.gpu_gib:.1f} GiB as its driver reports it, of which the engine takes 0.9" in q.question
    assert gpu_split_panel().lookup(sequences=48)["adapters"] == after.adapters_that_fit


def test_peft_stores_lora_a_as_rank_by_input_and_lora_b_as_output_by_rank():
    q = sizing_quiz().questions[2]
    d_in, d_out = target_dims(load_model_config("llama-3-8b"), "v_proj")
    assert (d_in, d_out) == (4096, 1024)  # grouped-query attention: the two shapes differ
    assert right(q).text.startswith(f"lora_A is 16 × {d_in:,} and lora_B is {d_out:,} × 16")
    assert right(q).text.endswith("ΔW = B·A")
