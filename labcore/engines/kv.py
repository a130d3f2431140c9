"""One sequence's KV cache as vLLM 0.33.0 reserves it: whole blocks, and sliding windows widened by the tokens in flight.

A full-attention layer holds ``cdiv(max_model_len, block_size)`` blocks (``FullAttentionSpec.max_memory_usage_bytes``
in vllm/v1/kv_cache_interface.py). A sliding-window layer holds not its window but
``cdiv(min(window - 1 + max_in_flight_tokens, max_model_len), block_size) + 1`` blocks
(``SlidingWindowSpec.max_admission_blocks_per_request``: the last window - 1 computed tokens plus every token
scheduled but not settled, and one block because the window need not start at a block's edge), where
``max_in_flight_tokens`` is ``max_concurrent_batches x max_num_batched_tokens`` (``VllmConfig.max_in_flight_tokens``
in vllm/config/vllm.py): two batches, as async scheduling is on by default, of the ``max_num_batched_tokens``
``vllm serve`` picks by the GPU's memory (``EngineArgs.get_batch_defaults`` in
vllm/engine/arg_utils.py: 16,384 from 160 GiB, 8,192 from 70 GiB except an A100, 2,048 below). The block is
``CacheConfig.DEFAULT_BLOCK_SIZE``, 16 tokens (vllm/config/cache.py).

>>> round(vllm_kv_bytes_per_sequence("gemma-2-9b", 8192, gpu="L4-24GB") / kv_bytes_per_sequence("gemma-2-9b", 8192), 3)
1.335
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..gpus import load_gpu
from ..kv_cache import kv_bytes_per_sequence, kv_layer_windows
from ..model_config.config import ModelConfig, raw_model_config

__all__ = [
    "VLLM_BLOCK_TOKENS",
    "VLLM_CONCURRENT_BATCHES",
    "KV_SOURCES",
    "vllm_batched_tokens",
    "vllm_kv_bytes_per_sequence",
    "kv_bytes_per_gpu",
]

#: Where each rule was read in the vLLM 0.33.0 wheel.
KV_SOURCES: dict[str, str] = {
    "full": "vllm-0.33.0 vllm/v1/kv_cache_interface.py FullAttentionSpec.max_memory_usage_bytes",
    "sliding": "vllm-0.33.0 vllm/v1/kv_cache_interface.py SlidingWindowSpec.max_admission_blocks_per_request and "
    "SlidingWindowSpec.max_memory_usage_bytes",
    "in_flight": "vllm-0.33.0 vllm/config/vllm.py VllmConfig.max_in_flight_tokens and "
    "VllmConfig.max_concurrent_batches",
    "batched": "vllm-0.33.0 vllm/engine/arg_utils.py EngineArgs.get_batch_defaults",
    "block": "vllm-0.33.0 vllm/config/cache.py CacheConfig.DEFAULT_BLOCK_SIZE",
}

#: ``CacheConfig.DEFAULT_BLOCK_SIZE`` at vLLM 0.33.0: tokens per KV block.
VLLM_BLOCK_TOKENS = 16
#: ``VllmConfig.max_concurrent_batches`` with async scheduling (on by default) and no pipeline parallelism.
VLLM_CONCURRENT_BATCHES = 2
_GIB = 2**30


def vllm_batched_tokens(gpu: str) -> int:
    """Return the ``max_num_batched_tokens`` ``vllm serve`` 0.33.0 picks on ``gpu`` (by its memory and name).

    >>> vllm_batched_tokens("H100-80GB"), vllm_batched_tokens("A100-80GB"), vllm_batched_tokens("L4-24GB")
    (8192, 2048, 2048)
    """
    card = load_gpu(gpu)
    if card.usable_bytes >= 160 * _GIB:
        return 16384
    if card.usable_bytes >= 70 * _GIB and "a100" not in card.name.lower():
        return 8192
    return 2048


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def vllm_kv_bytes_per_sequence(
    model: str | Mapping[str, Any], context_tokens: int, *, gpu: str, tp: int = 1, dtype_bytes: int = 2
) -> int:
    """Return the KV bytes vLLM reserves on each GPU for one sequence of ``context_tokens`` (``--max-model-len``).

    ``model`` is a shipped config's name or a parsed config.json.

    >>> vllm_kv_bytes_per_sequence("llama-3-8b", 8192, gpu="H100-80GB") // 2**20      # no window: 512 blocks
    1024
    """
    raw = raw_model_config(model) if isinstance(model, str) else model
    cfg = ModelConfig.from_dict(raw)
    kv_dim = max(1, cfg.num_key_value_heads // tp) * cfg.head_width
    block = VLLM_BLOCK_TOKENS * kv_dim * 2 * dtype_bytes  # K and V of 16 tokens in one layer
    in_flight = VLLM_CONCURRENT_BATCHES * vllm_batched_tokens(gpu)
    kv_bytes_per_sequence(raw, context_tokens, dtype_bytes=dtype_bytes)  # validates the context and dtype
    total = 0
    for window in kv_layer_windows(raw):
        if window is None:
            total += _cdiv(context_tokens, VLLM_BLOCK_TOKENS) * block
        else:
            total += (_cdiv(min(window - 1 + in_flight, context_tokens), VLLM_BLOCK_TOKENS) + 1) * block
    return total


def kv_bytes_per_gpu(
    raw: Mapping[str, Any], cfg: ModelConfig, context_tokens: int, *, tp: int = 1, dtype_bytes: int = 2
) -> float:
    """Return one sequence's KV cache on each of ``tp`` GPUs: the KV heads split, one each when fewer than ``tp``.

    >>> raw = raw_model_config("llama-3-8b")
    >>> kv_bytes_per_gpu(raw, ModelConfig.from_dict(raw), 8192, tp=2) / 2**20
    512.0
    """
    heads = cfg.num_key_value_heads
    return kv_bytes_per_sequence(raw, context_tokens, dtype_bytes=dtype_bytes) * max(1, heads // tp) / heads
