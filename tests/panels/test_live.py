"""A panel's live controls: any value, computed by labcore on change, drawn in the same chart and readout."""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

from labcore.panels import live_panel, show  # noqa: E402
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


def test_rows_already_computed_are_kept() -> None:
    panel = show("fleet_savings_panel")
    calls = []
    compute = panel.compute
    panel.compute = lambda **state: calls.append(state) or compute(**state)
    view = live_panel(panel)
    first = len(calls)
    view.set(tenants=41)
    view.set(tenants=panel.defaults()["tenants"])
    assert len(calls) - first == 1, "moving back to a state already drawn computed it again"
