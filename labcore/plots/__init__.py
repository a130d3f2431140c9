"""Draw the course's figures: one style, stable colours, units on every axis, a title that states the takeaway.

One module per domain noun, as in the core and in :mod:`labcore.panels`: the cache's figures are in
:mod:`labcore.plots.cache`, the router's in :mod:`labcore.plots.router`, and so on; the course look
(palettes, ``use_course_style``) is in :mod:`labcore.plots.style` and what runs without matplotlib
in :mod:`labcore.plots.offline`. This package re-exports every public name, so
``from labcore.plots import plot_vram_used`` works as it always did.

Every ``plot_*`` function takes its data (labcore records or plain numbers) and an optional
``ax``; it draws on that axes (or on a new pyplot figure) and returns the figure. Nothing here
reads global state besides matplotlib's rcParams, so the same call gives the same picture in a
notebook, in a panel and in a test.

>>> use_course_style()
>>> tenant_color("support-bot") == tenant_color("support-bot")
True
>>> MODE_COLORS["dynamic"]
'#009E73'
"""

from __future__ import annotations

from .admission import plot_admission
from .affinity import POLICY_COLORS, plot_moved_fraction, plot_policy_comparison, plot_replica_load
from .batching import RANK_COLORS, plot_break_even
from .cache import CACHE_METRICS, CACHE_POLICY_COLORS, plot_cache_over_time, plot_hit_rate_vs_budget, plot_vram_used
from .canary import CANARY_ACTION_STYLE, plot_canary_log
from .fleet import plot_fleet_costs, plot_savings_sweep
from .offline import HAVE_MATPLOTLIB, OfflinePyplot, figure_skipped_note, needs_matplotlib, offline_pyplot
from .prefix_cache import KEY_POLICY_COLORS, plot_stale_hits
from .real_files import (
    DEMO_CHECKPOINT_LABELS,
    DEMO_CHECKPOINTS,
    REGISTRY_COLORS,
    SIZE_COLORS,
    plot_exact_vs_naive,
    plot_size_comparison,
    plot_wrong_base,
)
from .registry import VERSION_POLICY_COLORS, plot_release_timeline
from .router import LATENCY_PART_COLORS, plot_latency_breakdown, plot_merge_vs_dynamic
from .sim import SIM_COLORS, plot_ms_bars, plot_p99_cliff, plot_sim_timeline
from .sizing import DEFAULT_RANKS, plot_adapter_vram, plot_gpu_split
from .slots import FIX_COLORS, TTFT_COLORS, plot_slot_fixes, plot_ttft_cliff
from .style import (
    GREY,
    MEMORY_COLORS,
    MODE_COLORS,
    OKABE_ITO,
    axis_label,
    course_rc,
    legend_patches,
    mode_color,
    set_axis_units,
    tenant_color,
    usd_formatter,
    use_course_style,
)
from .tiers import plot_tier_churn

__all__ = [
    # style
    "OKABE_ITO",
    "GREY",
    "MODE_COLORS",
    "MEMORY_COLORS",
    "course_rc",
    "use_course_style",
    "tenant_color",
    "mode_color",
    "axis_label",
    "set_axis_units",
    "usd_formatter",
    "legend_patches",
    # offline
    "HAVE_MATPLOTLIB",
    "needs_matplotlib",
    "figure_skipped_note",
    "OfflinePyplot",
    "offline_pyplot",
    # by noun
    "DEFAULT_RANKS",
    "plot_adapter_vram",
    "plot_gpu_split",
    "VERSION_POLICY_COLORS",
    "plot_release_timeline",
    "CACHE_POLICY_COLORS",
    "CACHE_METRICS",
    "plot_cache_over_time",
    "plot_hit_rate_vs_budget",
    "plot_vram_used",
    "LATENCY_PART_COLORS",
    "plot_latency_breakdown",
    "plot_merge_vs_dynamic",
    "plot_fleet_costs",
    "plot_savings_sweep",
    "SIM_COLORS",
    "plot_sim_timeline",
    "plot_p99_cliff",
    "plot_ms_bars",
    "plot_tier_churn",
    "POLICY_COLORS",
    "plot_policy_comparison",
    "plot_replica_load",
    "plot_moved_fraction",
    "CANARY_ACTION_STYLE",
    "plot_canary_log",
    "RANK_COLORS",
    "plot_break_even",
    "plot_admission",
    "SIZE_COLORS",
    "DEMO_CHECKPOINTS",
    "DEMO_CHECKPOINT_LABELS",
    "REGISTRY_COLORS",
    "plot_size_comparison",
    "plot_exact_vs_naive",
    "plot_wrong_base",
    "KEY_POLICY_COLORS",
    "plot_stale_hits",
    "TTFT_COLORS",
    "FIX_COLORS",
    "plot_ttft_cliff",
    "plot_slot_fixes",
]
