"""A panel's live controls: the panel's defaults exactly, any typed value kept as typed, one row per change."""

from __future__ import annotations

import asyncio
import itertools

import pytest

pytest.importorskip("ipywidgets")

from labcore.panels import PANELS, live_panel, show  # noqa: E402
from labcore.panels._panel import READOUT, VEGALITE_MIME, _is_number  # noqa: E402
from labcore.panels.live import kernel_loop_schedule  # noqa: E402


def _deferred():  # noqa: ANN202
    """Return a schedule that keeps the callbacks (nothing runs until the test runs them) and their list."""
    queue = []
    return queue.append, queue


def _run(queue) -> None:  # noqa: ANN001
    while queue:
        queue.pop(0)()


def _drawn_readout(view) -> str:  # noqa: ANN001
    """Return the readout the view's output area shows: its chart's row at the controls' current state."""
    (output,) = view.output.outputs
    spec = output["data"][VEGALITE_MIME]
    state = view.state()
    (row,) = [r for r in spec["data"]["values"] if all(r[k] == v for k, v in state.items())]
    return row[READOUT]


def _number_controls_of(panel) -> list[str]:  # noqa: ANN001
    return [c.name for c in panel.controls if _is_number(c.default) and all(_is_number(v) for v in c.values)]


def _number_controls() -> list[tuple[str, str]]:
    return [(name, control) for name in sorted(PANELS) for control in _number_controls_of(show(name))]


def _slider(view, name: str):  # noqa: ANN001, ANN202
    """Return the slider shown beside control ``name``'s number box, or None (a dropdown has none)."""
    box = view.controls[name]
    row = next((r for r in view.widget.children[:-1] if box in getattr(r, "children", ())), None)
    return None if row is None else next(child for child in row.children if child is not box)


