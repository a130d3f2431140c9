"""A panel with live controls, for a kernel that runs ipywidgets (JupyterLab, RISE, the Live site): any value.

The static page holds a panel's precomputed grid; a kernel can compute any state. :func:`live_panel` shows
the same chart and readout under ipywidgets controls: each numeric control a number box, which takes any number
(off the grid, beyond its range) and keeps it as typed, beside a slider over the grid's own values (a
``SelectionSlider``: it always lands on a value of the grid, the default among them); each other control a
dropdown. Dragging the slider sets the box to the grid value; typing in the box moves the slider to the nearest
grid value without writing it back, so the box holds what the reader typed.

A change draws the chart again at once with the one row it needs (the current state's) and the points of the
x sweep already known: rows computed before, the panel's grid when the book build stored it (the Live site) or
it was computed, or the panel's ``curve`` (the series alone, cheaper). The sweep's other points are computed
afterwards, one by one on the kernel's event loop with a pause between them in which the kernel reads the reader's
next change, and drawn when they are all there; a newer change drops them.

>>> from labcore.panels import show
>>> view = live_panel(show("fleet_savings_panel"))
>>> view.set(tenants=41, tenant_qps=1.2)
>>> view.readout() == show("fleet_savings_panel").row(tenants=41, tenant_qps=1.2)["readout"]
True
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Any

from ._panel import READOUT, Control, Panel, _is_number, _json_number, _shown

__all__ = ["LivePanel", "live_panel"]

Schedule = Callable[[Callable[[], None]], None]


def _ipywidgets() -> Any:
    """Return the ipywidgets module: optional for labcore (stdlib only), present in every course kernel."""
    import ipywidgets  # optional package: only live controls need it

    return ipywidgets


#: seconds between two of the sweep's points: a timer, so that the kernel reads a reader's next change in between
#: (Pyodide's loop ran ``call_soon`` callbacks before any message: a value typed while a spill panel's sweep was
#: being computed was drawn after the whole sweep, 10.6 s, against 1.3 s with this timer)
YIELD_S = 0.005


def kernel_loop_schedule(callback: Callable[[], None]) -> None:
    """Run ``callback`` after :data:`YIELD_S` on the kernel's event loop (ipykernel's, or Pyodide's), or at once
    where no loop runs (a script, a doctest)."""
    try:
        loop = asyncio.get_running_loop()  # ipykernel: a widget's change arrives inside its running loop
    except RuntimeError:
        try:
            loop = asyncio.get_event_loop()  # Pyodide: its web loop, not running from Python's point of view
        except RuntimeError:
            loop = None
    if loop is None or not (loop.is_running() or sys.platform == "emscripten"):  # the browser runs Pyodide's loop
        callback()  # a script or a doctest: nothing would run the loop
    else:
        loop.call_later(YIELD_S, callback)


def _nearest(values: tuple[Any, ...], value: Any) -> Any:
    """Return the value of the grid nearest to ``value`` (the first of two as near)."""
    return min(values, key=lambda v: abs(v - value))


class _NumberControl:
    """A number box (the control's value, any number) and a slider over the grid's values that sets it."""

    def __init__(self, control: Control) -> None:
        w = _ipywidgets()
        style = {"description_width": "initial"}
        whole = all(isinstance(v, int) for v in control.values) and isinstance(control.default, int)
        box_type = w.IntText if whole else w.FloatText
        self.box = box_type(value=control.default, description=control.label, style=style)
        self.grid = tuple(sorted(control.values))
        self.slider = w.SelectionSlider(
            options=[(_shown(v), v) for v in self.grid],
            value=control.default,
            readout=False,
            description="",
            tooltip=f"{control.label}: the grid's values",
            layout={"width": "14rem"},
        )
        self._from_box = False
        self.slider.observe(self._slider_moved, names="value")
        self.box.observe(self._box_changed, names="value")
        self.shown = w.HBox([self.box, self.slider])

    def _slider_moved(self, change: dict[str, Any]) -> None:
        if not self._from_box:  # the reader dragged it: the box takes the grid value
            self.box.value = change["new"]

    def _box_changed(self, change: dict[str, Any]) -> None:
        self._from_box = True  # the slider follows the box, and never writes its snapped value back
        try:
            self.slider.value = _nearest(self.grid, change["new"])
        finally:
            self._from_box = False


def _widgets(control: Control) -> tuple[Any, Any]:
    """Return ``(the widget whose value is the control's, the widget shown for it)``."""
    w = _ipywidgets()
    if _is_number(control.default) and all(_is_number(v) for v in control.values):
        number = _NumberControl(control)
        return number.box, number.shown
    options = list(zip(control.labels, control.values, strict=True)) if control.labels else list(control.values)
    drop = w.Dropdown(
        options=options, value=control.default, description=control.label, style={"description_width": "initial"}
    )
    return drop, drop


class LivePanel:
    """A panel's chart and readout under ipywidgets controls (see the module doc); ``widget`` is what displays.

    ``schedule(callback)`` runs the computing of the sweep's missing points after a redraw (by default
    :func:`kernel_loop_schedule`: soon on the kernel's event loop, or at once where no loop runs).
    """

    def __init__(self, panel: Panel, *, schedule: Schedule = kernel_loop_schedule) -> None:
        self.panel = panel
        self.schedule = schedule
        self._names = tuple(c.name for c in panel.controls)
        self._x = next(c for c in panel.controls if c.name == panel.chart.x)
        self._rows: dict[tuple[Any, ...], dict[str, Any]] = {}  # whole rows: computed here, or the panel's grid
        self._points: dict[tuple[Any, ...], dict[str, Any]] = {}  # the sweep's points computed by the panel's curve
        grid = panel._rows if panel._rows is not None else panel.stored_rows()  # never computes the whole grid
        for row in grid or ():
            self._rows[self._key(row)] = row
        self.controls: dict[str, Any] = {}
        shown = []
        for control in panel.controls:
            value_widget, widget = _widgets(control)
            value_widget.observe(lambda _change: self.redraw(), names="value")
            self.controls[control.name] = value_widget
            shown.append(widget)
        w = _ipywidgets()
        self.output = w.Output()
        self.widget = w.VBox([*shown, self.output])
        #: the sweep's states still to compute for the current drawing (filled by :meth:`_fill`)
        self.pending: list[dict[str, Any]] = []
        self.error: str | None = None
        self.redraw()

    def _key(self, state: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(state[name] for name in self._names)

    def state(self) -> dict[str, Any]:
        """Return the controls' current values."""
        return {name: widget.value for name, widget in self.controls.items()}

    def set(self, **values: Any) -> None:
        """Set controls as a reader types them (``view.set(tenants=41)``); the chart is drawn again."""
        unknown = set(values) - set(self.controls)
        if unknown:
            raise KeyError(f"{self.panel.name} has no control {sorted(unknown)}; controls: {list(self.controls)}")
        for name, value in values.items():
            self.controls[name].value = value

    def _row(self, state: dict[str, Any]) -> dict[str, Any]:
        key = self._key(state)
        if key not in self._rows:
            self._rows[key] = self.panel.row(**state)
        return self._rows[key]

    def _known(self, state: dict[str, Any]) -> dict[str, Any] | None:
        """Return a point of the sweep without computing a row: a kept row, else the panel's ``curve``, else None."""
        key = self._key(state)
        if key in self._rows:
            return self._rows[key]
        if self.panel.curve is None:
            return None
        if key not in self._points:
            curve = self.panel.curve(**state)
            self._points[key] = state | {k: _json_number(v) for k, v in curve.items()} | {READOUT: ""}
        return self._points[key]

    def _sweep(self, state: dict[str, Any]) -> list[dict[str, Any]]:
        x = self._x.name
        return [state | {x: value} for value in sorted(set(self._x.values) | {state[x]})]

    def chart(self) -> Panel:
        """Return the panel drawn at the current state: the current row and the x sweep's points known so far.

        The chart binds no input of its own (the widgets are the controls): its readout is the current state's.
        """
        state = self.state()
        self._row(state)  # the one whole row a change needs: where the reader is
        points = [(s, self._known(s)) for s in self._sweep(state)]
        self.pending = [s for s, point in points if point is None]
        drawn_rows = [point for _s, point in points if point is not None]
        xs = tuple(row[self._x.name] for row in drawn_rows)
        controls = tuple(
            Control(c.name, c.label, values=xs if c.name == self._x.name else (state[c.name],), default=state[c.name])
            for c in self.panel.controls
        )
        drawn = Panel.__new__(Panel)
        # row: its text alternative reads the kept row (an instance attribute over Panel.row)
        drawn.__dict__.update(
            self.panel.__dict__,
            controls=controls,
            bound=False,
            _rows=drawn_rows,
            row=lambda **values: self._row(state | values),
        )
        return drawn

    def readout(self) -> str:
        """Return the readout at the current state."""
        return self._row(self.state())[READOUT]

    def redraw(self) -> None:
        """Draw the chart again at the current state (one row computed), then schedule the sweep's missing points.

        A value labcore refuses (a negative count, say) shows its error in place of the chart.
        """
        try:
            self.drawn = self.chart()
        except (ValueError, KeyError, TypeError) as error:  # labcore's errors refine these and name the value
            self.pending, self.error = [], f"{self.panel.name} at {self.state()}: {error}"
            self.output.outputs = ({"output_type": "stream", "name": "stderr", "text": self.error + "\n"},)
            return
        self.error = None
        bundle = self.drawn._repr_mimebundle_()
        self.output.outputs = ({"output_type": "display_data", "data": bundle, "metadata": {}},)
        if self.pending:
            state = self.state()  # the state this sweep is for: _fill stops if the reader moves on
            self.schedule(lambda: self._fill(state))

    def _fill(self, state: dict[str, Any]) -> None:
        """Compute one missing point of ``state``'s sweep; schedule the next, or draw once none is missing."""
        if self.state() != state:
            return  # a newer change drew (and scheduled) its own sweep
        missing = [s for s in self._sweep(state) if self._known(s) is None]
        if missing:
            self._row(missing[0])
        if len(missing) > 1:
            self.schedule(lambda: self._fill(state))
        else:
            self.redraw()

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        return self.widget._repr_mimebundle_(include=include, exclude=exclude)


def live_panel(panel: Panel, *, schedule: Schedule = kernel_loop_schedule) -> LivePanel:
    """Return ``panel`` with live controls (needs ipywidgets, which the course's kernels have).

    >>> from labcore.panels import show
    >>> live_panel(show("fleet_calculator_panel")).state()["tenant_qps"]
    0.5
    """
    return LivePanel(panel, schedule=schedule)
