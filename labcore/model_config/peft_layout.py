"""Lay out a LoRA as PEFT does: every module a LoraConfig adapts in a model, each with its own rank.

PEFT's rules (:mod:`labcore.peft_files.peft_config`) decide which of a model's modules
(:func:`peft_modules`) a LoraConfig adapts and with what rank; :func:`peft_lora_params` sums
``rank * (in + out)`` over them, MoE routers, experts and embeddings included.

>>> len(peft_modules("llama-3-8b")), peft_modules("llama-3-8b")[0]
(226, ('model.embed_tokens', 'embedding', 128256, 4096))
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._validate import count
from ..errors import ModelConfigError
from ..peft_files.peft_config import parse_lora_config
from .config import ModelConfig, raw_model_config
from .exact import target_dims

__all__ = ["peft_modules", "peft_lora_params"]


def _dims(cfg: Mapping[str, Any], *keys: str, default: int | None = None) -> int:
    for key in keys:
        value = cfg.get(key)
        if value is not None:
            return count(f"{cfg.get('model_type', 'config')}: {key}", value, error=ModelConfigError)
    if default is not None:
        return default
    raise ModelConfigError(f"config lacks {' or '.join(keys)}; cannot lay out its modules")


def peft_modules(config: Mapping[str, Any] | str) -> tuple[tuple[str, str, int, int], ...]:
    """Return every module PEFT could adapt in a model: ``(path, kind, in_features, out_features)``.

    Paths are those of the transformers model (``model.layers.0.self_attn.q_proj``), kinds
    ``'linear'`` or ``'embedding'`` (an embedding's ``in_features`` is its vocabulary). Covered:
    Llama-style decoders (Llama, Mistral, Qwen2/3, Gemma, Phi-3 style names), Mixtral (router
    ``block_sparse_moe.gate`` and experts ``w1``/``w3``/``w2`` as in its published checkpoints),
    Qwen MoE (router ``mlp.gate`` and experts' ``gate_proj``/``up_proj``/``down_proj``) and GPT-2.
    ``config`` is a parsed ``config.json`` (or a shipped model name).

    >>> [m for m in peft_modules("mixtral-8x7b") if ".0.block_sparse_moe.gate" in m[0]]
    [('model.layers.0.block_sparse_moe.gate', 'linear', 4096, 8)]
    """
    cfg = raw_model_config(config)
    vocab = _dims(cfg, "vocab_size")
    out: list[tuple[str, str, int, int]] = []
    if cfg.get("model_type") == "gpt2":
        h, layers = _dims(cfg, "n_embd", "hidden_size"), _dims(cfg, "n_layer", "num_hidden_layers")
        inner = _dims(cfg, "n_inner", default=4 * h)
        out.append(("transformer.wte", "embedding", vocab, h))
        for i in range(layers):
            p = f"transformer.h.{i}"
            out += [
                (f"{p}.attn.c_attn", "linear", h, 3 * h),
                (f"{p}.attn.c_proj", "linear", h, h),
                (f"{p}.mlp.c_fc", "linear", h, inner),
                (f"{p}.mlp.c_proj", "linear", inner, h),
            ]
        out.append(("lm_head", "linear", h, vocab))
        return tuple(out)
    dims = ModelConfig.from_dict(cfg, name=str(cfg.get("model_type", "config")))
    h = dims.hidden_size
    out.append(("model.embed_tokens", "embedding", vocab, h))
    for i in range(dims.num_hidden_layers):
        p = f"model.layers.{i}"
        for t in ("q_proj", "k_proj", "v_proj", "o_proj"):
            out.append((f"{p}.self_attn.{t}", "linear", *target_dims(dims, t)))
        if cfg.get("num_local_experts"):  # Mixtral
            experts = _dims(cfg, "num_local_experts")
            out.append((f"{p}.block_sparse_moe.gate", "linear", h, experts))
            for j in range(experts):
                e = f"{p}.block_sparse_moe.experts.{j}"
                out += [
                    (f"{e}.w1", "linear", h, dims.intermediate_size),
                    (f"{e}.w3", "linear", h, dims.intermediate_size),
                    (f"{e}.w2", "linear", dims.intermediate_size, h),
                ]
        elif cfg.get("num_experts"):  # Qwen MoE
            experts, inter = _dims(cfg, "num_experts"), _dims(cfg, "moe_intermediate_size", "intermediate_size")
            out.append((f"{p}.mlp.gate", "linear", h, experts))
            for j in range(experts):
                e = f"{p}.mlp.experts.{j}"
                out += [
                    (f"{e}.gate_proj", "linear", h, inter),
                    (f"{e}.up_proj", "linear", h, inter),
                    (f"{e}.down_proj", "linear", inter, h),
                ]
        else:
            for t in ("gate_proj", "up_proj", "down_proj"):
                out.append((f"{p}.mlp.{t}", "linear", *target_dims(dims, t)))
    out.append(("lm_head", "linear", h, vocab))
    return tuple(out)


def peft_lora_params(config: Mapping[str, Any] | str, lora_config: Mapping[str, Any]) -> int:
    """Return the exact ``A``/``B`` parameter count of a PEFT LoRA: ``sum(rank * (in + out))`` over adapted modules.

    ``lora_config`` is the LoraConfig as saved in ``adapter_config.json``; PEFT's rules decide which
    modules it adapts (``target_modules`` names, suffixes or regex, ``exclude_modules``,
    ``layers_to_transform``, ``modules_to_save``) and each module's rank (``rank_pattern``), so
    grouped-query attention, MoE routers and experts and embeddings are counted with their own
    shapes. DoRA magnitudes, biases and module copies are not ``A``/``B`` and are not counted.

    >>> from labcore.model_config import lora_params
    >>> qv = {"r": 16, "lora_alpha": 32, "target_modules": ["q_proj", "v_proj"]}
    >>> peft_lora_params("llama-3-8b", qv) == lora_params("llama-3-8b", 16, ["q", "v"])
    True
    >>> peft_lora_params("llama-3-8b", {**qv, "layers_to_transform": list(range(16))})
    3407872
    >>> peft_lora_params("mixtral-8x7b", {"r": 8, "lora_alpha": 16, "target_modules": ["gate"]})  # the routers
    1050624
    """
    if not isinstance(lora_config, Mapping):
        raise ModelConfigError(f"lora_config must be a LoraConfig as a JSON object, got {type(lora_config).__name__}")
    settings = parse_lora_config(lora_config)  # parsed once: MoE models have 10^4 modules
    total = 0
    for path, kind, d_in, d_out in peft_modules(config):
        if settings.adapts(path, kind):
            rank, _ = settings.rank_and_alpha(path)
            total += rank * (d_in + d_out)
    return total
