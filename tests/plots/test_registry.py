"""Tests for labcore.plots.registry: which version "latest" resolves to, semver against string order."""

from __future__ import annotations

import matplotlib.pyplot as plt

from labcore.plots import plot_release_timeline
from labcore.sim import release_timeline


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
