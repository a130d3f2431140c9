"""Draw a panel's chart as Vega-Lite: its lines over the control on the x axis, the current state as a rule and points.

:meth:`labcore.panels._panel.Panel.spec` puts this layer above the readout.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

__all__ = ["CHART_HEIGHT_PX", "lines_layer"]

CHART_HEIGHT_PX = 220


def _axis(title: str, fmt: str) -> dict[str, Any]:
    return {
        "title": title,
        "format": fmt,
        "grid": True,
        "gridOpacity": 0.6,
        "labelOverlap": "greedy",
        "tickCount": 6,
        "labelSeparation": 6,
    }


def _color(series: Sequence[Any]) -> dict[str, Any]:
    labels = {s.field: s.label for s in series}
    return {
        "field": "measure",
        "type": "nominal",
        "scale": {"domain": [s.field for s in series], "range": [s.color for s in series]},
        "legend": {"labelExpr": f"{json.dumps(labels)}[datum.label]", "symbolType": "stroke"},
    }


def lines_layer(panel: Any, current: str) -> dict[str, Any]:
    chart = panel.chart
    control = next(c for c in panel.controls if c.name == chart.x)
    others = " && ".join(c.test() for c in panel.controls if c.name != chart.x) or "true"
    fields = [s.field for s in chart.series]
    x = {
        "field": chart.x,
        "type": "quantitative",
        "axis": _axis(chart.x_title or control.label, chart.x_format),
        "scale": {"type": "log", "nice": False} if chart.x_log else {"type": "linear", "zero": False, "nice": False},
    }
    y_scale: dict[str, Any] = {"type": "log" if chart.y_log else "linear"}
    if chart.y_domain is not None:
        y_scale["domain"] = list(chart.y_domain)
    y = {"field": "value", "type": "quantitative", "axis": _axis(chart.y_title, chart.y_format), "scale": y_scale}
    fold = {"fold": fields, "as": ["measure", "value"]}
    dash = [s.field for s in chart.series if s.dashed]
    line_enc: dict[str, Any] = {"x": x, "y": y, "color": _color(chart.series)}
    if dash:
        line_enc["strokeDash"] = {
            "condition": {"test": f"indexof({json.dumps(dash)}, datum.measure) >= 0", "value": [5, 3]},
            "value": [1, 0],
        }
    return {
        "width": "container",
        "height": CHART_HEIGHT_PX,
        "layer": [
            {
                "transform": [{"filter": others}, fold],
                "mark": {"type": "line", "strokeWidth": 2, "clip": True},
                "encoding": line_enc,
            },
            {
                "transform": [{"filter": current}],
                "mark": {"type": "rule", "strokeDash": [2, 2], "opacity": 0.6},
                "encoding": {"x": {"field": chart.x, "type": "quantitative"}},
            },
            {
                "transform": [{"filter": current}, fold],
                "mark": {"type": "point", "filled": True, "size": 70, "clip": True},
                "encoding": {"x": x, "y": y, "color": _color(chart.series)},
            },
        ],
    }
