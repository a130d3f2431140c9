"""Panels for adapter sizing: how big an adapter is, exactly, and how many fit beside the base.

>>> row = adapter_vram_panel().row()          # Llama-3-8B, r=16 on q,v, bf16
>>> row["naive_mb"], row["exact_mb"]
(16.0, 13.0)
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

from ..capacity import TEACHING, MemorySplit, memory_split
from ..gpus import known_gpus
from ..kv_cache import kv_layer_windows
from ..model_config import TARGET_SETS, exact_adapter_mb, exact_sizing, known_models, load_model_config
from ..plots import MEMORY_COLORS, OKABE_ITO
from ..sizing import adapter_vram_mb
from ._panel import Control, Lines, Panel, Series

__all__ = ["adapter_vram_panel", "gpu_split_panel", "gpu_fit_panel", "fit_quiz_panel"]

RANKS: tuple[int, ...] = (4, 8, 16, 32, 64, 128, 256)
DTYPE_BYTES: dict[str, int] = {"bf16": 2, "fp8": 1, "fp32": 4}
BUDGETS_GIB: tuple[float, ...] = (2.0, 8.0, 24.0)


def _sizing_models() -> tuple[str, ...]:
    """Return the shipped dense models whose projections have the q/k/v/o/gate/up/down names.

    MoE models (experts per layer) and Phi-3/4 (fused ``qkv_proj``/``gate_up_proj``) are sized elsewhere.
    """
    out = []
    for name in known_models():
        cfg = load_model_config(name)
        if not name.startswith("tiny") and not cfg.is_moe and cfg.model_type != "phi3":
            out.append(name)
    return tuple(out)


def _adapter_state(model: str, rank: int, targets: str, dtype: str, budget_gib: float) -> dict[str, Any]:
    s = exact_sizing(model, rank, targets, DTYPE_BYTES[dtype])
    row: dict[str, Any] = {
        "hidden": s.hidden,
        "layers": s.layers,
        "naive_mb": s.naive_mb,
        "exact_mb": s.exact_mb,
        "fit_exact": math.floor(budget_gib * 1024 / s.exact_mb),
        "fit_naive": math.floor(budget_gib * 1024 / s.naive_mb),
    }
    row["fit_exact_plot"] = row["fit_exact"] or None  # a log axis has no zero
    row["fit_naive_plot"] = row["fit_naive"] or None
    return row


def _adapter_readout(row: Any) -> str:
    gap = 100 * (row["exact_mb"] / row["naive_mb"] - 1)
    return (
        f"{row['model']}: hidden {row['hidden']:,}, {row['layers']} layers\n"
        f"r={row['rank']} on {row['targets']}, {row['dtype']}\n"
        f"exact size {row['exact_mb']:,.1f} MiB\n"
        f"naive formula {row['naive_mb']:,.1f} MiB ({gap:+.0f}%)\n"
        f"{row['fit_exact']:,} fit in {row['budget_gib']:g} GiB (naive says {row['fit_naive']:,})"
    )


#: The models of the sizing panel in chapters 2 and 14 (the fleet calculator page offers every dense config).
SIZING_PANEL_MODELS: tuple[str, ...] = (
    "llama-2-7b",
    "llama-3-8b",
    "llama-3.2-1b",
    "llama-3.2-3b",
    "llama-3-70b",
    "llama-3.1-405b",
    "mistral-7b",
    "qwen2.5-7b",
    "qwen3-8b",
    "gemma-2-9b",
)


def adapter_vram_panel(model: str = "llama-3-8b") -> Panel:
    """Size an adapter from model (hidden size, layers, GQA), rank, targets and dtype; count what fits (ch. 2, 14)."""
    models = tuple(m for m in SIZING_PANEL_MODELS if m in _sizing_models())
    return Panel(
        "adapter_vram_panel",
        title="How many adapters fit: exact size (from config.json) vs the square formula",
        controls=[
            Control("rank", "LoRA rank r", values=RANKS, default=16),
            Control("model", "base model", values=models, default=model),
            Control("targets", "target modules", values=tuple(TARGET_SETS), default="q,v"),
            Control("dtype", "adapter dtype", values=tuple(DTYPE_BYTES), default="bf16"),
            Control("budget_gib", "adapter budget (GiB)", values=BUDGETS_GIB, default=8.0),
        ],
        compute=_adapter_state,
        readout=_adapter_readout,
        chart=Lines(
            "rank",
            (
                Series("fit_exact_plot", "exact size (GQA-aware)", OKABE_ITO["bluish_green"]),
                Series("fit_naive_plot", "naive: layers x targets x 2 x r x d", OKABE_ITO["vermillion"], dashed=True),
            ),
            y_title="adapters that fit the budget (log)",
            x_log=True,
            y_log=True,
            y_domain=(1, 1_000_000),
            x_title="LoRA rank r (log)",
        ),
    )


#: The split panel's models: dense configs of three families, two of them with sliding-window layers.
SPLIT_MODELS: tuple[str, ...] = ("llama-3.2-3b", "llama-3-8b", "mistral-7b", "qwen2.5-7b", "gemma-2-9b", "qwen3-14b")
#: The split panel's GPUs (from the one table, :mod:`labcore.gpus`), smallest to largest.
SPLIT_GPUS: tuple[str, ...] = ("L4-24GB", "A100-40GB", "L40S-48GB", "H100-80GB", "H200-141GB")
SPLIT_CONTEXTS: tuple[int, ...] = (4096, 8192, 32768)
SPLIT_SEQUENCES: tuple[int, ...] = tuple(range(8, 65, 8))
SPLIT_RANKS: tuple[int, ...] = (8, 16, 32, 64)
SPLIT_TARGETS = ("q_proj", "v_proj")


@functools.cache
def _split(model: str, gpu: str, sequences: int, context_tokens: int) -> MemorySplit:
    """The split without its adapter size (the grid asks each one for every rank: computed once)."""
    return memory_split(model, gpu, sequences=sequences, context_tokens=context_tokens)


@functools.cache
def _exact_mb(model: str, rank: int) -> float:
    return exact_adapter_mb(model, rank, list(SPLIT_TARGETS))


@functools.cache
def _slides(model: str) -> bool:
    return any(window is not None for window in kv_layer_windows(model))


def _split_state(sequences: int, model: str, gpu: str, context_tokens: int, rank: int) -> dict[str, Any]:
    adapter = _exact_mb(model, rank)
    s = dataclasses.replace(_split(model, gpu, sequences, context_tokens), adapter_mb=adapter)
    token_bytes = s.kv_gib * 2**30 / s.kv_tokens  # averaged over the sequence: sliding layers keep only their window
    return {
        "gpu_gib": s.gpu_gib,
        "base_gib": s.base_gib,
        "kv_gib": s.kv_gib,
        "kv_tokens": s.kv_tokens,
        "kv_kib_per_token": token_bytes / 1024,
        "pool_gib": s.pool_gib,
        "adapter_mb": adapter,
        "adapters": s.adapters_that_fit,
        "adapters_plot": s.adapters_that_fit or None,  # a log axis has no zero
        "tokens_per_adapter": adapter * 2**20 / token_bytes,
        "fits": s.fits,
        "sliding": _slides(model),
    }


def _split_readout(r: Any) -> str:
    head = f"{r['model']} on {r['gpu']}: {r['gpu_gib']:,.1f} GiB"
    kv = f"KV: {r['sequences']} × {r['context_tokens']:,} = {r['kv_tokens']:,} tokens, {r['kv_gib']:,.1f} GiB"
    if not r["fits"]:
        return (
            f"{head}\n{kv}\nbase {r['base_gib']:,.1f} + KV {r['kv_gib']:,.1f} GiB: no room for an adapter\n"
            "fewer sequences, a shorter context or a bigger GPU"
        )
    per_token = f"{r['kv_kib_per_token']:,.0f} KiB a token" + (" (sliding window)" if r["sliding"] else "")
    return (
        f"{head}\n"
        f"base {r['base_gib']:,.1f} + KV {r['kv_gib']:,.1f} + adapters {r['pool_gib']:,.1f} GiB\n"
        f"{kv}\n{per_token}\n"
        f"r={r['rank']} q,v adapter {r['adapter_mb']:,.2f} MiB = {r['tokens_per_adapter']:,.0f} tokens of KV\n"
        f"{r['adapters']:,} adapters fit beside {r['sequences']} sequences"
    )


def gpu_split_panel() -> Panel:
    """Trade KV-cache tokens against resident adapters on one GPU: model, GPU, context, sequences, rank (chapter 2).

    Every GPU holds the base (bf16, from its parameter count), a KV-cache pool for ``sequences`` of
    ``context_tokens`` sized from the model's config (:func:`labcore.capacity.memory_split`), and exact-size
    rank-``rank`` q,v adapters in what is left.

    >>> row = gpu_split_panel().row()       # chapter 2's split: Llama-3-8B on an H100, 24 sequences of 8,192
    >>> row["kv_gib"], row["adapter_mb"], row["adapters"], row["tokens_per_adapter"]
    (24.0, 13.0, 2577, 104.0)
    """
    return Panel(
        "gpu_split_panel",
        title="One GPU: every sequence of KV cache is adapters you cannot keep",
        controls=[
            Control("sequences", "sequences at once", values=SPLIT_SEQUENCES, default=TEACHING.sequences),
            Control("model", "base model (bf16)", values=SPLIT_MODELS, default="llama-3-8b"),
            Control("gpu", "GPU (memory as its driver reports it)", values=SPLIT_GPUS, default="H100-80GB"),
            Control("context_tokens", "context length (tokens)", values=SPLIT_CONTEXTS, default=8192),
            Control("rank", "adapter rank r (q,v)", values=SPLIT_RANKS, default=16),
        ],
        compute=_split_state,
        readout=_split_readout,
        chart=Lines(
            "sequences",
            (Series("adapters_plot", "adapters that fit", MEMORY_COLORS["adapters"]),),
            y_title="adapters that fit (log)",
            y_log=True,
            y_domain=(1, 100_000),
            x_title="sequences kept in the KV cache at once",
        ),
    )


LLAMA3_70B = {"hidden": 8192, "layers": 80, "targets": 4}  # q, k, v, o with the square formula


def _quiz_state(rank: int, pool_gib: float) -> dict[str, Any]:
    mb = adapter_vram_mb(rank, **LLAMA3_70B)
    return {"adapter_mb": mb, "fit": math.floor(pool_gib * 1024 / mb)}


def fit_quiz_panel() -> Panel:
    """Check the 70B quiz: a q,k,v,o adapter's size by rank, and how many fit in the spare VRAM (chapter 7)."""
    return Panel(
        "fit_quiz_panel",
        title="Llama-3-70B, q,k,v,o, bf16, square formula: how many fit?",
        controls=[
            Control("rank", "LoRA rank r", values=(4, 8, 16, 32, 64, 128), default=16),
            Control("pool_gib", "spare VRAM for adapters (GiB)", values=(2.0, 4.0, 8.0, 16.0, 24.0), default=8.0),
        ],
        compute=_quiz_state,
        readout=lambda r: (
            f"r={r['rank']}: {r['adapter_mb']:,.0f} MiB per adapter\n{r['fit']:,} fit in {r['pool_gib']:g} GiB"
        ),
        chart=Lines(
            "rank",
            (Series("fit", "adapters that fit", OKABE_ITO["bluish_green"]),),
            y_title="adapters that fit (log)",
            x_log=True,
            y_log=True,
            y_domain=(1, 2000),
            x_title="LoRA rank r (log)",
        ),
    )


