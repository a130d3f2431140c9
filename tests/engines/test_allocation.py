"""labcore.engines.allocation against buffer shapes written out here from the engines' source.

The shapes below are transcribed, module by module, from the allocation code named in each
comment (the files of labcore.engines.allocation.SOURCES in the vLLM 0.33.0 and SGLang 0.5.23 wheels),
and multiplied here; the dimensions come straight from each config.json, not through
labcore.model_config, and which vLLM classes wrap the embedding from the facts make engines read.
"""

from __future__ import annotations

import math

import pytest

from labcore.engines import (
    LoraBuffer,
    UnknownEngineError,
    UnsupportedModelError,
    buffer_rows,
    lora_buffers,
    lora_slot_bytes,
)
from labcore.engines.releases import release_facts
from labcore.errors import LabcoreError, ModelConfigError
from labcore.model_config import ModelConfig

from .conftest import MIB

S, R = 8, 16  # slots and max rank used throughout; the rank is one vLLM accepts
TIED_BY_DEFAULT = {"gemma2", "gemma3_text"}


def dims(cfg: dict, tp: int) -> dict:
    heads = cfg["num_attention_heads"]
    kv = cfg.get("num_key_value_heads", heads)
    d = cfg.get("head_dim") or cfg["hidden_size"] // heads
    return {
        "h": cfg["hidden_size"],
        "n": cfg["num_hidden_layers"],
        "d": d,
        "heads": heads,
        "kv": kv,
        "i": cfg["intermediate_size"],
        "v": cfg["vocab_size"],
        "type": cfg["model_type"],
        "tied": cfg.get("tie_word_embeddings", cfg["model_type"] in TIED_BY_DEFAULT),
    }


