"""Figures of the real-files chapter: exact sizes read from config.json, and the wrong-base demo."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..demo import DEMO_CHECKPOINTS
from ..model_config import exact_adapter_mb, load_model_config
from ..sizing import adapter_vram_mb
from .offline import needs_matplotlib
from .sizing import DEFAULT_RANKS
from .style import GREY, OKABE_ITO, _axes, legend_patches, set_axis_units

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "SIZE_COLORS",
    "DEMO_CHECKPOINTS",
    "DEMO_CHECKPOINT_LABELS",
    "REGISTRY_COLORS",
    "plot_size_comparison",
    "plot_exact_vs_naive",
    "plot_wrong_base",
]

SIZE_COLORS: dict[str, str] = {
    "naive": GREY,  # the square formula of chapter 2 (every projection d x d)
    "exact": OKABE_ITO["bluish_green"],  # from config.json, at the serving dtype
    "file": OKABE_ITO["orange"],  # what PEFT writes to disk (F32 by default)
}


#: The wrong-base checkpoints of ``scripts/real_lora_demo.py``, in the order the chapter tells them.


DEMO_CHECKPOINT_LABELS: dict[str, str] = {
    "A": "A\n(trained on)",
    "B_prime_same_task": "A + more\ncopy",
    "B_prime_new_task": "A + new\ntask",
    "B": "B\n(other seed)",
}


REGISTRY_COLORS: dict[str, str] = {"registered": OKABE_ITO["bluish_green"], "refused": OKABE_ITO["vermillion"]}


@needs_matplotlib
def plot_size_comparison(rows: Sequence[tuple[str, float, float]], *, title: str, ax: Axes | None = None) -> Figure:
    """Plot naive against exact adapter size as paired bars, one pair per ``(label, naive_mb, exact_mb)`` row.

    >>> fig = plot_size_comparison([("q_proj", 4.0, 4.0), ("v_proj", 4.0, 2.5)], title="v is narrower")
    >>> [t.get_text() for t in fig.axes[0].texts]
    ['4.0', '2.5']
    """
    if not rows:
        raise ValueError("plot_size_comparison needs at least one (label, naive_mb, exact_mb) row")
    fig, ax = _axes(ax)
    xs = list(range(len(rows)))
    width = 0.38
    naive = [r[1] for r in rows]
    exact = [r[2] for r in rows]
    ax.bar([x - width / 2 for x in xs], naive, width, color=SIZE_COLORS["naive"], label="naive (d x d)")
    ax.bar([x + width / 2 for x in xs], exact, width, color=SIZE_COLORS["exact"], label="exact (config.json)")
    for x, e in zip(xs, exact, strict=True):
        ax.annotate(
            f"{e:,.1f}",
            (x + width / 2, e),
            textcoords="offset points",
            xytext=(0, 2),
            ha="center",
            va="bottom",
            fontsize=9,
        )
    ax.set_xticks(xs, [r[0] for r in rows])
    ax.set_ylim(0, max(naive + exact) * 1.18)
    ax.grid(axis="x", visible=False)
    set_axis_units(ax, y=("Adapter size", "MiB"))
    ax.legend(loc="upper left")
    ax.set_title(title)
    return fig


@needs_matplotlib
def plot_exact_vs_naive(
    rank: int,
    *,
    model: str = "llama-3-8b",
    targets: Sequence[str] = ("q_proj", "v_proj"),
    ranks: Sequence[int] = DEFAULT_RANKS,
    ax: Axes | None = None,
) -> Figure:
    """Plot three adapter sizes against rank: the naive bf16 formula, the exact bf16 size, the F32 PEFT file.

    >>> fig = plot_exact_vs_naive(16)
    >>> fig.axes[0].get_title()
    'r=16: 13.0 MiB served, 26.0 MiB on disk, naive 16.0'
    """
    cfg = load_model_config(model)
    fig, ax = _axes(ax)
    sweep = sorted(set(ranks) | {rank})
    n_targets = len(targets)

    def naive(r: int) -> float:
        return adapter_vram_mb(r, cfg.hidden_size, cfg.num_hidden_layers, n_targets, 2)

    def exact(r: int, b: int = 2) -> float:
        return exact_adapter_mb(cfg, r, targets, bytes=b)

    lines = [
        ("file", "PEFT file (F32)", lambda r: exact(r, 4)),
        ("naive", "naive formula (bf16)", naive),
        ("exact", "exact, served (bf16)", exact),
    ]
    for key, label, size in lines:
        ax.plot(sweep, [size(r) for r in sweep], marker="o", markersize=4, color=SIZE_COLORS[key], label=label)
    for key, _label, size in lines:
        ax.plot([rank], [size(rank)], marker="o", markersize=10, color=SIZE_COLORS[key], zorder=3)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xticks(sweep, [f"{r:g}" for r in sweep])
    lo = math.floor(math.log2(min(exact(r) for r in sweep)))
    hi = math.ceil(math.log2(max(exact(r, 4) for r in sweep)))
    yticks = [2.0**e for e in range(lo, hi + 1, max(1, (hi - lo + 5) // 6))]
    ax.set_yticks(yticks, [f"{v:g}" for v in yticks])
    ax.minorticks_off()
    set_axis_units(ax, x=("LoRA rank r", None), y=("Adapter size", "MiB"))
    ax.legend(loc="upper left", fontsize=9)
    ax.set_title(
        f"r={rank}: {exact(rank):,.1f} MiB served, {exact(rank, 4):,.1f} MiB on disk, naive {naive(rank):,.1f}"
    )
    return fig


@needs_matplotlib
def plot_wrong_base(deterministic: Mapping[str, Any], *, ax: Axes | None = None) -> Figure:
    """Plot the adapter's score on each checkpoint it was loaded onto, coloured by the registry's verdict.

    ``deterministic`` is the ``deterministic`` section of ``results/real_lora.json`` (``DemoResults.deterministic``).
    Each bar is labelled with the checkpoint's relative weight change from A; the black dots are the
    base model's own score on its task (every checkpoint is a good base).
    """
    fig, ax = _axes(ax)
    metrics, registry, change = deterministic["metrics"], deterministic["registry"], deterministic["weight_change"]
    keys = [k for k in DEMO_CHECKPOINTS if k in metrics]
    xs = list(range(len(keys)))
    scores = [metrics[k]["adapter_atbash_exact_match"] for k in keys]
    colors = [REGISTRY_COLORS["registered" if registry[k] == "registered" else "refused"] for k in keys]
    ax.bar(xs, scores, color=colors, width=0.6)
    ax.plot(
        xs,
        [metrics[k]["base_copy_exact_match"] for k in keys],
        "o",
        color=OKABE_ITO["black"],
        label="base model on its own task",
    )
    for x, k, s in zip(xs, keys, scores, strict=True):
        ax.annotate(
            f"{s:.2f}\nbase moved {change[k]:.0%}",
            (x, s),
            textcoords="offset points",
            xytext=(0, 3),
            ha="center",
            va="bottom",
            fontsize=9,
        )
    ax.set_xticks(xs, [DEMO_CHECKPOINT_LABELS.get(k, k) for k in keys])
    ax.set_ylim(0, 1.45)
    ax.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
    ax.grid(axis="x", visible=False)
    set_axis_units(ax, y=("Adapter exact match", "fraction"))
    handles = legend_patches(
        {"registry: registered": REGISTRY_COLORS["registered"], "registry: refused": REGISTRY_COLORS["refused"]}
    )
    ax.legend(handles=[*handles, *ax.get_legend_handles_labels()[0]], loc="upper right", fontsize=8, ncol=3)
    ax.set_title("Loads without error everywhere; works only on some")
    return fig
