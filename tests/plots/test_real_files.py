"""Tests for labcore.plots.real_files: exact sizes from config.json against naive ones, and the wrong-base figure."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import pytest

from labcore.demo import load_demo_results
from labcore.model_config import TARGET_SETS, exact_adapter_mb, exact_sizing
from labcore.plots import (
    DEMO_CHECKPOINTS,
    REGISTRY_COLORS,
    SIZE_COLORS,
    plot_exact_vs_naive,
    plot_size_comparison,
    plot_wrong_base,
)
from labcore.sizing import adapter_vram_mb

RESULTS = Path(__file__).resolve().parents[2] / "results" / "real_lora.json"


def test_size_comparison_draws_one_pair_per_row_with_exact_labels():
    fig = plot_size_comparison([("q", 8.0, 8.0), ("v", 8.0, 5.0), ("gate", 8.0, 18.0)], title="t")
    ax = fig.axes[0]
    bars = ax.patches
    assert len(bars) == 6
    assert [b.get_height() for b in bars] == [8.0, 8.0, 8.0, 8.0, 5.0, 18.0]
    assert [t.get_text() for t in ax.texts] == ["8.0", "5.0", "18.0"]
    assert ax.get_ylim()[1] > 18.0 and ax.get_ylabel() == "Adapter size (MiB)"


def test_size_comparison_needs_rows():
    with pytest.raises(ValueError, match="at least one"):
        plot_size_comparison([], title="empty")


@pytest.mark.parametrize("rank", [4, 16, 100])
def test_exact_vs_naive_lines_match_the_core(rank):
    ax = plot_exact_vs_naive(rank).axes[0]
    file_line, naive_line, exact_line = ax.lines[:3]
    assert file_line.get_color() == SIZE_COLORS["file"] and exact_line.get_color() == SIZE_COLORS["exact"]
    xs = list(exact_line.get_xdata())
    assert rank in xs  # an off-grid rank is added to the sweep
    i = xs.index(rank)
    assert exact_line.get_ydata()[i] == exact_adapter_mb("llama-3-8b", rank, ["q", "v"])
    assert naive_line.get_ydata()[i] == adapter_vram_mb(rank, 4096, 32, 2)
    assert file_line.get_ydata()[i] == 2 * exact_line.get_ydata()[i]
    assert ax.get_title().startswith(f"r={rank}: ")


def test_exact_vs_naive_title_states_the_headline():
    assert plot_exact_vs_naive(16).axes[0].get_title() == "r=16: 13.0 MiB served, 26.0 MiB on disk, naive 16.0"


def test_wrong_base_plot_reads_the_committed_results():
    det = load_demo_results(RESULTS).deterministic
    ax = plot_wrong_base(det).axes[0]
    bars = ax.patches[: len(DEMO_CHECKPOINTS)]
    assert [b.get_height() for b in bars] == [det["metrics"][k]["adapter_atbash_exact_match"] for k in DEMO_CHECKPOINTS]
    registered = matplotlib.colors.to_rgba(REGISTRY_COLORS["registered"])
    refused = matplotlib.colors.to_rgba(REGISTRY_COLORS["refused"])
    expected = [registered if det["registry"][k] == "registered" else refused for k in DEMO_CHECKPOINTS]
    assert [b.get_facecolor() for b in bars] == expected
    assert [t.get_text().split("\n")[1] for t in ax.texts] == [
        f"base moved {det['weight_change'][k]:.0%}" for k in DEMO_CHECKPOINTS
    ]


def test_wrong_base_plot_colours_a_refusal_even_when_the_adapter_works():
    det = {
        "metrics": {
            "A": {"adapter_atbash_exact_match": 1.0, "base_copy_exact_match": 1.0},
            "B": {"adapter_atbash_exact_match": 1.0, "base_copy_exact_match": 1.0},
        },
        "registry": {"A": "registered", "B": "refused: BaseDigestMismatchError"},
        "weight_change": {"A": 0.0, "B": 0.1},
    }
    bars = plot_wrong_base(det).axes[0].patches[:2]
    assert bars[0].get_facecolor() != bars[1].get_facecolor()
    assert bars[1].get_facecolor() == matplotlib.colors.to_rgba(REGISTRY_COLORS["refused"])


def test_exact_sizing_computes_the_chapter_numbers():

    s = exact_sizing()
    assert (s.exact_mb, s.naive_mb, s.file_mb) == (13.0, 16.0, 26.0)
    assert sum(e for _, _, e in s.per_target) == s.exact_mb
    all7 = exact_sizing("llama-3-8b", 16, "all 7 (attention + MLP)")
    assert all7.targets == TARGET_SETS["all 7 (attention + MLP)"] and all7.exact_mb == 80.0 > all7.naive_mb == 56.0
    assert exact_sizing("llama-2-7b").exact_mb == exact_sizing("llama-2-7b").naive_mb == 16.0
