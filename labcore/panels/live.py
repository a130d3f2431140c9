"""A panel with live controls, for a kernel that runs ipywidgets (JupyterLab, RISE): any value, computed on change.

The static page holds a panel's precomputed grid; a kernel can compute any state. :func:`live_panel` shows
the same chart and readout with ipywidgets controls: each numeric control a slider over the grid's range
(finer steps) that sets a box, which takes any number (beyond the range too), each other control a dropdown. On
every change labcore computes the states the chart needs (the x control's values, with the current value among
them, at the other controls' current values; rows already computed are kept) and the chart is drawn again in
place, with no input of its own: the readout is the current state's row, and where the panel has a ``curve``
(the series alone, cheaper) the other points of the sweep are drawn with it.

>>> from labcore.panels import show
>>> view = live_panel(show("fleet_savings_panel"))
>>> view.set(tenants=41, tenant_qps=1.2)
>>> view.readout() == show("fleet_savings_panel").row(tenants=41, tenant_qps=1.2)["readout"]
True
"""

from __future__ import annotations

from typing import Any

from ._panel import READOUT, Control, Panel, _is_number, _json_number

__all__ = ["LivePanel", "live_panel"]

#: a numeric control's slider moves in steps this many times finer than the grid's
FINER = 4


def _widget(control: Control) -> tuple[Any, list[Any]]:
    """Return ``(the widget whose value is the control's, every widget shown for it)``."""
    import ipywidgets as w  # optional: only a live kernel with ipywidgets needs it

    label = control.label
    if _is_number(control.default) and all(_is_number(v) for v in control.values):
        whole = all(isinstance(v, int) for v in control.values)
        low, high = min(control.values), max(control.values)
        step = (control.step or (high - low) / max(len(control.values) - 1, 1)) / FINER
        if whole:
            box = w.IntText(value=control.default, description=label, style={"description_width": "initial"})
            slider = w.IntSlider(value=control.default, min=low, max=high, step=max(1, round(step)),
                                 readout=False, description="", layout={"width": "14rem"})
        else:
            box = w.FloatText(value=control.default, description=label, style={"description_width": "initial"})
            slider = w.FloatSlider(value=control.default, min=low, max=high, step=step, readout=False,
                                   description="", layout={"width": "14rem"})
        w.dlink((slider, "value"), (box, "value"))  # the box takes any number; the slider moves in the grid's range
        return box, [w.HBox([box, slider])]
    options = list(zip(control.labels, control.values)) if control.labels else list(control.values)
    drop = w.Dropdown(options=options, value=control.default, description=label, style={"description_width": "initial"})
    return drop, [drop]


class LivePanel:
    """A panel's chart and readout under ipywidgets controls (see the module doc); ``widget`` is what displays."""

    def __init__(self, panel: Panel) -> None:
        import ipywidgets as w  # optional: only a live kernel with ipywidgets needs it

        self.panel = panel
        self._rows: dict[tuple[Any, ...], dict[str, Any]] = {}
        self._points: dict[tuple[Any, ...], dict[str, Any]] = {}  # the sweep's points computed by the panel's curve
        self.controls = {}
        shown = []
        for control in panel.controls:
            value_widget, widgets = _widget(control)
            value_widget.observe(lambda _change: self.redraw(), names="value")
            self.controls[control.name] = value_widget
            shown += widgets
        self.output = w.Output()
        self.widget = w.VBox([*shown, self.output])
        self.redraw()

    def state(self) -> dict[str, Any]:
        """Return the controls' current values."""
        return {name: widget.value for name, widget in self.controls.items()}

    def set(self, **values: Any) -> None:
        """Set controls as a reader would (``view.set(tenants=41)``); the chart is drawn again."""
        unknown = set(values) - set(self.controls)
        if unknown:
            raise KeyError(f"{self.panel.name} has no control {sorted(unknown)}; controls: {list(self.controls)}")
        for name, value in values.items():
            self.controls[name].value = value

    def _row(self, state: dict[str, Any]) -> dict[str, Any]:
        key = tuple(state[c.name] for c in self.panel.controls)
        if key not in self._rows:
            self._rows[key] = self.panel.row(**state)
        return self._rows[key]

    def _point(self, state: dict[str, Any]) -> dict[str, Any]:
        """Return a point of the sweep: the whole row when it is kept, else the panel's ``curve`` (the series alone)."""
        key = tuple(state[c.name] for c in self.panel.controls)
        if key in self._rows or self.panel.curve is None:
            return self._row(state)
        if key not in self._points:
            self._points[key] = state | {k: _json_number(v) for k, v in self.panel.curve(**state).items()} | {READOUT: ""}
        return self._points[key]

    def chart(self) -> Panel:
        """Return the panel drawn at the current state: the x control's sweep at the other controls' values.

        The chart binds no input of its own (the widgets are the controls): its readout is the current state's.
        """
        state = self.state()
        x = self.panel.chart.x
        current = next(c for c in self.panel.controls if c.name == x)
        xs = tuple(sorted(set(current.values) | {state[x]}))
        controls = tuple(Control(c.name, c.label, values=xs if c.name == x else (state[c.name],), default=state[c.name])
                         for c in self.panel.controls)
        self._row(state)  # the whole row where the reader is; the sweep's other points may be the curve's
        drawn = Panel.__new__(Panel)
        drawn.__dict__.update(self.panel.__dict__, controls=controls, bound=False,
                              _rows=[self._point(state | {x: value}) for value in xs])
        drawn.row = lambda **values: self._row(state | values)  # its text alternative reads the kept row
        return drawn

    def readout(self) -> str:
        """Return the readout at the current state."""
        return self._row(self.state())[READOUT]

    def redraw(self) -> None:
        """Compute what the current state needs and draw the chart again in the output area."""
        from IPython import get_ipython
        from IPython.display import display

        self.drawn = self.chart()
        if get_ipython() is None:
            return  # no kernel (a script, a doctest): nothing to draw into
        with self.output:
            self.output.clear_output(wait=True)
            display(self.drawn)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        return self.widget._repr_mimebundle_(include=include, exclude=exclude)


def live_panel(panel: Panel) -> LivePanel:
    """Return ``panel`` with live controls (needs ipywidgets in the kernel)."""
    return LivePanel(panel)