def _off_grid(control):  # noqa: ANN001, ANN202
    """Return a value a reader might type that is not on ``control``'s grid: between two values, or past the last."""
    values = sorted(control.values)
    if all(isinstance(v, int) for v in values):
        between = [v for a, b in itertools.pairwise(values) for v in range(a + 1, b)]
        return between[len(between) // 2] if between else values[-1] + 1
    return round((values[0] + values[1]) / 2 + 0.001, 3)


@pytest.mark.parametrize("name", sorted(PANELS))
def test_it_opens_on_the_panels_defaults_exactly(name) -> None:
    """Every box, slider and dropdown opens at the panel's default, and the first drawing reads ``row(**defaults)``."""
    panel = show(name)
    schedule, _queue = _deferred()
    view = live_panel(panel, schedule=schedule)
    defaults = panel.defaults()
    assert view.state() == defaults
    sliders = {name: _slider(view, name) for name in defaults}
    assert {name: s.value for name, s in sliders.items() if s is not None} == {
        c.name: c.default for c in panel.controls if sliders[c.name] is not None
    }
    assert any(s is not None for s in sliders.values()) or not _number_controls_of(panel)
    expected = panel.row(**defaults)[READOUT]
    assert _drawn_readout(view) == expected and view.readout() == expected


@pytest.mark.parametrize(("name", "control"), _number_controls())
def test_a_typed_value_off_the_grid_is_kept_and_computed(name, control) -> None:
    """Typing a value off the grid keeps it in the box as typed; the slider goes to the nearest grid value without
    writing it back; the readout drawn is ``row()`` at the typed value."""
    panel = show(name)
    spec = next(c for c in panel.controls if c.name == control)
    value = _off_grid(spec)
    assert value not in spec.values
    schedule, _queue = _deferred()
    view = live_panel(panel, schedule=schedule)
    view.set(**{control: value})
    assert view.controls[control].value == value and view.state() == panel.defaults() | {control: value}
    slider = _slider(view, control)
    assert slider.value == min(spec.values, key=lambda v: abs(v - value))
    expected = panel.row(**{control: value})[READOUT]
    assert _drawn_readout(view) == expected and view.readout() == expected


def test_dragging_the_slider_sets_the_box_to_the_grid_value() -> None:
    view = live_panel(show("fleet_calculator_panel"))
    box, slider = view.controls["tenant_qps"], _slider(view, "tenant_qps")
    assert box.value == slider.value == 0.5
    slider.value = slider.options[-1][1]
    assert box.value == slider.options[-1][1]
    assert view.readout() == show("fleet_calculator_panel").row(tenant_qps=box.value)[READOUT]
    box.value = 0.45  # typed: the slider follows to 0.5 (the nearest grid value) and the box keeps 0.45
    assert (box.value, slider.value) == (0.45, 0.5)


def test_a_control_it_does_not_have_is_refused_and_nothing_changes() -> None:
    view = live_panel(show("fleet_savings_panel"))
    before = view.state()
    with pytest.raises(KeyError, match="no control"):
        view.set(tenant=41)
    assert view.state() == before


def test_a_value_labcore_refuses_shows_its_error_naming_it() -> None:
    view = live_panel(show("fleet_savings_panel"))
    view.set(tenants=-3)
    (output,) = view.output.outputs
    assert output["output_type"] == "stream" and "-3" in output["text"] and view.error == output["text"].strip()
    view.set(tenants=41)
    assert view.error is None and _drawn_readout(view) == show("fleet_savings_panel").row(tenants=41)[READOUT]


def _recording(name: str):  # noqa: ANN202
    """Return the panel ``name`` whose ``compute`` records each state it is asked for, and that record."""
    panel, calls = show(name), []
    compute = panel.compute
    panel.compute = lambda **state: calls.append(state) or compute(**state)
    return panel, calls


@pytest.mark.parametrize(
    ("name", "control", "value"),
    [
        ("fleet_savings_panel", "tenant_qps", 1.2),
        ("canary_panel", "candidate_latency_ms", 45.0),
        ("fleet_savings_panel", "tenants", 41),
    ],
)
def test_a_change_draws_with_one_row_and_the_sweep_follows(name, control, value) -> None:
    """The first redraw after a typed value computes one row (the reader's); the sweep's other points are computed
    afterwards, as scheduled, and drawn once all are there, each equal to ``row()``."""
    panel, calls = _recording(name)
    schedule, queue = _deferred()
    view = live_panel(panel, schedule=schedule)
    _run(queue)
    calls.clear()
    view.set(**{control: value})
    state = panel.defaults() | {control: value}
    assert calls == [state], "the first redraw computed more than the reader's row"
    assert _drawn_readout(view) == show(name).row(**state)[READOUT]
    _run(queue)
    x = panel.chart.x
    xs = sorted(set(next(c for c in panel.controls if c.name == x).values) | {state[x]})
    rows = view.output.outputs[0]["data"][VEGALITE_MIME]["data"]["values"]
    assert [r[x] for r in rows] == xs and view.pending == []
    assert rows == [show(name).row(**state | {x: v}) for v in xs]


def test_a_newer_change_drops_the_older_sweep() -> None:
    panel, calls = _recording("fleet_savings_panel")
    schedule, queue = _deferred()
    view = live_panel(panel, schedule=schedule)
    view.set(tenant_qps=1.2)
    view.set(tenant_qps=1.3)
    calls.clear()
    _run(queue)
    assert {c["tenant_qps"] for c in calls} == {1.3}


def test_rows_already_computed_are_kept() -> None:
    panel, calls = _recording("fleet_savings_panel")
    view = live_panel(panel)
    first = len(calls)
    view.set(tenants=41)
    view.set(tenants=panel.defaults()["tenants"])
    assert len(calls) - first == 1, "moving back to a state already drawn computed it again"


def test_a_grid_the_panel_holds_is_read_not_computed() -> None:
    """Where the panel's grid is there (computed, or the book build's in the Live site), opening computes nothing."""
    panel, calls = _recording("fleet_savings_panel")
    panel.rows()
    calls.clear()
    view = live_panel(panel)
    assert calls == [] and view.pending == []
    view.set(tenants=41)
    assert calls == [panel.defaults() | {"tenants": 41}]


def test_the_drawn_chart_binds_no_input_of_its_own() -> None:
    """The widgets are a live panel's controls: its chart has no Vega inputs beside them (the page's panel has)."""
    panel = show("fleet_savings_panel")
    assert all("bind" in p for p in panel.spec()["params"])
    view = live_panel(panel)
    view.set(tenants=41)
    assert [p for p in view.drawn.spec()["params"] if "bind" in p] == []
    assert {p["name"]: p["value"] for p in view.drawn.spec()["params"]}["tenants"] == 41


@pytest.mark.parametrize("name", sorted(n for n in PANELS if show(n).curve))
def test_a_panels_curve_gives_its_rows_series(name) -> None:
    """Where a panel has a cheaper ``curve`` for the sweep, it gives the series values its rows hold, state by state."""
    panel = show(name)
    series = [s.field for s in panel.chart.series]
    states = [
        dict(zip((c.name for c in panel.controls), combo, strict=True))
        for combo in itertools.product(*(c.values for c in panel.controls))
    ][::7]  # every 7th state of the grid
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
    assert calls == [panel.defaults() | {"tenants": 41}] and view.pending == []
    assert view.readout() == show("lru_thrash_panel").row(tenants=41)[READOUT]
    rows = view.drawn.spec()["data"]["values"]
    budgets = [r["budget_mb"] for r in rows]
    assert budgets == sorted(budgets) and len(budgets) == 20
    curve = [show("lru_thrash_panel").row(tenants=41, budget_mb=b) for b in (64, 640, 1280)]
    assert [next(r["lru_hit_pct"] for r in rows if r["budget_mb"] == c["budget_mb"]) for c in curve] == [
        c["lru_hit_pct"] for c in curve
    ]


def test_the_sweep_waits_for_a_timer_so_a_readers_change_comes_first() -> None:
    """On a kernel's loop, a sweep point is scheduled behind a timer: a message already queued (the reader's next
    change) runs before it; with no loop running, it runs at once."""
    order: list[str] = []

    async def kernel() -> None:
        kernel_loop_schedule(lambda: order.append("sweep point"))
        asyncio.get_running_loop().call_soon(lambda: order.append("the reader's change"))
        await asyncio.sleep(0.05)

    asyncio.run(kernel())
    assert order == ["the reader's change", "sweep point"]
    kernel_loop_schedule(lambda: order.append("at once"))
    assert order[-1] == "at once"
