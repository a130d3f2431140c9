"""Tests for the chapter 3-4 sections of labcore.plots and labcore.widgets: data records, figures, panels."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from labcore import AdapterCache, FifoAdapterCache, parse_version, tenant_adapters  # noqa: E402
from labcore.plots import (  # noqa: E402
    CACHE_POLICY_COLORS,
    plot_cache_over_time,
    plot_hit_rate_vs_budget,
    plot_release_timeline,
    plot_vram_used,
)
from labcore.widgets import budget_sweep, cache_runs, release_timeline, replay_cache  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def runs():
    return cache_runs(320, 40, 1.0)


# ---------------------------------------------------------------------------- chapter 3: release timeline


@given(st.integers(min_value=0, max_value=40))
def test_release_timeline_matches_string_max_and_semver(n):
    t = release_timeline(n)
    assert t.versions == tuple(f"1.{m}.0" for m in range(n + 1))
    for i in range(n + 1):
        published = t.versions[: i + 1]
        assert t.string_latest[i] == max(published)
        assert t.semver_latest[i] == max(published, key=parse_version) == t.versions[i]
    assert t.stale_periods == max(0, n - 9)
    assert t.releases_behind == max(0, n - 9)
    assert t.first_stale == (10 if n >= 10 else None)


def test_release_timeline_rejects_bad_counts():
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="minor_releases"):
            release_timeline(bad)


def test_plot_release_timeline_titles_and_lines():
    fig = plot_release_timeline(release_timeline(12))
    ax = fig.axes[0]
    assert ax.get_title() == "String sort stuck on 1.9.0 since 1.10.0: 23% of unpinned traffic stale"
    semver, string = ax.get_lines()[:2]
    assert list(semver.get_ydata())[-1] == 12 and list(string.get_ydata())[-1] == 9
    assert plot_release_timeline(release_timeline(9)).axes[0].get_title() == "Up to 1.9.0 string sort and semver agree"


def test_plot_release_timeline_draws_on_given_axes():
    fig, ax = plt.subplots()
    assert plot_release_timeline(release_timeline(3), ax=ax) is fig


# ---------------------------------------------------------------------------- chapter 4: replaying the cache


def test_replay_counts_match_the_cache_itself():
    adapters = tenant_adapters(5)
    seq = [adapters[i] for i in (0, 1, 2, 0, 3, 4, 0, 1, 2, 3)]
    cache = AdapterCache(48, 8.0)
    run = replay_cache(cache, seq, tenants=5, zipf_s=0.0, window=4)
    assert (run.hits, run.misses) == (cache.hits, cache.misses)
    assert run.evictions == len(cache.eviction_log)
    assert run.window_requests == (4, 4, 2) and sum(run.window_hits) == run.hits
    assert run.load_ms == pytest.approx(run.misses * 2.0)
    assert run.policy == "LRU" and run.working_set_mb == 80.0 and run.hot_key == "tenant-01@1.0.0"


adapter_seq = st.lists(st.integers(min_value=0, max_value=7), min_size=1, max_size=120)


@given(adapter_seq, st.integers(min_value=1, max_value=6), st.sampled_from([AdapterCache, FifoAdapterCache]))
def test_replay_never_exceeds_budget_and_load_first_peaks_do(indices, slots, cls):
    pool = tenant_adapters(8)
    run = replay_cache(cls(16.0 * slots, 8.0), [pool[i] for i in indices], tenants=8, zipf_s=1.0, window=7)
    assert all(used <= run.budget_mb for used in run.used_mb)
    over = [p for p in run.load_first_peak_mb if p > run.budget_mb]
    assert len(over) == sum(1 for u, p in zip(run.used_mb, run.load_first_peak_mb) if p != u)
    assert len(over) <= run.evictions  # one crossing per miss that had to evict
    assert run.hits + run.misses == len(indices) == sum(run.window_requests)
    assert run.policy == ("FIFO" if cls is FifoAdapterCache else "LRU")


def test_replay_rejects_bad_window():
    with pytest.raises(ValueError, match="window"):
        replay_cache(AdapterCache(32, 8.0), tenant_adapters(2), tenants=2, zipf_s=1.0, window=0)


def test_cache_runs_are_seeded_and_lru_protects_the_hot_adapter(runs):
    again = cache_runs(320, 40, 1.0)
    assert again == runs
    assert runs["LRU"].hit_rate > runs["FIFO"].hit_rate
    assert runs["LRU"].hot_evictions < runs["FIFO"].hot_evictions
    assert cache_runs(320, 40, 1.0, seed=1) != runs


def test_budget_sweep_hits_rise_with_budget_and_stop_evicting_at_the_working_set():
    sweep = budget_sweep([64, 320, 640, 704], 40, 1.0)
    lru = sweep["LRU"]
    rates = [r.hit_rate for r in lru]
    assert rates == sorted(rates)  # LRU has no Belady anomaly
    assert [r.evictions for r in lru][2:] == [0, 0]
    assert lru[2].misses == 40  # only the cold loads


# ---------------------------------------------------------------------------- chapter 4: figures


@pytest.mark.parametrize("metric", ["hit_rate", "evictions", "load_ms"])
def test_plot_cache_over_time_one_line_per_policy(runs, metric):
    ax = plot_cache_over_time(runs, metric=metric).axes[0]
    lines = ax.get_lines()
    assert [l.get_label() for l in lines] == ["LRU", "FIFO"]
    assert [l.get_color() for l in lines] == [CACHE_POLICY_COLORS["LRU"], CACHE_POLICY_COLORS["FIFO"]]
    assert ax.get_ylabel().endswith(")") and ax.get_xlabel() == "Requests"
    if metric == "evictions":
        assert sum(lines[0].get_ydata()) == runs["LRU"].evictions


def test_plot_cache_over_time_rejects_unknown_metric(runs):
    with pytest.raises(ValueError, match="unknown cache metric"):
        plot_cache_over_time(runs, metric="p99")
    with pytest.raises(ValueError, match="no cache runs"):
        plot_cache_over_time({})


def test_plot_hit_rate_vs_budget_marks_working_set_and_budget():
    ax = plot_hit_rate_vs_budget(budget_sweep([128, 640], 40, 1.0), budget_mb=320).axes[0]
    labels = [l.get_label() for l in ax.get_lines()]
    assert labels == ["LRU", "FIFO", "working set 640 MiB", "budget 320 MiB"]
    assert ax.get_xlabel() == "VRAM budget for adapters (MiB)"


def test_plot_vram_used_stays_under_budget_line(runs):
    run = runs["LRU"]
    ax = plot_vram_used(run).axes[0]
    used = ax.get_lines()[0]
    assert max(used.get_ydata()) <= run.budget_mb
    crosses = ax.get_lines()[1]
    assert len(crosses.get_xdata()) == sum(p > run.budget_mb for p in run.load_first_peak_mb) > 0
    assert ax.get_title().startswith("Evict first")


# ---------------------------------------------------------------------------- panels

ipywidgets = pytest.importorskip("ipywidgets")


def test_release_headline_panel_is_static_and_moves():
    from labcore.widgets import PANELS

    panel = PANELS["release_headline_panel"]()
    assert panel.kind == "static" and {"lc-panel", "lc-static"} <= set(panel.widget._dom_classes)
    (slider,) = panel.controls.values()
    assert "lc-headline" in slider._dom_classes and panel.result.versions[-1] == "1.12.0"
    pngs = {panel.set(minor_releases=n) and panel.png for n in slider.options}
    assert len(pngs) == len(slider.options) <= 12
    assert "21 releases behind" in (panel.set(minor_releases=30) and panel.readout)


def test_lru_headline_panel_is_static_and_moves():
    from labcore.widgets import PANELS

    panel = PANELS["lru_headline_panel"]()
    assert panel.kind == "static"
    (slider,) = panel.controls.values()
    assert len(slider.options) <= 12
    low = panel.set(budget_mb=64)
    assert low["LRU"].budget_mb == 64 and "64 MiB holds 4 of 40" in panel.readout
    assert panel.reset()["LRU"].budget_mb == 320


def test_lru_cache_panel_each_control_changes_the_result():
    from labcore.widgets import PANELS

    panel = PANELS["lru_cache_panel"]()
    base = panel.result
    for name, value in (("budget_mb", 640), ("tenants", 20), ("zipf_s", 0.0)):
        panel.reset()
        moved = panel.set(**{name: value})
        assert moved != base, name
    assert panel.reset() == base and max(panel.update_ms) < 5_000
