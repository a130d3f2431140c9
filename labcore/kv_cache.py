"""Size the KV cache from a model's config: bytes per token, per sequence, and how an adapter compares.

Every attention layer stores a key and a value vector per KV head for every token it keeps:
``layers x kv_heads x head_dim x 2 x dtype_bytes`` bytes a token. A sliding-window layer keeps at
most its window, so at long contexts it costs less per token than a full-attention layer. Which
layers slide follows the architecture (transformers' config classes): Gemma 2 alternates, sliding
on even layers; Gemma 3 slides on five layers of six (``sliding_window_pattern`` 6); Mistral and
Phi-3 slide on every layer when their config sets ``sliding_window``; a config's own
``layer_types`` list wins over all of these.

>>> kv_bytes_per_token("llama-3-8b")
131072
>>> tokens_in_bytes(16 * 2**20, "llama-3-8b")      # a 16 MiB adapter = 128 tokens of KV cache
128
>>> kv_bytes_per_token("mistral-7b", context_tokens=8192)   # its 4096-token window halves it at 8k
65536
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._validate import count
from .model_config import ModelConfig
from .model_config.config import raw_model_config

__all__ = [
    "SLIDING_PATTERNS",
    "kv_layer_windows",
    "kv_bytes_per_token",
    "kv_bytes_per_sequence",
    "tokens_in_bytes",
]

#: Layers per repeat of the sliding pattern, by model_type: one full-attention layer closes each repeat.
SLIDING_PATTERNS: Mapping[str, int] = {"gemma2": 2, "gemma3_text": 6}
#: Architectures whose every layer uses the window their config sets.
_ALL_LAYERS_SLIDE = frozenset({"mistral", "phi3"})


def _raw(model: ModelConfig | Mapping[str, Any] | str) -> tuple[ModelConfig, Mapping[str, Any]]:
    """Return ``model``'s config and its parsed config.json (empty for a :class:`ModelConfig` given as it is)."""
    if isinstance(model, ModelConfig):
        return model, {}
    raw = raw_model_config(model)  # a parsed config.json, or a shipped one by name; refuses anything else by name
    return ModelConfig.from_dict(raw, name=model if isinstance(model, str) else "config"), raw


def kv_layer_windows(model: ModelConfig | Mapping[str, Any] | str) -> tuple[int | None, ...]:
    """Return each layer's attention window in tokens (None: full attention), in layer order.

    A :class:`~labcore.model_config.ModelConfig` carries no window, so its layers read as full.

    >>> kv_layer_windows("gemma-2-2b")[:4]
    (4096, None, 4096, None)
    >>> kv_layer_windows("gemma-3-1b")[:6]
    (512, 512, 512, 512, 512, None)
    """
    cfg, raw = _raw(model)
    window = raw.get("sliding_window")
    n = cfg.num_hidden_layers
    if not window or raw.get("use_sliding_window") is False:
        return (None,) * n
    count("sliding_window", window)
    types = raw.get("layer_types")
    if types is not None:
        if len(types) != n:
            raise ValueError(f"{cfg.name}: layer_types must list {n} layers, got {len(types)}")
        return tuple(window if t == "sliding_attention" else None for t in types)
    pattern = raw.get("sliding_window_pattern", SLIDING_PATTERNS.get(cfg.model_type))
    if pattern is not None:
        return tuple(window if (i + 1) % pattern else None for i in range(n))
    if cfg.model_type in _ALL_LAYERS_SLIDE:
        return (window,) * n
    return (None,) * n


def _token_bytes_per_layer(cfg: ModelConfig, dtype_bytes: int) -> int:
    count("dtype_bytes", dtype_bytes)
    return cfg.kv_dim * 2 * dtype_bytes


def kv_bytes_per_sequence(
    model: ModelConfig | Mapping[str, Any] | str, context_tokens: int, *, dtype_bytes: int = 2
) -> int:
    """Return the KV-cache bytes of one sequence of ``context_tokens``, each sliding layer capped at its window.

    >>> kv_bytes_per_sequence("llama-3-8b", 8192) // 2**20
    1024
    """
    cfg, _ = _raw(model)
    count("context_tokens", context_tokens)
    per_layer = _token_bytes_per_layer(cfg, dtype_bytes)
    return sum(per_layer * (context_tokens if w is None else min(context_tokens, w)) for w in kv_layer_windows(model))


def kv_bytes_per_token(
    model: ModelConfig | Mapping[str, Any] | str, *, dtype_bytes: int = 2, context_tokens: int | None = None
) -> int:
    """Return the KV-cache bytes of one token: every layer's, or averaged over a sequence of ``context_tokens``.

    Without ``context_tokens`` this is the cost of a token inside every window
    (``layers x kv_heads x head_dim x 2 x dtype_bytes``). With it, sliding layers count only their
    window, and the average per token is rounded up to a whole byte.

    >>> kv_bytes_per_token("llama-3-8b", dtype_bytes=1)
    65536
    >>> kv_bytes_per_token("gemma-2-9b"), kv_bytes_per_token("gemma-2-9b", context_tokens=8192)
    (344064, 258048)
    """
    cfg, _ = _raw(model)
    if context_tokens is None:
        return cfg.num_hidden_layers * _token_bytes_per_layer(cfg, dtype_bytes)
    seq = kv_bytes_per_sequence(model, context_tokens, dtype_bytes=dtype_bytes)
    return -(-seq // context_tokens)


def tokens_in_bytes(nbytes: int, model: ModelConfig | Mapping[str, Any] | str, *, dtype_bytes: int = 2) -> int:
    """Return how many whole tokens of KV cache fit in ``nbytes`` (an adapter's size, a free budget).

    >>> tokens_in_bytes(2**30, "llama-3-8b")
    8192
    """
    count("nbytes", nbytes, minimum=0)
    return nbytes // kv_bytes_per_token(model, dtype_bytes=dtype_bytes)
