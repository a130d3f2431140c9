"""Count a base model's parameters from its ``config.json``, and size its weights and its MoE adapters.

A config is checked, not trusted: every shipped config records the parameter count its publisher
states (``_published_params``), and :func:`base_params` must land within 1% of it. The count is the
sum of what a decoder holds:

* embeddings ``vocab * hidden`` and, unless tied, an output head of the same shape;
* per layer, attention ``q, k, v, o`` under grouped-query heads (``q: hidden -> heads * head_dim``,
  ``k, v: hidden -> kv_heads * head_dim``, ``o`` back), plus q/k/v biases (Qwen2) or per-head q/k
  norms (Qwen3, Gemma 3) where the architecture has them;
* per layer, a gated MLP ``3 * hidden * intermediate`` or, for a mixture of experts, one such MLP per
  expert (of ``moe_intermediate_size``), a router ``hidden -> experts`` and any shared expert;
* the norms: two per layer (four in Gemma 2/3) and a final one, each ``hidden`` wide.

>>> base_params("llama-3.1-8b")                 # the published safetensors total, to the parameter
8030261248
>>> round(base_weights_gib("llama-3.1-8b"), 2), round(base_weights_gib("llama-3.1-8b", dtype="fp8"), 2)
(14.96, 7.48)

LoRA on a mixture of experts
----------------------------
An adapter can target the attention projections of an MoE model exactly as in a dense one. If it
targets the expert projections (Mixtral's ``w1/w3/w2``, Qwen3-MoE's ``gate_proj/up_proj/down_proj``),
the adapter holds one ``A`` and one ``B`` per expert (PEFT wraps each expert's ``nn.Linear`` where the
experts are separate modules, as in these two architectures' transformers 4.x code). The expert part
is ``num_experts`` times what one dense MLP of the same width would cost, though only
``num_experts_per_tok`` experts run per token. The router (``gate``) is a small
``hidden -> num_experts`` linear that can be targeted too. :func:`moe_lora_params` gives the exact count.

What the serving engines document (only what their pages say; checked with the course's search
tool on 2026-12-01, pages as stored then):

* vLLM: the API reference of v0.11.2 documents ``vllm.lora.layers.fused_moe.FusedMoEWithLoRA``, a
  LoRA layer around the fused MoE experts, and the stable reference documents ``LoRAExpertsMixin``
  with ``apply_w13_lora``/``apply_w2_lora`` (LoRA on the experts' gate+up and down weights). Those
  pages do not say which models or kernels enable it; test an expert-targeting adapter on the
  engine version you run before sizing a fleet for it.
* SGLang: the "LoRA Serving" page (docs.sglang.io, advanced_features/lora) documents the multi-LoRA
  server arguments (``lora_paths``, ``max_loras_per_batch``, ``max_loaded_loras``, ``lora_backend``
  triton or csgmv); the part that could be read makes no statement about expert or router targets,
  so none is made here.

An attention-only adapter needs no expert support from the engine; that is why
:func:`moe_lora_targets` reports attention and expert targets separately.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from .errors import ModelConfigError
from .model_config import ModelConfig, known_models, load_model_config
from .sizing import MIB

__all__ = [
    "BYTES_PER_PARAM",
    "GIB",
    "BaseParams",
    "MoeLoraSize",
    "MoeTargets",
    "PublishedParams",
    "base_param_breakdown",
    "base_params",
    "base_weights_gib",
    "moe_lora_params",
    "moe_lora_targets",
    "published_params",
]

#: Bytes in one GiB: weights are reported in GiB, as ``nvidia-smi`` and PyTorch report memory.
GIB = 1024**3
#: Bytes per weight for the dtypes a base model is served in (fp8 ignores its per-tensor scales).
BYTES_PER_PARAM: Mapping[str, int] = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1}
_ATTENTION = ("q_proj", "k_proj", "v_proj", "o_proj")
_EXPERT = ("gate_proj", "up_proj", "down_proj")
# How each MoE architecture names its expert projections and router in transformers (and so in PEFT).
_MOE_NAMES: Mapping[str, tuple[Mapping[str, str], str]] = {
    "mixtral": ({"gate_proj": "w1", "up_proj": "w3", "down_proj": "w2"}, "gate"),
    "qwen2_moe": ({"gate_proj": "gate_proj", "up_proj": "up_proj", "down_proj": "down_proj"}, "gate"),
    "qwen3_moe": ({"gate_proj": "gate_proj", "up_proj": "up_proj", "down_proj": "down_proj"}, "gate"),
}
# "gate" is the router in both Mixtral (block_sparse_moe.gate) and Qwen MoE (mlp.gate), never an expert.
_ALIASES = {
    "q": "q_proj",
    "k": "k_proj",
    "v": "v_proj",
    "o": "o_proj",
    "w1": "gate_proj",
    "w3": "up_proj",
    "w2": "down_proj",
    "gate": "router",
}


def _config(config: ModelConfig | Mapping[str, Any] | str) -> ModelConfig:
    if isinstance(config, ModelConfig):
        return config
    if isinstance(config, str):
        return load_model_config(config)
    if isinstance(config, Mapping):
        return ModelConfig.from_dict(config)
    raise ModelConfigError(f"expected a ModelConfig, a config dict or a known model name, got {type(config).__name__}")


def _vocab(cfg: ModelConfig) -> int:
    if cfg.vocab_size is None:
        raise ModelConfigError(f"{cfg.name}: vocab_size is missing, so the embeddings cannot be counted; add it")
    return cfg.vocab_size


@dataclass(frozen=True, slots=True)
class BaseParams:
    """Hold a base model's parameter count, split by where the weights live.

    >>> b = base_param_breakdown("qwen3-30b-a3b")
    >>> (b.total, b.experts_per_layer // b.expert_params)
    (30532122624, 128)
    """

    name: str
    embedding: int
    lm_head: int
    attention_per_layer: int
    mlp_per_layer: int
    norms_per_layer: int
    num_layers: int
    final_norm: int
    expert_params: int = 0
    experts_per_layer: int = 0
    router_per_layer: int = 0
    active_experts: int = 0

    def __post_init__(self) -> None:
        for key in (
            "embedding",
            "lm_head",
            "attention_per_layer",
            "mlp_per_layer",
            "norms_per_layer",
            "num_layers",
            "final_norm",
            "expert_params",
            "experts_per_layer",
            "router_per_layer",
            "active_experts",
        ):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ModelConfigError(f"{self.name}: {key} must be an int >= 0, got {value!r}")

    @property
    def per_layer(self) -> int:
        """Return the parameters of one decoder layer."""
        return self.attention_per_layer + self.mlp_per_layer + self.norms_per_layer

    @property
    def total(self) -> int:
        """Return every parameter of the base model, as its safetensors files hold them."""
        return self.embedding + self.lm_head + self.num_layers * self.per_layer + self.final_norm

    @property
    def active(self) -> int:
        """Return the parameters one token runs through (all of them for a dense model)."""
        idle = self.experts_per_layer - self.expert_params * self.active_experts
        return self.total - self.num_layers * idle


def base_param_breakdown(config: ModelConfig | Mapping[str, Any] | str) -> BaseParams:
    """Count a base model's parameters from its config, part by part (see the module docstring).

    >>> b = base_param_breakdown("llama-3.2-1b")    # tied: no separate output head
    >>> (b.lm_head, b.total)
    (0, 1235814400)
    """
    cfg = _config(config)
    h, q, kv, hd = cfg.hidden_size, cfg.q_dim, cfg.kv_dim, cfg.head_width
    vocab = _vocab(cfg)
    attention = h * q + 2 * h * kv + q * h
    if cfg.attention_bias:
        attention += q + 2 * kv
    if cfg.qk_norm:
        attention += 2 * hd
    expert = experts = router = 0
    if cfg.is_moe:
        expert = 3 * h * cfg.expert_width
        experts = cfg.num_experts * expert
        router = h * cfg.num_experts
        mlp = experts + router
        if cfg.shared_expert_intermediate_size:
            mlp += 3 * h * cfg.shared_expert_intermediate_size + h  # the shared expert and its 1-wide gate
    else:
        mlp = 3 * h * cfg.intermediate_size
    return BaseParams(
        cfg.name,
        embedding=vocab * h,
        lm_head=0 if cfg.tie_word_embeddings else vocab * h,
        attention_per_layer=attention,
        mlp_per_layer=mlp,
        norms_per_layer=cfg.norms_per_layer * h,
        num_layers=cfg.num_hidden_layers,
        final_norm=h,
        expert_params=expert,
        experts_per_layer=experts,
        router_per_layer=router,
        active_experts=cfg.num_experts_per_tok,
    )


def base_params(config: ModelConfig | Mapping[str, Any] | str) -> int:
    """Return the total parameter count of a base model derived from its config.

    >>> base_params("mixtral-8x7b")
    46702792704
    """
    return base_param_breakdown(config).total


def base_weights_gib(config: ModelConfig | Mapping[str, Any] | str, *, dtype: str = "bf16") -> float:
    """Return the memory of a base model's weights in GiB at ``dtype`` (``'bf16'``, ``'fp8'``...).

    The weights only: no KV cache, activations or framework overhead.

    >>> round(base_weights_gib("llama-3.1-70b"), 1), round(base_weights_gib("llama-3.1-70b", dtype="fp8"), 1)
    (131.4, 65.7)
    """
    if dtype not in BYTES_PER_PARAM:
        raise ModelConfigError(f"unknown dtype {dtype!r}; valid: {sorted(BYTES_PER_PARAM)}")
    return base_params(config) * BYTES_PER_PARAM[dtype] / GIB


@dataclass(frozen=True, slots=True)
class PublishedParams:
    """Hold the parameter count a model's publisher states, and where that statement is.

    >>> p = published_params("qwen2.5-7b")
    >>> (p.params, round(p.error_pct, 4))
    (7615616512, 0.0)
    """

    name: str
    params: int
    source: str
    derived: int

    def __post_init__(self) -> None:
        for key in ("params", "derived"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ModelConfigError(f"{self.name}: {key} must be a positive int, got {value!r}")
        if not isinstance(self.source, str) or not self.source.strip():
            raise ModelConfigError(f"{self.name}: a published count needs its source, got {self.source!r}")

    @property
    def error_pct(self) -> float:
        """Return how far the derived count is from the published one, in percent of the published."""
        return 100.0 * (self.derived - self.params) / self.params


def _raw(name: str) -> dict[str, Any]:
    if not isinstance(name, str) or name not in known_models():
        raise ModelConfigError(f"{name!r} is not a shipped model; valid: {list(known_models())}")
    text = resources.files("labcore").joinpath("data/models", f"{name}.json").read_text(encoding="utf-8")
    raw: dict[str, Any] = json.loads(text)
    return raw


def published_params(name: str) -> PublishedParams | None:
    """Return the publisher's stated count for a shipped config beside the derived one (None if none).

    >>> published_params("tiny-llama-demo") is None      # the course's own random model has no publisher
    True
    """
    data = _raw(name)
    stated = data.get("_published_params")
    if stated is None:
        return None
    return PublishedParams(
        name, params=stated, source=data.get("_published_params_source", ""), derived=base_params(name)
    )


@dataclass(frozen=True, slots=True)
class MoeTargets:
    """Hold what a LoRA adapter can target in one MoE model, with module names and shapes.

    ``attention`` and ``experts`` map a module name to ``(in_features, out_features)``; ``experts``
    shapes are per expert, and there are ``num_experts`` of each in every layer.

    >>> t = moe_lora_targets("mixtral-8x7b")
    >>> (t.experts["w1"], t.router, t.num_experts)
    ((4096, 14336), ('gate', (4096, 8)), 8)
    """

    name: str
    attention: Mapping[str, tuple[int, int]]
    experts: Mapping[str, tuple[int, int]]
    router: tuple[str, tuple[int, int]]
    num_experts: int
    num_experts_per_tok: int
    num_layers: int


def _moe(config: ModelConfig | Mapping[str, Any] | str) -> ModelConfig:
    cfg = _config(config)
    if not cfg.is_moe:
        raise ModelConfigError(f"{cfg.name} is a dense model (num_experts 0); use labcore.model_config.lora_params")
    if cfg.model_type not in _MOE_NAMES:
        raise ModelConfigError(
            f"{cfg.name}: expert module names of model_type {cfg.model_type!r} are not known; valid: {sorted(_MOE_NAMES)}"
        )
    return cfg


def moe_lora_targets(config: ModelConfig | Mapping[str, Any] | str) -> MoeTargets:
    """Return the projections an adapter can target in an MoE model: attention, each expert, router.

    >>> t = moe_lora_targets("qwen3-30b-a3b")
    >>> (t.attention["q_proj"], t.experts["down_proj"], t.num_experts)
    ((2048, 4096), (768, 2048), 128)
    """
    cfg = _moe(config)
    h, q, kv, e = cfg.hidden_size, cfg.q_dim, cfg.kv_dim, cfg.expert_width
    names, router = _MOE_NAMES[cfg.model_type]
    shapes = {"gate_proj": (h, e), "up_proj": (h, e), "down_proj": (e, h)}
    return MoeTargets(
        cfg.name,
        attention={"q_proj": (h, q), "k_proj": (h, kv), "v_proj": (h, kv), "o_proj": (q, h)},
        experts={names[k]: shapes[k] for k in _EXPERT},
        router=(router, (h, cfg.num_experts)),
        num_experts=cfg.num_experts,
        num_experts_per_tok=cfg.num_experts_per_tok,
        num_layers=cfg.num_hidden_layers,
    )


@dataclass(frozen=True, slots=True)
class MoeLoraSize:
    """Hold the exact size of a LoRA on an MoE model, split into attention, experts and router.

    >>> s = moe_lora_params("mixtral-8x7b", 16, ["q", "v", "w1", "w2", "w3"])
    >>> (s.attention, s.experts, s.total)
    (6815744, 226492416, 233308160)
    """

    name: str
    rank: int
    targets: tuple[str, ...]
    attention: int
    experts: int
    router: int

    @property
    def total(self) -> int:
        """Return every LoRA parameter (``A`` and ``B`` of every targeted module in every layer)."""
        return self.attention + self.experts + self.router

    def mb(self, bytes_per_param: int = 2) -> float:
        """Return the adapter size in MiB at ``bytes_per_param`` (2 for bf16)."""
        if isinstance(bytes_per_param, bool) or not isinstance(bytes_per_param, int) or bytes_per_param <= 0:
            raise ModelConfigError(f"bytes per parameter must be a positive int, got {bytes_per_param!r}")
        return self.total * bytes_per_param / MIB


def moe_lora_params(config: ModelConfig | Mapping[str, Any] | str, rank: int, targets: Iterable[str]) -> MoeLoraSize:
    """Return the exact LoRA size on an MoE model; targeting an expert projection adapts every expert.

    ``targets`` name attention (``q_proj``... or ``q``), expert projections (``gate_proj/up_proj/down_proj``
    or Mixtral's ``w1/w3/w2``) or the router (``'router'``, or ``'gate'`` as both architectures call it).

    >>> moe_lora_params("qwen3-30b-a3b", 8, ["q", "k", "v", "o"]).mb()     # attention only: like a dense model
    12.75
    >>> round(moe_lora_params("qwen3-30b-a3b", 8, ["gate_proj", "up_proj", "down_proj"]).mb())  # 128 experts each
    792
    """
    cfg = _moe(config)
    if isinstance(rank, bool) or not isinstance(rank, int) or rank <= 0:
        raise ModelConfigError(f"rank must be a positive int, got {rank!r}")
    if isinstance(targets, str):
        raise ModelConfigError(f"targets must be a list of module names, got the string {targets!r}")
    shape = moe_lora_targets(cfg)
    canon = []
    for t in targets:
        name = _ALIASES.get(t, t) if isinstance(t, str) else t
        if name not in (*_ATTENTION, *_EXPERT, "router"):
            raise ModelConfigError(
                f"unknown MoE target {t!r}; valid: {[*_ATTENTION, *_EXPERT, 'router']} (or q, k, v, o, w1, w2, w3, gate)"
            )
        canon.append(name)
    if not canon:
        raise ModelConfigError("targets must name at least one module")
    if len(set(canon)) != len(canon):
        raise ModelConfigError(f"targets name a module twice: {list(targets)}")
    names = _MOE_NAMES[cfg.model_type][0]
    layers = cfg.num_hidden_layers
    attention = sum(rank * sum(shape.attention[t]) for t in canon if t in _ATTENTION)
    experts = sum(rank * sum(shape.experts[names[t]]) for t in canon if t in _EXPERT) * cfg.num_experts
    router = rank * sum(shape.router[1]) if "router" in canon else 0
    return MoeLoraSize(
        cfg.name, rank, tuple(canon), attention=layers * attention, experts=layers * experts, router=layers * router
    )
