"""Check the sizing exercises: an adapter's VRAM, how many fit a pool, a token's KV cache, the KV/adapter trade (ch. 2).

>>> grade_kv_bytes_per_token(lambda cfg: cfg.num_hidden_layers * cfg.kv_dim * 2 * 2).ok
True
>>> print(grade_adapters_beside_kv(2577).message)
✗ 2,577 adapters is the chapter's split (24 sequences of 8,192 tokens); here the KV cache holds 8 × 32,768 = 262,144 tokens, 32 GiB.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from ..capacity import COURSE_CONTEXT_TOKENS, COURSE_GPU, COURSE_MODEL, COURSE_SEQUENCES, memory_split
from ..gpus import load_gpu
from ..kv_cache import kv_bytes_per_token
from ..model_config import ModelConfig, exact_adapter_mb, load_model_config
from ..sizing import MIB, adapter_vram_mb, gib_to_mb, gpu_memory_split
from .exercise import Exercise
from .rules import NumberRule, graded
from .verdict import Mistake, Verdict, _close, _printer

__all__ = [
    "grade_adapter_vram_mb",
    "grade_adapters_that_fit",
    "check_adapter_vram_mb",
    "check_adapters_that_fit",
    "KV_PROBE_MODELS",
    "grade_kv_bytes_per_token",
    "check_kv_bytes_per_token",
    "TRADE_CASE",
    "grade_adapters_beside_kv",
    "check_adapters_beside_kv",
    "EXERCISES",
]


def rule_adapter_vram_mb(
    *, rank: int = 32, hidden: int = 8192, layers: int = 80, targets: int = 4, bytes_per_param: float = 2
) -> NumberRule:
    """Grade the VRAM (MiB) of an adapter; by default r=32 on a 70B model (d=8192, 80 layers) on q,k,v,o.

    >>> grade_adapter_vram_mb(335.5).message.startswith("✗ 335.5 MiB is in MB")
    True
    """
    expected = adapter_vram_mb(rank, hidden, layers, targets, bytes_per_param)
    per_param = expected / bytes_per_param
    mistakes: list[Mistake] = [
        (
            expected / 2,
            "is half the answer: each target gets two matrices, A (r x d) and B (d x r), "
            "so count 2·r·d parameters per target.",
        ),
        (expected * MIB / 1e6, "is in MB (10^6 bytes); the course counts VRAM in MiB (2^20 bytes)."),
        (per_param, f"counts parameters in millions, not bytes: multiply by {bytes_per_param:g} bytes per parameter."),
        (
            expected * 4 / bytes_per_param,
            f"assumes 4 bytes per parameter (fp32); this adapter is stored in {bytes_per_param:g}-byte precision.",
        ),
        (expected / targets, f"covers one target module; the adapter targets {targets} per layer."),
        (expected / layers, f"is the size of one layer; multiply by all {layers} layers."),
        (expected * hidden, "multiplies by d twice: a LoRA's A and B are r x d and d x r, not d x d."),
    ]
    return NumberRule(
        expected,
        unit="MiB",
        what="the adapter's VRAM",
        mistakes=mistakes,
        fallback="Use layers · targets · 2 · r · d · bytes / 2^20.",
    )


def rule_adapters_that_fit(*, pool_gb: float = 8, adapter_vram_mb: float = 320.0) -> NumberRule:
    """Grade how many adapters of ``adapter_vram_mb`` MiB fit in a ``pool_gb`` GiB adapter pool (default 25).

    >>> grade_adapters_that_fit(26).message
    '✗ 26 adapters rounds up: a part of an adapter cannot be loaded, so round down (floor).'
    """
    expected = gpu_memory_split(
        pool_gb, base_vram_gb=0, kv_cache_gb=0, adapter_vram_mb=adapter_vram_mb
    ).adapters_that_fit
    exact = gib_to_mb(pool_gb) / adapter_vram_mb
    mistakes: list[Mistake] = [
        (math.ceil(exact), "rounds up: a part of an adapter cannot be loaded, so round down (floor)."),
        (exact, "is a fraction of an adapter: round down to whole adapters."),
        (math.floor(pool_gb * 1000 / adapter_vram_mb), "uses 1000 MiB per GiB; a GiB is 1024 MiB."),
        (
            math.floor(pool_gb * 1e9 / (adapter_vram_mb * MIB)),
            "mixes decimal GB (10^9 bytes) with MiB; use GiB and MiB (1 GiB = 1024 MiB).",
        ),
    ]
    mistakes = [(v, h) for v, h in mistakes if not _close(v, expected, 1e-9)]
    return NumberRule(
        expected,
        unit="adapters",
        what="the number of adapters that fit",
        mistakes=mistakes,
        fallback=f"Divide the pool ({pool_gb:g} GiB = {gib_to_mb(pool_gb):g} MiB) by the adapter size and round down.",
        rel_tol=1e-9,
        integer=True,
    )


grade_adapter_vram_mb = graded(rule_adapter_vram_mb)
check_adapter_vram_mb = _printer(grade_adapter_vram_mb)
grade_adapters_that_fit = graded(rule_adapters_that_fit)
check_adapters_that_fit = _printer(grade_adapters_that_fit)


#: Full-attention models the KV-cache exercise is tried on (none of them is the chapter's worked example).
KV_PROBE_MODELS: tuple[str, ...] = ("qwen2.5-7b", "llama-3.2-3b", "llama-3-70b", "qwen3-14b")

#: The likely wrong ways to count a token's KV cache: (bytes per token from a config, the hint).
_KV_MISTAKES: tuple[tuple[Callable[[ModelConfig], float], str], ...] = (
    (
        lambda c: c.num_hidden_layers * c.kv_dim * 2,
        "is half of labcore's for every model: count both the key and the value (× 2), and 2 bytes per bf16 number.",
    ),
    (
        lambda c: c.num_hidden_layers * c.kv_dim,
        "misses two factors of 2: a token stores a key and a value, each of 2 bytes per number in bf16.",
    ),
    (
        lambda c: c.num_hidden_layers * c.kv_dim * 2 * 4,
        "is twice labcore's: bf16 stores 2 bytes per number, not 4 (fp32).",
    ),
    (
        lambda c: c.num_hidden_layers * c.q_dim * 2 * 2,
        "uses the query width (num_attention_heads × head_dim, the hidden size here): under grouped-query attention "
        "only the num_key_value_heads heads store keys and values.",
    ),
    (
        lambda c: c.num_hidden_layers * c.hidden_size * 2 * 2,
        "uses hidden_size: the KV cache stores num_key_value_heads × head_dim numbers per layer, narrower under "
        "grouped-query attention.",
    ),
    (lambda c: c.kv_dim * 2 * 2, "is one layer's: every one of num_hidden_layers layers keeps its own K and V."),
    (lambda c: c.num_hidden_layers * c.kv_dim * 2 * 2 / 1024, "is in KiB: return bytes."),
)


def grade_kv_bytes_per_token(answer: Any, *, models: Sequence[str] = KV_PROBE_MODELS) -> Verdict:
    """Grade a function ``answer(cfg) -> bytes``: the KV cache of one token in bf16, every layer keeping it.

    It is called on each probe model's :class:`~labcore.model_config.ModelConfig` and compared with
    :func:`labcore.kv_cache.kv_bytes_per_token`.

    >>> print(grade_kv_bytes_per_token(lambda cfg: cfg.num_hidden_layers * cfg.hidden_size * 4).message.split(":")[0])
    ✗ Your function uses the query width (num_attention_heads × head_dim, the hidden size here)
    """
    if answer is None or answer is Ellipsis:
        return Verdict(
            False,
            "✗ Not answered yet: replace None with a function that takes a model's config and "
            "returns the bytes of one token's KV cache.",
        )
    if not callable(answer):
        return Verdict(False, f"✗ Expected a function of a model config, got {answer!r}.")
    configs = [load_model_config(m) for m in models]
    expected = [kv_bytes_per_token(c) for c in configs]
    try:
        got = [answer(c) for c in configs]
    except Exception as error:  # a learner's function may raise anything
        return Verdict(
            False,
            f"✗ Your function raised {type(error).__name__}: {error}. It gets a ModelConfig: use "
            "cfg.num_hidden_layers, cfg.num_key_value_heads and cfg.head_dim.",
        )
    if any(g is None for g in got):
        return Verdict(False, "✗ Not answered yet: your function returns None; make it return a number of bytes.")
    if not all(isinstance(g, (int, float)) and not isinstance(g, bool) for g in got):
        return Verdict(False, f"✗ Your function returns {got[0]!r}; return a number of bytes.")
    if all(_close(g, e, 1e-9) for g, e in zip(got, expected, strict=True)):
        shown = ", ".join(f"{m} {e // 1024:,} KiB" for m, e in zip(models, expected, strict=True))
        return Verdict(True, f"✓ Correct: one token's KV cache is {shown}.")
    for mistake, hint in _KV_MISTAKES:
        if all(_close(g, mistake(c), 1e-9) for g, c in zip(got, configs, strict=True)):
            return Verdict(False, f"✗ Your function {hint}")
    wrong = next(i for i, (g, e) in enumerate(zip(got, expected, strict=True)) if not _close(g, e, 1e-9))
    return Verdict(
        False,
        f"✗ For {models[wrong]} your function gives {got[wrong]:,g} bytes, labcore "
        f"{expected[wrong]:,} bytes. A token costs layers × KV heads × head_dim × 2 (K and V) × "
        "2 bytes (bf16).",
    )


check_kv_bytes_per_token = _printer(grade_kv_bytes_per_token)


#: The case exercise 2.2 asks: the chapter's model and GPU, fewer but longer sequences.
TRADE_CASE: dict[str, Any] = {"sequences": 8, "context_tokens": 32768}


def rule_adapters_beside_kv(
    *, model: str = COURSE_MODEL, gpu: str = COURSE_GPU, sequences: int = 8, context_tokens: int = 32768, rank: int = 16
) -> NumberRule:
    """Grade how many exact-size q,v adapters fit beside ``model`` and a KV pool of ``sequences`` × ``context_tokens``.

    A prediction within half a percent is right (the GiB figures are read rounded); the value is
    :func:`labcore.capacity.memory_split`'s, the one the chapter's split panel shows.

    >>> grade_adapters_beside_kv(1947).ok, grade_adapters_beside_kv(1940).ok
    (True, True)
    """
    targets = ["q_proj", "v_proj"]
    adapter = exact_adapter_mb(model, rank, targets)
    split = memory_split(model, gpu, sequences=sequences, context_tokens=context_tokens, adapter_mb=adapter)
    expected = split.adapters_that_fit
    default = memory_split(model, gpu, adapter_mb=adapter)
    naive = memory_split(
        model,
        gpu,
        sequences=sequences,
        context_tokens=context_tokens,
        adapter_mb=adapter_vram_mb(
            rank, load_model_config(model).hidden_size, load_model_config(model).num_hidden_layers, targets
        ),
    )
    card = load_gpu(gpu)

    def fit(gpu_gib: float, base_gib: float, share: float = split.memory_fraction) -> int:
        return max(0, math.floor((gpu_gib * share - base_gib - split.kv_gib) * 1024 / adapter))

    tokens = sequences * context_tokens
    mistakes: list[Mistake] = [
        (
            default.adapters_that_fit,
            f"is the chapter's split ({COURSE_SEQUENCES} sequences of "
            f"{COURSE_CONTEXT_TOKENS:,} tokens); here the KV cache holds {sequences} × "
            f"{context_tokens:,} = {tokens:,} tokens, {split.kv_gib:g} GiB.",
        ),
        (
            naive.adapters_that_fit,
            f"uses the square formula's {naive.adapter_mb:g} MiB; the exact r={rank} q,v "
            f"adapter is {adapter:g} MiB (grouped-query attention).",
        ),
        (
            fit(card.memory_gb, split.base_gib),
            f"reads the spec sheet's {card.memory_gb:g} GB as GiB; the driver "
            f"reports {card.usable_mib:,} MiB, {split.gpu_gib:.1f} GiB.",
        ),
        (
            fit(split.gpu_gib, 16.0),
            f"uses a 16 GiB base; {model}'s weights are {split.base_gib:.1f} GiB (its parameter count × 2 bytes).",
        ),
        (math.floor(split.pool_gib * 1000 / adapter), "uses 1000 MiB per GiB; a GiB is 1024 MiB."),
        (
            fit(split.gpu_gib, split.base_gib, 1.0),
            f"gives the engine the whole GPU; it takes {split.memory_fraction:g} of it, {split.budget_gib:.1f} GiB.",
        ),
    ]
    mistakes = [(v, h) for v, h in mistakes if not _close(v, expected, 0.005)]
    return NumberRule(
        expected,
        unit="adapters",
        what="the number of adapters that fit",
        mistakes=mistakes,
        rel_tol=0.005,
        integer=True,
        fallback=f"Adapters = ⌊({split.memory_fraction:g} × GPU − base − KV) / adapter⌋: "
        f"({split.memory_fraction:g} × {split.gpu_gib:.1f} − {split.base_gib:.1f} − KV of {tokens:,} tokens × {kv_bytes_per_token(model) // 1024} KiB) / {adapter:g} "
        "MiB.",
    )


grade_adapters_beside_kv = graded(rule_adapters_beside_kv)
check_adapters_beside_kv = _printer(grade_adapters_beside_kv)


def _exercises() -> tuple[Exercise, ...]:
    def kv_right(cfg: ModelConfig) -> int:
        return cfg.num_hidden_layers * cfg.num_key_value_heads * cfg.head_width * 2 * 2

    def kv_half(cfg: ModelConfig) -> int:
        return cfg.num_hidden_layers * cfg.num_key_value_heads * cfg.head_width * 2

    def kv_query_heads(cfg: ModelConfig) -> int:
        return cfg.num_hidden_layers * cfg.num_attention_heads * cfg.head_width * 2 * 2

    adapter = exact_adapter_mb(COURSE_MODEL, 16, ["q_proj", "v_proj"])
    case = memory_split(adapter_mb=adapter, **TRADE_CASE)
    default = memory_split(adapter_mb=adapter)
    naive = memory_split(**TRADE_CASE)
    return (
        Exercise("2.1", "code", grade_kv_bytes_per_token, right=kv_right, wrong=(kv_half, kv_query_heads)),
        Exercise(
            "2.2",
            "predict",
            grade_adapters_beside_kv,
            right=case.adapters_that_fit,
            wrong=(default.adapters_that_fit, naive.adapters_that_fit),
            kwargs=dict(TRADE_CASE),
            gives_away=(f"{case.adapters_that_fit:,} adapters", f"{case.adapters_that_fit} adapters"),
            tool="gpu_split_panel",
        ),
    )


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = _exercises()