def _fit_state(model: str, gpu: str, rank: int, targets: str) -> dict[str, Any]:
    split = memory_split(model, gpu, adapter_mb=exact_sizing(model, rank, targets).exact_mb)
    row: dict[str, Any] = {
        "gpu_gib": split.gpu_gib,
        "base_gib": split.base_gib,
        "kv_gib": split.kv_gib,
        "pool_gib": max(0.0, split.pool_gib),
        "adapter_mb": split.adapter_mb,
        "fit": split.adapters_that_fit,
        "fits_base": split.pool_gib > 0,
    }
    row["fit_plot"] = row["fit"] or None  # a log axis has no zero: no point where nothing fits
    return row


def _fit_readout(r: Any) -> str:
    head = f"{r['model']} on {r['gpu']} ({r['gpu_gib']:,.1f} GiB)"
    if not r["fits_base"]:
        return (
            f"{head}\nbase {r['base_gib']:,.1f} GiB + KV {r['kv_gib']:,.1f} GiB: no room\n"
            "pick a bigger GPU (sharding is not modelled here)"
        )
    return (
        f"{head}\nbase {r['base_gib']:,.1f} + KV {r['kv_gib']:,.1f} + adapters {r['pool_gib']:,.1f} GiB\n"
        f"r={r['rank']} on {r['targets']}: {r['adapter_mb']:,.1f} MiB each\n"
        f"{r['fit']:,} adapters fit beside the base"
    )


def gpu_fit_panel() -> Panel:
    """Pick a model, a GPU, a rank and targets: how many exact-size adapters fit beside the base and its KV cache."""
    return Panel(
        "gpu_fit_panel",
        title="Your model on your GPU: how many adapters fit?",
        controls=[
            Control("rank", "LoRA rank r", values=(4, 8, 16, 32, 64, 128), default=16),
            Control("model", "base model (bf16)", values=_sizing_models(), default="llama-3.1-8b"),
            Control("gpu", "GPU", values=known_gpus(), default="H100-80GB"),
            Control("targets", "target modules", values=tuple(TARGET_SETS), default="q,v"),
        ],
        compute=_fit_state,
        readout=_fit_readout,
        chart=Lines(
            "rank",
            (Series("fit_plot", "adapters that fit", OKABE_ITO["bluish_green"]),),
            y_title="adapters that fit (log)",
            x_log=True,
            y_log=True,
            y_domain=(1, 100_000),
            x_title="LoRA rank r (log)",
        ),
    )
