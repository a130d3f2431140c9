"""labcore.kv_cache: KV bytes per token from each config, sliding windows counted at their window."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from labcore.kv_cache import kv_bytes_per_sequence, kv_bytes_per_token, kv_layer_windows, tokens_in_bytes
from labcore.model_config import known_models, load_model_config

MIB = 2**20


def test_llama_3_8b_bf16_is_128_kib_a_token_and_a_16_mib_adapter_is_128_tokens():
    # 32 layers x 8 KV heads x 128 head dim x 2 (K and V) x 2 bytes
    assert kv_bytes_per_token("llama-3-8b") == 32 * 8 * 128 * 2 * 2 == 131072
    assert tokens_in_bytes(16 * MIB, "llama-3-8b") == 128
    assert kv_bytes_per_token("llama-3-8b", dtype_bytes=1) == 65536


@pytest.mark.parametrize("name", known_models())
def test_every_model_without_context_costs_layers_x_heads_x_dim_x_2_x_bytes(name):
    raw = json.loads(resources.files("labcore").joinpath("data/models", f"{name}.json").read_text("utf-8"))
    heads = raw["num_attention_heads"]
    d = raw.get("head_dim") or raw["hidden_size"] // heads
    assert kv_bytes_per_token(name) == raw["num_hidden_layers"] * raw.get("num_key_value_heads", heads) * d * 4


def test_which_layers_slide():
    assert kv_layer_windows("gemma-2-9b") == (4096, None) * 21  # alternate, sliding first
    g3 = kv_layer_windows("gemma-3-27b")
    assert g3.count(None) == 10 and g3[5] is None and g3[4] == 1024  # 62 layers: 5 sliding of every 6
    assert set(kv_layer_windows("mistral-7b")) == {4096}
    assert set(kv_layer_windows("phi-3-mini-4k")) == {2047}
    assert set(kv_layer_windows("llama-3-8b")) == {None}
    assert set(kv_layer_windows(load_model_config("mistral-7b"))) == {None}  # a ModelConfig carries no window


def test_sliding_layers_count_their_window_at_long_contexts():
    assert kv_bytes_per_token("mistral-7b", context_tokens=4096) == 131072
    assert kv_bytes_per_token("mistral-7b", context_tokens=8192) == 65536
    # gemma-2-9b: 42 layers x 8 heads x 256 x 4 B; half of them keep 4096 of 8192 tokens
    full = 42 * 8 * 256 * 4
    assert kv_bytes_per_sequence("gemma-2-9b", 8192) == 21 * 8 * 256 * 4 * (8192 + 4096)
    assert kv_bytes_per_token("gemma-2-9b", context_tokens=8192) == full * 3 // 4
    assert kv_bytes_per_sequence("llama-3-8b", 8192) == 8192 * 131072


def test_a_config_dict_with_layer_types_or_no_sliding_is_honoured():
    base = {
        "model_type": "qwen2",
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "sliding_window": 16,
    }
    assert kv_layer_windows({**base, "layer_types": ["sliding_attention", "full_attention"]}) == (16, None)
    assert kv_layer_windows({**base, "use_sliding_window": False}) == (None, None)
    assert kv_layer_windows(base) == (None, None)  # qwen2 slides only when told to


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: kv_bytes_per_token("llama-9"), r"one of \[.*'llama-3-8b'.*\], got 'llama-9'"),
        (lambda: kv_bytes_per_token("llama-3-8b", dtype_bytes=0), r"dtype_bytes must be a positive int, got 0"),
        (lambda: kv_bytes_per_sequence("llama-3-8b", 0), r"context_tokens must be a positive int, got 0"),
        (lambda: tokens_in_bytes(-1, "llama-3-8b"), r"nbytes must be an int >= 0, got -1"),
    ],
)
def test_bad_values_are_named(call, match):
    with pytest.raises(ValueError, match=match):
        call()