def vllm_shapes(cfg: dict, tp: int) -> dict[str, list[tuple[tuple, tuple, int]]]:
    """(A, B, copies) per module, as vLLM allocates them."""
    x = dims(cfg, tp)
    h, n, d, i = x["h"], x["n"], x["d"], x["i"] // tp
    kv_per_rank = max(1, x["kv"] // tp)  # QKVParallelLinear replicates KV heads below one per rank
    shapes = {
        # column_parallel_linear.py MergedQKVParallelLinearWithLoRA: output_slices (q, kv, kv) per rank;
        # base A (max_loras, 1, max_lora_rank, input_size), B (max_loras, 1, output_slice, max_lora_rank)
        "qkv_proj": [
            ((S, 1, R, h), (S, 1, x["heads"] // tp * d, R), n),
            ((S, 1, R, h), (S, 1, kv_per_rank * d, R), n),
            ((S, 1, R, h), (S, 1, kv_per_rank * d, R), n),
        ],
        # row_parallel_linear.py: input_size = input_size_per_partition, output_size = full
        "o_proj": [((S, 1, R, x["heads"] * d // tp), (S, 1, h, R), n)],
        # MergedColumnParallelLinearWithLoRA: two slices of intermediate_size / tp
        "gate_up_proj": [((S, 1, R, h), (S, 1, i, R), n), ((S, 1, R, h), (S, 1, i, R), n)],
        "down_proj": [((S, 1, R, i), (S, 1, h, R), n)],
    }
    # the model class's embedding_modules at vLLM 0.33.0, as make engines read them (Llama, Phi-3, Qwen3; not
    # Mistral, Gemma or Qwen2)
    if release_facts("vllm")["architectures"][cfg["architectures"][0]]["embedding_modules"]:
        # vocab_parallel_embedding.py: A (max_loras, org_vocab_size, rank), B (max_loras, 1, embedding_dim, rank)
        shapes["embed_tokens"] = [((S, x["v"], R), (S, 1, h, R), 1)]
        # logits_processor.py: A (max_loras, 1, rank, hidden_size), B (max_loras, 1, vocab_size, rank)
        shapes["lm_head"] = [((S, 1, R, h), (S, 1, x["v"], R), 1)]
    return shapes


def sglang_shapes(cfg: dict, tp: int) -> dict[str, list[tuple[tuple, tuple, int]]]:
    """(A, B, copies) per module, as SGLang's LoRAMemoryPool allocates them."""
    x = dims(cfg, tp)
    h, n, d, i = x["h"], x["n"], x["d"], x["i"] // tp
    q = x["heads"] * d
    # _column_parallel_lora_b_per_rank_dim: KV heads fewer than ranks -> q/tp + 2 * head_dim
    qkv_out = (q + 2 * x["kv"] * d) // tp if x["kv"] >= tp else q // tp + 2 * d
    shapes = {
        # get_lora_A_shape (max_loras_per_batch, rank * stacked, input_dim), get_lora_B_shape (.., output_dim, rank)
        "qkv_proj": [((S, 3 * R, h), (S, qkv_out, R), n)],
        "o_proj": [((S, R, q // tp), (S, h, R), n)],  # row-parallel: input divided by tp
        "gate_up_proj": [((S, 2 * R, h), (S, 2 * i, R), n)],
        "down_proj": [((S, R, i), (S, h, R), n)],
        # get_embedding_lora_A_shape keeps the full vocabulary; B unsharded
        "embed_tokens": [((S, R, x["v"]), (S, h, R), 1)],
    }
    # lora_manager.py init_lora_modules: a tied lm_head gets its own ParallelLMHead (sharing the weight) when
    # targeted, so every model has lm_head buffers
    padded = -(-x["v"] // 64) * 64
    shapes["lm_head"] = [((S, R, h), (S, x["v"] if tp == 1 else -(-padded // tp), R), 1)]
    return shapes


def total(shapes: dict, modules=None, dtype_bytes: int = 2) -> int:
    return sum(
        copies * (math.prod(a) + math.prod(b)) * dtype_bytes
        for m, rows in shapes.items()
        if modules is None or m in modules
        for a, b, copies in rows
    )


@pytest.mark.parametrize("tp", [1, 2])
@pytest.mark.parametrize("engine,shapes", [("vllm", vllm_shapes), ("sglang", sglang_shapes)])
def test_every_dense_model_matches_the_source_shapes(dense_model, raw, engine, shapes, tp):
    expected = shapes(raw(dense_model), tp)
    assert lora_slot_bytes(engine, dense_model, slots=S, max_rank=R, tp=tp) == total(expected)
    got = {}
    for b in lora_buffers(engine, dense_model, slots=S, max_rank=R, tp=tp):
        got.setdefault(b.module, []).append((b.a_shape, b.b_shape, b.count))
    assert got == expected


@pytest.mark.parametrize("tp", [1, 2])
@pytest.mark.parametrize("engine,shapes", [("vllm", vllm_shapes), ("sglang", sglang_shapes)])
def test_target_modules_keep_only_their_modules(dense_model, raw, engine, shapes, tp):
    expected = shapes(raw(dense_model), tp)
    # PEFT names select the packed module that carries them: q_proj -> qkv_proj, up_proj -> gate_up_proj
    got = lora_slot_bytes(
        engine, dense_model, slots=S, max_rank=R, tp=tp, target_modules=["q_proj", "up_proj", "o_proj"]
    )
    assert got == total(expected, {"qkv_proj", "gate_up_proj", "o_proj"})
    assert lora_slot_bytes(engine, dense_model, slots=S, max_rank=R, tp=tp, target_modules=["down_proj"]) == total(
        expected, {"down_proj"}
    )


def test_the_worked_llama_3_8b_numbers():
    decoder = ["qkv_proj", "o_proj", "gate_up_proj", "down_proj"]
    # 32 layers x 64 x (3*4096 + 4096+2*1024 + 4096+4096 + 2*(4096+14336) + 14336+4096) x 2 B x 8 = 2,560 MiB
    assert 32 * 64 * 81920 * 2 * 8 == 2560 * MIB
    for engine in ("vllm", "sglang"):
        assert lora_slot_bytes(engine, "llama-3-8b", slots=8, max_rank=64, target_modules=decoder) == 2560 * MIB
        assert lora_slot_bytes(engine, "llama-3-8b", slots=8, max_rank=64, target_modules=["qkv_proj"]) == 576 * MIB
        # embed_tokens and lm_head add 2 x 8 x 64 x (128256 + 4096) x 2 B = 258.5 MiB
        assert lora_slot_bytes(engine, "llama-3-8b", slots=8, max_rank=64) == 2560 * MIB + 271056896
    assert lora_slot_bytes("vllm", "llama-3-8b", slots=8, max_rank=16) / MIB == 704.625


def test_the_square_formula_is_a_fifth_of_what_vllm_allocates():
    # the naive arithmetic: 8 slots x 2*64*4096 x 32 layers x 2 targets (q, v) = 512 MiB; labcore.slots.slot_pool_mb
    # is lora_slot_bytes
    from labcore.slots import slot_pool_mb

    assert lora_slot_bytes("vllm", "llama-3-8b", slots=8, max_rank=64) / MIB / 512 > 5
    assert slot_pool_mb(8, max_lora_rank=64) * MIB == lora_slot_bytes("vllm", "llama-3-8b", slots=8, max_rank=64)


def test_mixture_of_experts_buffers_follow_the_fused_moe_layer():
    # vLLM fused_moe.py FusedMoEWithLoRA: w13 A (max_loras, experts, rank, hidden) x 2 slices,
    # w13 B (max_loras, experts, intermediate/tp, rank) x 2, w2 A (.., rank, intermediate/tp), w2 B (.., hidden, rank);
    # the router (ReplicatedLinear 4096 -> 8) has its own A and B.
    e, h, i, n = 8, 4096, 14336, 32
    experts = n * 2 * ((S * e * R * h) + (S * e * i * R)) + n * (S * e * R * i + S * e * h * R)
    router = n * (S * R * h + S * e * R)
    got = {b.module: 0 for b in lora_buffers("vllm", "mixtral-8x7b", slots=S, max_rank=R)}
    for b in lora_buffers("vllm", "mixtral-8x7b", slots=S, max_rank=R):
        got[b.module] += b.bytes
    assert got["experts"] == experts * 2 and got["gate"] == router * 2
    # SGLang mem_pool.py: gate_up_proj_moe (max_loras, experts, 2*rank, hidden) / (.., experts, 2*moe_inter/tp, rank)
    sg = {b.module: b for b in lora_buffers("sglang", "qwen3-30b-a3b", slots=S, max_rank=R, tp=2)}
    assert sg["gate_up_proj_moe"].a_shape == (S, 128, 2 * R, 2048) and sg["gate_up_proj_moe"].b_shape == (
        S,
        128,
        768,
        R,
    )
    assert sg["down_proj_moe"].a_shape == (S, 128, R, 384) and "lm_head" in sg


def test_the_breakdown_rows_add_up():
    buffers = lora_buffers("vllm", "llama-3-8b", slots=8, max_rank=64)
    rows = buffer_rows(buffers)
    assert [r["module"] for r in rows][:3] == ["qkv_proj"] * 3 and rows[1]["B"] == "8\u00d71\u00d71024\u00d764"
    assert sum(r["mib"] for r in rows) == lora_slot_bytes("vllm", "llama-3-8b", slots=8, max_rank=64) / MIB
    assert all(b.source.startswith("vllm-0.33.0 vllm/") for b in buffers)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"engine": "tgi"}, UnknownEngineError, r"engine must be one of 'vllm', 'sglang', got 'tgi'"),
        ({"model": "llama-9"}, ModelConfigError, r"llama-9: neither a known model"),
        ({"slots": 0}, ValueError, r"slots must be a positive int, got 0"),
        ({"slots": True}, ValueError, r"slots must be a positive int, got True"),
        ({"max_rank": 0}, ValueError, r"max_rank must be a positive int, got 0"),
        (
            {"max_rank": 20},
            ValueError,
            r"vLLM's max_rank must be one of 1, 8, 16, 32, 64, 128, 256, 320, 512, got 20",
        ),
        ({"tp": 0}, ValueError, r"tp must be a positive int, got 0"),
        ({"tp": 3}, ValueError, r"tp must divide llama-3-8b's num_attention_heads 32, got 3"),
        ({"dtype_bytes": 3}, ValueError, r"dtype_bytes must be one of 1, 2, 4, got 3"),
        ({"target_modules": ["foo"]}, ValueError, r"no LoRA buffer for target module 'foo' of llama-3-8b"),
        ({"target_modules": "q_proj"}, ValueError, r"target_modules must be a list or tuple, got the string 'q_proj'"),
        ({"target_modules": []}, ValueError, r"target_modules must name at least one of"),
        (
            {"model": "qwen2.5-7b", "target_modules": ["lm_head"]},
            ValueError,
            r"target module 'lm_head' of qwen2.5-7b \(qwen2\)",
        ),
    ],
)
def test_bad_arguments_are_refused_by_name(kwargs, error, match):
    args = {"engine": "vllm", "model": "llama-3-8b", "slots": 8, "max_rank": 16, **kwargs}
    with pytest.raises(error, match=match):
        lora_slot_bytes(args.pop("engine"), args.pop("model"), **args)


def test_sglang_takes_any_rank_and_its_all():
    assert lora_slot_bytes("sglang", "llama-3-8b", slots=8, max_rank=20, target_modules=["all"]) == lora_slot_bytes(
        "sglang", "llama-3-8b", slots=8, max_rank=20
    )


def test_unmodelled_experts_and_oversized_heads_are_refused_naming_model_and_feature():
    shared = ModelConfig(
        "qwen2-moe-like",
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        model_type="qwen2_moe",
        vocab_size=100,
        num_experts=4,
        num_experts_per_tok=2,
        moe_intermediate_size=32,
        shared_expert_intermediate_size=64,
    )
    for engine in ("vllm", "sglang"):
        with pytest.raises(UnsupportedModelError, match=r"qwen2-moe-like: shared or unlisted experts") as info:
            lora_slot_bytes(engine, shared, slots=1, max_rank=8)
        assert isinstance(info.value, LabcoreError)
    big = ModelConfig(
        "big-vocab",
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=300000,
    )
    with pytest.raises(UnsupportedModelError, match=r"big-vocab: vLLM refuses an lm_head LoRA above 258048"):
        lora_slot_bytes("vllm", big, slots=1, max_rank=8)
    assert lora_slot_bytes("vllm", big, slots=1, max_rank=8, target_modules=["qkv_proj"]) > 0


def test_buffer_records_validate():
    with pytest.raises(ValueError, match=r"a_shape must be a tuple of positive ints, got \(8, 0\)"):
        LoraBuffer("vllm", "o_proj", "", (8, 0), (8, 1), 1, 2, "src")
    with pytest.raises(UnknownEngineError):
        LoraBuffer("tgi", "o_proj", "", (8, 1), (8, 1), 1, 2, "src")
