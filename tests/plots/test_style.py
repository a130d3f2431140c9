"""Tests for labcore.plots.style: the course style, the stable colours, axis labels and dollars."""

from __future__ import annotations

import subprocess
import sys

import matplotlib
import pytest
from hypothesis import given
from hypothesis import strategies as st

from labcore import MODES, tenant_adapters
from labcore.plots import MODE_COLORS, OKABE_ITO, axis_label, mode_color, tenant_color, usd_formatter, use_course_style


def test_use_course_style_sets_palette_grid_and_spines():
    with matplotlib.rc_context():
        use_course_style()
        rc = matplotlib.rcParams
        assert rc["axes.grid"] is True
        assert rc["axes.spines.top"] is False
        assert rc["axes.prop_cycle"].by_key()["color"] == list(OKABE_ITO.values())


def test_every_router_mode_has_its_own_colour():
    assert set(MODE_COLORS) == set(MODES)
    assert len(set(MODE_COLORS.values())) == len(MODES)
    assert mode_color("dynamic") == MODE_COLORS["dynamic"]
    with pytest.raises(ValueError, match="serving mode must be one of 'base', 'dedicated', 'dynamic', got 'merged'"):
        mode_color("merged")


@given(st.text(min_size=1, max_size=40))
def test_tenant_colour_is_a_palette_colour_and_deterministic(name):
    assert tenant_color(name) == tenant_color(name)
    assert tenant_color(name) in OKABE_ITO.values()
    assert tenant_color(name) != OKABE_ITO["yellow"]


def test_tenant_colour_is_stable_across_processes():
    # Python's hash() is salted per process; the colour must not be.
    code = "from labcore.plots import tenant_color; print(tenant_color('support-bot'))"
    runs = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        for _ in range(2)
    }
    assert runs == {tenant_color("support-bot") + "\n"}


def test_tenant_colours_spread_over_the_palette():
    colours = {tenant_color(a.name) for a in tenant_adapters(40)}
    assert len(colours) >= 5


def test_tenant_colour_rejects_empty_name():
    with pytest.raises(ValueError, match="non-empty"):
        tenant_color("")


def test_axis_label_and_usd_formatter():
    assert axis_label("Monthly bill", "USD") == "Monthly bill (USD)"
    assert axis_label("Tenants", None) == "Tenants"
    fmt = usd_formatter()
    assert [fmt(v, None) for v in (0, 2336, 93440, 1_200_000)] == ["$0", "$2k", "$93k", "$1.2M"]
