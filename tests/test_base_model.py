"""labcore.base_model: every shipped config is checked against its publisher's parameter count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labcore.base_model import (
    BYTES_PER_PARAM,
    GIB,
    base_param_breakdown,
    base_params,
    base_weights_gib,
    moe_lora_params,
    moe_lora_targets,
    published_params,
)
from labcore.errors import LabcoreError, ModelConfigError
from labcore.model_config import ModelConfig, known_models, load_model_config, lora_params

DATA = Path(__file__).resolve().parents[1] / "labcore" / "data" / "models"
REAL = [n for n in known_models() if n != "tiny-llama-demo"]


def test_the_catalogue_covers_the_families_people_fine_tune() -> None:
    names = set(known_models())
    assert len(REAL) >= 15
    for family in (
        "llama-3.2-",
        "llama-3.1-",
        "mistral-",
        "mixtral-",
        "qwen2.5-",
        "qwen3-",
        "gemma-2-",
        "gemma-3-",
        "phi-3",
    ):
        assert any(n.startswith(family) for n in names), family
    assert {"llama-3.2-1b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "qwen3-30b-a3b", "mixtral-8x7b"} <= names


@pytest.mark.parametrize("name", REAL)
def test_each_config_names_its_sources(name: str) -> None:
    data = json.loads((DATA / f"{name}.json").read_text())
    assert "config.json" in data["_source"] or "config" in data["_source"]
    assert isinstance(data["_published_params"], int) and data["_published_params"] > 0
    assert len(data["_published_params_source"]) > 20
    assert "http" not in json.dumps(data)  # sources are named, not linked


@pytest.mark.parametrize("name", REAL)
def test_derived_count_is_within_one_percent_of_the_published_one(name: str) -> None:
    p = published_params(name)
    assert p is not None and p.derived == base_params(name)
    assert abs(p.error_pct) < 1.0, f"{name}: derived {p.derived} vs published {p.params} ({p.error_pct:+.3f}%)"


def test_the_demo_model_has_no_publisher() -> None:
    assert published_params("tiny-llama-demo") is None
    assert base_params("tiny-llama-demo") == 155968  # 256*64*2 embeddings+head, 2 layers, norms


@pytest.mark.parametrize(
    ("name", "exact"),
    [
        ("llama-3.1-8b", 8030261248),
        ("llama-3.2-1b", 1235814400),
        ("qwen2.5-7b", 7615616512),
        ("qwen3-8b", 8190735360),
        ("gemma-2-9b", 9241705984),
        ("mixtral-8x7b", 46702792704),
        ("qwen3-30b-a3b", 30532122624),
        ("llama-3.1-405b", 405853388800),
    ],
)
def test_each_architecture_feature_is_counted_to_the_parameter(name: str, exact: int) -> None:
    """Tied heads (Llama 3.2), q/k/v biases (Qwen2), q/k norms (Qwen3), four norms (Gemma 2), experts."""
    assert base_params(name) == exact


def test_the_features_move_the_count_by_what_they_hold() -> None:
    base = {
        "model_type": "llama",
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "vocab_size": 100,
        "tie_word_embeddings": False,
    }
    plain = base_params(base)
    assert base_params({**base, "tie_word_embeddings": True}) == plain - 100 * 64
    assert base_params({**base, "model_type": "qwen2"}) == plain + 2 * (64 + 2 * 32)  # q, k, v biases
    assert base_params({**base, "model_type": "qwen3"}) == plain + 2 * 2 * 16  # q_norm, k_norm of head_dim
    assert base_params({**base, "model_type": "gemma2", "tie_word_embeddings": False}) == plain + 2 * 2 * 64
    moe = base_params({**base, "model_type": "mixtral", "num_local_experts": 4, "num_experts_per_tok": 2})
    assert moe == plain + 2 * (3 * 3 * 64 * 128 + 64 * 4)  # three more experts and a router per layer


def test_moe_active_params_count_only_the_routed_experts() -> None:
    b = base_param_breakdown("mixtral-8x7b")
    assert b.active == b.total - 32 * 6 * 3 * 4096 * 14336  # 6 of 8 experts idle per token
    assert round(b.active / 1e9, 1) == 12.9
    assert base_param_breakdown("llama-3.1-8b").active == base_params("llama-3.1-8b")


def test_weights_memory_at_bf16_and_fp8() -> None:
    n = base_params("llama-3.1-70b")
    assert base_weights_gib("llama-3.1-70b") == n * 2 / GIB
    assert base_weights_gib("llama-3.1-70b", dtype="fp8") == n / GIB
    assert BYTES_PER_PARAM["bf16"] == 2 and BYTES_PER_PARAM["fp8"] == 1
    assert round(base_weights_gib("llama-3.1-405b", dtype="fp8"), 1) == 378.0
    with pytest.raises(ModelConfigError, match="unknown dtype 'int3'"):
        base_weights_gib("llama-3.1-8b", dtype="int3")


def test_moe_targets_name_the_modules_each_architecture_has() -> None:
    mix = moe_lora_targets("mixtral-8x7b")
    assert set(mix.experts) == {"w1", "w2", "w3"} and mix.experts["w2"] == (14336, 4096)
    assert mix.router == ("gate", (4096, 8)) and (mix.num_experts, mix.num_experts_per_tok) == (8, 2)
    q3 = moe_lora_targets("qwen3-30b-a3b")
    assert set(q3.experts) == {"gate_proj", "up_proj", "down_proj"} and q3.experts["gate_proj"] == (2048, 768)
    assert q3.attention["k_proj"] == (2048, 512) and q3.attention["o_proj"] == (4096, 2048)


def test_targeting_experts_gives_every_expert_its_own_a_and_b() -> None:
    one = moe_lora_params("qwen3-30b-a3b", 16, ["down_proj"])
    assert one.experts == 48 * 128 * 16 * (768 + 2048) and one.attention == one.router == 0
    both = moe_lora_params("mixtral-8x7b", 16, ["q", "w1", "router"])
    assert both.attention == 32 * 16 * (4096 + 4096)
    assert both.experts == 32 * 8 * 16 * (4096 + 14336)
    assert both.router == 32 * 16 * (4096 + 8)
    assert both.total == both.attention + both.experts + both.router
    assert moe_lora_params("mixtral-8x7b", 16, ["gate"]) == moe_lora_params(
        "mixtral-8x7b", 16, ["router"]
    )  # "gate" is the router
    assert (
        moe_lora_params("mixtral-8x7b", 16, ["w1", "w3"]).experts
        == moe_lora_params("mixtral-8x7b", 16, ["gate_proj", "up_proj"]).experts
    )


def test_attention_only_lora_on_moe_matches_the_dense_count() -> None:

    assert moe_lora_params("mixtral-8x7b", 8, ["q", "k", "v", "o"]).total == lora_params(
        "mistral-7b", 8, ["q", "k", "v", "o"]
    )


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: moe_lora_targets("llama-3.1-8b"), "dense model"),
        (lambda: moe_lora_params("mixtral-8x7b", 0, ["q"]), "rank must be a positive int, got 0"),
        (lambda: moe_lora_params("mixtral-8x7b", 8, ["lm_head"]), "unknown MoE target 'lm_head'"),
        (lambda: moe_lora_params("mixtral-8x7b", 8, ["w1", "gate_proj"]), "module twice"),
        (lambda: moe_lora_params("mixtral-8x7b", 8, []), "at least one"),
        (lambda: moe_lora_params("mixtral-8x7b", 8, "q_proj"), "the string 'q_proj'"),
        (lambda: moe_lora_params("mixtral-8x7b", 8, ["q"]).mb(0), "bytes per parameter"),
        (lambda: published_params("gpt-5"), "not a shipped model"),
        (
            lambda: base_params(
                ModelConfig(
                    "m",
                    hidden_size=8,
                    intermediate_size=8,
                    num_hidden_layers=1,
                    num_attention_heads=2,
                    num_key_value_heads=2,
                )
            ),
            "vocab_size is missing",
        ),
    ],
)
def test_bad_requests_are_refused_with_the_valid_choices(call, match: str) -> None:
    with pytest.raises(ModelConfigError, match=match) as info:
        call()
    assert isinstance(info.value, LabcoreError)


def test_an_unknown_moe_architecture_is_refused_not_guessed() -> None:
    cfg = ModelConfig.from_dict(
        {
            "model_type": "olmoe",
            "hidden_size": 64,
            "intermediate_size": 64,
            "num_hidden_layers": 1,
            "num_attention_heads": 4,
            "num_experts": 8,
            "num_experts_per_tok": 2,
            "vocab_size": 10,
        }
    )
    assert base_params(cfg) > 0  # the count needs no module names
    with pytest.raises(ModelConfigError, match="expert module names of model_type 'olmoe' are not known"):
        moe_lora_targets(cfg)


def test_every_shipped_config_loads_with_its_features() -> None:
    for name in known_models():
        cfg = load_model_config(name)
        assert cfg.vocab_size is not None
        assert cfg.is_moe == (name in {"mixtral-8x7b", "qwen3-30b-a3b"})
    assert load_model_config("qwen2.5-7b").attention_bias and not load_model_config("qwen3-8b").attention_bias
    assert load_model_config("qwen3-8b").qk_norm and load_model_config("gemma-3-1b").qk_norm
    assert load_model_config("gemma-2-9b").tie_word_embeddings and load_model_config("gemma-2-9b").norms_per_layer == 4
    assert load_model_config("qwen3-30b-a3b").moe_intermediate_size == 768
    assert load_model_config("mixtral-8x7b").moe_intermediate_size == 14336


@pytest.mark.parametrize(
    "name",
    [
        "qwen3-30b-a3b",
        "mixtral-8x7b",
        "gemma-2-9b",
        "gemma-3-1b",
        "gemma-3-12b",
        "phi-3-mini-4k",
        "phi-4",
        "qwen2.5-7b",
    ],
)
def test_the_derivation_agrees_with_transformers_own_model_classes(name: str) -> None:
    """Built on the meta device (no weights, no download): the parameter tensors transformers allocates."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    config = {k: v for k, v in json.loads((DATA / f"{name}.json").read_text()).items() if not k.startswith("_")}
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(transformers.AutoConfig.for_model(**config))
    assert sum(p.numel() for p in model.parameters()) == base_params(name)
