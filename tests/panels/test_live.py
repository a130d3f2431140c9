"""A panel's live controls: any value, computed by labcore on change, drawn in the same chart and readout."""

from __future__ import annotations

import itertools

import pytest

pytest.importorskip("ipywidgets")

from labcore.panels import PANELS, live_panel, show  # noqa: E402
from labcore.panels._panel import READOUT  # noqa: E402


def test_an_off_grid_value_is_computed_and_drawn_in_the_same_chart() -> None:
    panel = show("fleet_savings_panel")
    view = live_panel(panel)
    view.set(tenants=41, tenant_qps=1.2)
    assert view.readout() == panel.row(tenants=41, tenant_qps=1.2)[READOUT]
    spec = view.drawn.spec()
    assert spec["usermeta"]["labcore_panel"] == panel.name and spec["title"] == panel.spec()["title"]
    xs = [row["tenants"] for row in spec["data"]["values"]]
    assert 41 in xs and xs == sorted(xs) and all(row["tenant_qps"] == 1.2 for row in spec["data"]["values"])
    assert {p["name"]: p["value"] for p in spec["params"]}["tenants"] == 41


def test_the_slider_and_the_box_are_one_value() -> None:
    view = live_panel(show("fleet_load_panel"))
    box = view.controls["tenant_qps"]
    slider = next(child for row in view.widget.children[:-1] for child in getattr(row, "children", ())
                  if child is not box and getattr(child, "value", None) == box.value)
    slider.value = 3.3
    assert box.value == pytest.approx(3.3) and view.readout() == show("fleet_load_panel").row(tenant_qps=box.value)[READOUT]


def test_a_control_it_does_not_have_is_refused_and_nothing_changes() -> None:
    view = live_panel(show("fleet_savings_panel"))
    before = view.state()
    with pytest.raises(KeyError, match="no control"):
        view.set(tenant=41)
    assert view.state() == before


def _recording(name: str):  # noqa: ANN202
    """Return the panel ``name`` whose ``compute`` records each state it is asked for, and that record."""
    panel, calls = show(name), []
    compute = panel.compute
    panel.compute = lambda **state: calls.append(state) or compute(**state)
    return panel, calls


def test_rows_already_computed_are_kept() -> None:
    panel, calls = _recording("fleet_savings_panel")
    view = live_panel(panel)
    first = len(calls)
    view.set(tenants=41)
    view.set(tenants=panel.defaults()["tenants"])
    assert len(calls) - first == 1, "moving back to a state already drawn computed it again"


def test_the_drawn_chart_binds_no_input_of_its_own() -> None:
    """The widgets are a live panel's controls: its chart has no Vega inputs beside them (the page's panel has)."""
    panel = show("fleet_savings_panel")
    assert all("bind" in p for p in panel.spec()["params"])
    view = live_panel(panel)
    view.set(tenants=41)
    assert [p for p in view.drawn.spec()["params"] if "bind" in p] == []


@pytest.mark.parametrize("name", sorted(n for n in PANELS if show(n).curve))
def test_a_panels_curve_gives_its_rows_series(name) -> None:
    """Where a panel has a cheaper ``curve`` for the sweep, it gives the series values its rows hold, state by state."""
    panel = show(name)
    series = [s.field for s in panel.chart.series]
    states = [dict(zip((c.name for c in panel.controls), combo)) for combo in
              itertools.product(*(c.values for c in panel.controls))][::7]  # every 7th state of the grid
    for state in states:
        row = panel.row(**state)
        curve = panel.curve(**state)
        assert {k: round(curve[k], 6) for k in series} == {k: row[k] for k in series}, state


def test_a_move_computes_the_whole_row_only_where_the_reader_is() -> None:
    """Chapter 4's panel: a tenants move replays the whole replica once; the other budgets take the curve."""
    panel, calls = _recording("lru_thrash_panel")
    view = live_panel(panel)
    calls.clear()
    view.set(tenants=41)
    assert calls == [panel.defaults() | {"tenants": 41}]
    assert view.readout() == show("lru_thrash_panel").row(tenants=41)[READOUT]
    rows = view.drawn.spec()["data"]["values"]
    budgets = [r["budget_mb"] for r in rows]
    assert budgets == sorted(budgets) and len(budgets) == 20
    curve = [show("lru_thrash_panel").row(tenants=41, budget_mb=b) for b in (64, 640, 1280)]
    assert [next(r["lru_hit_pct"] for r in rows if r["budget_mb"] == c["budget_mb"]) for c in curve] == \
        [c["lru_hit_pct"] for c in curve]
