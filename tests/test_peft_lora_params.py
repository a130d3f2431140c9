"""labcore.model_config.peft_lora_params: the exact A/B count of a PEFT LoraConfig on a published model.

These run without torch; tests/test_peft_variants.py checks the same function against adapters the
real peft wrote.
"""

from __future__ import annotations

import pytest

from labcore.errors import AdapterFileError, ModelConfigError
from labcore.model_config import lora_params, peft_lora_params, peft_modules

QV = {"r": 16, "lora_alpha": 32, "target_modules": ["q_proj", "v_proj"]}
L3 = {"hidden": 4096, "kv": 1024, "inter": 14336, "vocab": 128256, "layers": 32}


def test_plain_targets_agree_with_lora_params() -> None:
    assert peft_lora_params("llama-3-8b", QV) == lora_params("llama-3-8b", 16, ["q", "v"])
    all7 = {**QV, "target_modules": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]}
    assert peft_lora_params("llama-3-8b", all7) == lora_params("llama-3-8b", 16, list(all7["target_modules"]))


def test_gqa_shapes_are_the_real_ones() -> None:
    k_only = peft_lora_params("llama-3-8b", {**QV, "target_modules": ["k_proj"]})
    assert k_only == L3["layers"] * 16 * (L3["hidden"] + L3["kv"])


def test_rank_pattern_and_layers_to_transform() -> None:
    pattern = peft_lora_params("llama-3-8b", {**QV, "rank_pattern": {"v_proj": 64}})
    assert pattern == L3["layers"] * (16 * 2 * L3["hidden"] + 64 * (L3["hidden"] + L3["kv"]))
    half = peft_lora_params("llama-3-8b", {**QV, "layers_to_transform": list(range(0, 32, 2))})
    assert 2 * half == peft_lora_params("llama-3-8b", QV)  # the 2x over-count, fixed
    one = peft_lora_params("llama-3-8b", {**QV, "rank_pattern": {"layers.3.self_attn.q_proj": 4}})
    assert one == peft_lora_params("llama-3-8b", QV) - 12 * 2 * L3["hidden"]


def test_all_linear_leaves_out_the_head_and_embeddings_count_with_the_vocabulary() -> None:
    all_linear = peft_lora_params("llama-3-8b", {**QV, "target_modules": "all-linear"})
    assert all_linear == lora_params("llama-3-8b", 16, ["q", "k", "v", "o", "gate", "up", "down"])
    emb = peft_lora_params(
        "llama-3-8b", {**QV, "target_modules": ["embed_tokens"], "rank_pattern": {"embed_tokens": 32}}
    )
    assert emb == 32 * (L3["vocab"] + L3["hidden"])
    head = peft_lora_params("llama-3-8b", {**QV, "target_modules": ["lm_head"]})
    assert head == 16 * (L3["hidden"] + L3["vocab"])
    assert peft_lora_params("llama-3-8b", {**QV, "target_modules": ["lm_head"], "modules_to_save": ["lm_head"]}) == 0


def test_regex_and_exclude_follow_peft() -> None:
    regex = peft_lora_params("llama-3-8b", {**QV, "target_modules": r".*\.layers\.(0|1)\.self_attn\.(q|v)_proj"})
    assert regex * 16 == peft_lora_params("llama-3-8b", QV)
    excluded = peft_lora_params(
        "llama-3-8b", {**QV, "target_modules": "all-linear", "exclude_modules": ["mlp.down_proj"]}
    )
    assert excluded == lora_params("llama-3-8b", 16, ["q", "k", "v", "o", "gate", "up"])


def test_moe_routers_and_experts() -> None:
    mixtral = {"layers": 32, "experts": 8, "hidden": 4096, "inter": 14336}
    routers = peft_lora_params("mixtral-8x7b", {**QV, "target_modules": ["gate"]})
    assert routers == mixtral["layers"] * 16 * (mixtral["hidden"] + mixtral["experts"])
    experts = peft_lora_params("mixtral-8x7b", {**QV, "target_modules": ["w1", "w2", "w3"]})
    assert experts == mixtral["layers"] * mixtral["experts"] * 3 * 16 * (mixtral["hidden"] + mixtral["inter"])
    qwen_moe = peft_lora_params("qwen3-30b-a3b", {**QV, "target_modules": ["mlp.gate"]})
    assert qwen_moe == 48 * 16 * (2048 + 128)
    assert ("model.layers.0.mlp.experts.127.down_proj", "linear", 768, 2048) in peft_modules("qwen3-30b-a3b")


def test_gpt2_layout() -> None:
    gpt2 = {"model_type": "gpt2", "vocab_size": 50257, "n_embd": 768, "n_layer": 12, "n_head": 12}
    assert peft_lora_params(gpt2, {**QV, "target_modules": ["c_attn"]}) == 12 * 16 * (768 + 3 * 768)
    assert peft_lora_params(gpt2, {**QV, "target_modules": ["mlp.c_proj"]}) == 12 * 16 * (4 * 768 + 768)


def test_bad_inputs_are_named() -> None:
    with pytest.raises(ModelConfigError, match="one of"):
        peft_lora_params("no-such-model", QV)
    with pytest.raises(ModelConfigError, match="lora_config must be"):
        peft_lora_params("llama-3-8b", ["q_proj"])  # type: ignore[arg-type]
    with pytest.raises(AdapterFileError, match="target_parameters"):
        peft_lora_params("mixtral-8x7b", {**QV, "target_parameters": ["experts.gate_up_proj"]})
    with pytest.raises(ModelConfigError, match="vocab_size"):
        peft_lora_params({"hidden_size": 64}, QV)
