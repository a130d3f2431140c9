"""Define a kernel-free panel: controls over a grid of values, labcore computing every state, Vega-Lite drawing.

A :class:`Panel` is data first. Each :class:`Control` lists every value it can take; the panel
calls ``compute(**state)`` (a labcore function) once per combination and keeps the rows. The
browser only *selects* a row and draws it: the panel displays as a Vega-Lite v5 spec whose
parameters are bound to sliders and dropdowns and whose filters pick the rows of the current
state. No formula is re-implemented in JavaScript, so the same object works

- on the static book page (``labcore.panels.site`` renders the spec with the vendored Vega);
- in JupyterLab / Notebook (Vega-Lite v5 is a built-in mimetype);
- in JupyterLite (its Vega-Lite renderer ships with the site), with no numpy or matplotlib.

``panel.row(**values)`` computes one state directly (the hidden checks, the tests and a live
kernel use it for any value, on the grid or not).

Where the folder named by the environment variable ``LABCORE_PANEL_GRIDS`` holds the grid the book
build computed (``<grid_key>.json``, written by the live site's staging from the stored specs),
:meth:`Panel.rows` reads it instead of recomputing every state, but only when the file's key is
the panel's and the default state's row, computed here, equals the file's; otherwise it computes.

>>> from labcore.panels._panel import Control
>>> Control("rank", "LoRA rank r", values=(8, 16, 32), default=16).kind
'select'
>>> Control("budget_mb", "budget (MiB)", values=(64, 128, 192), default=128).kind
'range'
"""

from __future__ import annotations

import itertools
import json
import math
import os
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._validate import distinct, identifier, number
from ..site import GRIDS_ENV, VEGALITE_MIME, grid_path
from ._chart import lines_layer
from ._grid import grid_key

__all__ = ["Control", "Series", "Text", "Lines", "Panel", "VEGALITE_MIME", "READOUT"]

VEGALITE_SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json"  # an identifier, never fetched
#: The row field holding the readout lines of a state (computed in Python, shown as text).
READOUT = "readout"
#: Largest grid a panel may embed in a page (rows); a bigger one must coarsen its controls.
MAX_ROWS = 6000
FONT_PX = 12
#: Longest readout line (characters): it must fit a 390 px phone screen at FONT_PX.
READOUT_LINE_CHARS = 56
TITLE_LINE_CHARS = 46  # bold and larger: wrapped into lines of this many characters


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


@dataclass(frozen=True, slots=True)
class Control:
    """Describe one control: the keyword it feeds, a label with its unit, every value it can take.

    Evenly spaced numbers become a slider (``kind == "range"``); anything else a dropdown
    (``"select"``), whose entries read ``labels`` when given. ``default`` is the value the prose uses.

    >>> Control("skew", "popularity skew s", values=(0.0, 0.5, 1.0), default=0.5).step
    0.5
    >>> Control("gpu", "GPU", values=("H100", "L4"), default="L4", labels=("H100 80 GB", "L4 24 GB")).kind
    'select'
    """

    name: str
    label: str
    values: tuple[Any, ...]
    default: Any
    labels: tuple[str, ...] = ()
    kind: str = field(init=False)
    step: float | None = field(init=False)

    def __post_init__(self) -> None:
        identifier("control name", self.name)
        values = distinct(f"control {self.name!r}: values", self.values, nonempty=True)
        object.__setattr__(self, "values", values)
        if self.default not in values:
            raise ValueError(f"control {self.name!r}: default {self.default!r} is not one of {values!r}")
        if self.labels and len(self.labels) != len(values):
            raise ValueError(f"control {self.name!r}: {len(self.labels)} labels for {len(values)} values")
        step = None
        if len(values) > 2 and not self.labels and all(_is_number(v) for v in values):
            gaps = [b - a for a, b in itertools.pairwise(values)]
            if gaps[0] > 0 and all(math.isclose(g, gaps[0], rel_tol=1e-9, abs_tol=1e-12) for g in gaps):
                step = gaps[0]
        object.__setattr__(self, "step", step)
        object.__setattr__(self, "kind", "range" if step is not None else "select")

    def binding(self) -> dict[str, Any]:
        """Return the Vega-Lite ``bind`` of this control (a range input or a select)."""
        name = f"{self.label} "
        if self.kind == "range":
            return {"input": "range", "min": self.values[0], "max": self.values[-1], "step": self.step, "name": name}
        out: dict[str, Any] = {"input": "select", "options": list(self.values), "name": name}
        if self.labels:
            out["labels"] = list(self.labels)
        return out

    def test(self) -> str:
        """Return the Vega expression that is true on rows of the control's current value."""
        if _is_number(self.default):  # slider values arrive as parsed decimals: compare with a tolerance
            return f"abs(datum.{self.name} - {self.name}) < 1e-9"
        return f"datum.{self.name} == {self.name}"


@dataclass(frozen=True, slots=True)
class Series:
    """Name one measure a chart draws: the row field, its legend label and its colour."""

    field: str
    label: str
    color: str
    dashed: bool = False


@dataclass(frozen=True, slots=True)
class Text:
    """Show a row's text field under the chart, as it is (e.g. a launch command), with an optional copy button.

    The page redraws it whenever a control moves; ``copy=True`` adds a button that copies it. Only the static
    pages draw it (the live kernel can print the field of ``panel.row(...)``).
    """

    field: str
    label: str
    copy: bool = False


@dataclass(frozen=True, slots=True)
class Lines:
    """Draw measures as lines over one control (``x``), the current state marked by a rule and points.

    The other controls pick the curve; moving ``x`` moves the marker along it, so the reader sees
    where the current state sits on the whole response (e.g. the thrash cliff as the budget crosses
    the working set). ``y_domain`` fixes the axis so it does not jump between states.
    """

    x: str
    series: tuple[Series, ...]
    y_title: str
    x_title: str | None = None
    x_log: bool = False
    y_log: bool = False
    y_domain: tuple[float, float] | None = None
    y_format: str = ",.3~r"
    x_format: str = ",.3~r"


#: the chart's width when it binds no inputs (a live panel's), in CSS pixels
LIVE_WIDTH_PX = 480


class Panel:
    """A kernel-free panel: controls, a labcore ``compute`` per state, a readout, a chart.

    ``compute(**state)`` returns a mapping of named numbers (the measures the chart draws);
    ``readout(row)`` returns the text under the chart (lines separated by ``\\n``), built from the
    row in Python. Display the panel to get its Vega-Lite spec; :meth:`row` computes any state.
    """

    def __init__(
        self,
        name: str,
        *,
        title: str,
        controls: Sequence[Control],
        compute: Callable[..., Mapping[str, Any]],
        readout: Callable[[Mapping[str, Any]], str],
        chart: Lines,
        note: str = "",
        variant: str = "",
        texts: Sequence[Text] = (),
        curve: Callable[..., Mapping[str, Any]] | None = None,
    ) -> None:
        identifier("panel name", name)
        names = list(distinct(f"{name}: control names", [c.name for c in controls], nonempty=True))
        if chart.x not in names:
            raise ValueError(f"{name}: the chart's x {chart.x!r} is not a control ({names})")
        size = math.prod(len(c.values) for c in controls)
        if size > MAX_ROWS:
            raise ValueError(f"{name}: {size:,} states exceed the page's limit of {MAX_ROWS:,}; coarsen a control")
        self.name = name
        #: which implementation computed the rows, when not only the reference's (``"mine"``: a learner's code)
        self.variant = variant
        #: row fields the page shows as text under the chart (see :class:`Text`)
        self.texts = tuple(texts)
        self.title = title
        self.controls = tuple(controls)
        self.compute = compute
        self.readout = readout
        self.chart = chart
        self.note = note
        #: optional: the chart's series alone for a state, cheaper than ``compute`` and equal to its values (a live
        #: panel draws the rest of the x sweep with it and computes the whole row for the current state only)
        self.curve = curve
        #: whether the spec binds each control to an input (the page's controls); a live panel's drawn chart has
        #: ipywidgets for controls, so it binds none
        self.bound = True
        self._rows: list[dict[str, Any]] | None = None
        #: the panel this one was made from by :meth:`including`: its rows are this grid's rows on its states
        self._source: Panel | None = None

    # ------------------------------------------------------------------ values
    def defaults(self) -> dict[str, Any]:
        """Return the state the prose uses: every control at its default."""
        return {c.name: c.default for c in self.controls}

    def row(self, **values: Any) -> dict[str, Any]:
        """Compute one state (missing controls take their defaults) and return its row, readout included.

        Values off the grid are allowed here (a live kernel can ask anything); the page only has the grid.
        """
        unknown = set(values) - {c.name for c in self.controls}
        if unknown:
            raise KeyError(f"{self.name} has no control {sorted(unknown)}; controls: {[c.name for c in self.controls]}")
        state = self.defaults() | values
        measures = dict(self.compute(**state))
        clash = set(measures) & set(state)
        if clash:
            raise ValueError(f"{self.name}: compute returned control names {sorted(clash)} as measures")
        row = state | {k: _json_number(v) for k, v in measures.items()}
        row[READOUT] = self.readout(row)
        long = [line for line in row[READOUT].split("\n") if len(line) > READOUT_LINE_CHARS]
        if long:
            raise ValueError(
                f"{self.name}: readout line longer than {READOUT_LINE_CHARS} characters "
                f"(it would not fit a phone): {long[0]!r}"
            )
        return row

    def including(self, **values: Any) -> Panel:
        """Return this panel with each value put on its control's grid and made its default: a value the room proposes.

        In a live kernel (JupyterLab, RISE, the Live site) the copy displays as a panel at that value, its other
        states still a move away; a numeric value off the slider's steps turns that slider into a dropdown.

        >>> from labcore.panels import show
        >>> room = show("fleet_savings_panel").including(tenants=41)
        >>> room.defaults()["tenants"], 41 in next(c for c in room.controls if c.name == "tenants").values
        (41, True)
        """
        unknown = set(values) - {c.name for c in self.controls}
        if unknown:
            raise KeyError(f"{self.name} has no control {sorted(unknown)}; controls: {[c.name for c in self.controls]}")
        controls = []
        for c in self.controls:
            if c.name not in values:
                controls.append(c)
                continue
            value = values[c.name]
            grid = (
                c.values
                if value in c.values
                else tuple(sorted((*c.values, value)) if _is_number(value) else (*c.values, value))
            )
            labels = (
                () if not c.labels else tuple(c.labels[c.values.index(v)] if v in c.values else str(v) for v in grid)
            )
            controls.append(Control(c.name, c.label, values=grid, default=value, labels=labels))
        copy = Panel.__new__(Panel)
        copy.__dict__.update(self.__dict__, controls=tuple(controls), _rows=None, _source=self)
        return copy

    def rows(self) -> list[dict[str, Any]]:
        """Return every state's row (computed once per panel object, in control order).

        A grid file under ``$LABCORE_PANEL_GRIDS`` stands in for the computation when it is this
        panel's (see :meth:`stored_rows`). A copy made by :meth:`including` takes the rows of the states its
        source has (read from the source's grid file in the Live site) and computes only the new ones.
        """
        if self._rows is None:
            stored = self.stored_rows()
            if stored is None:
                names = [c.name for c in self.controls]
                known = {} if self._source is None else {tuple(r[n] for n in names): r for r in self._source.rows()}
                grid = itertools.product(*(c.values for c in self.controls))
                stored = [known.get(combo) or self.row(**dict(zip(names, combo, strict=True))) for combo in grid]
            self._rows = stored
        return self._rows

    def grid_key(self) -> str:
        """Return the key of this panel's grid: its name, its controls' names, values and defaults, labcore's version.

        :func:`spec_grid_key` derives the same key from a displayed spec.

        >>> from labcore.panels import spec_grid_key
        >>> p = Panel("toy_panel", title="t", controls=[Control("a", "a", values=(1, 2), default=1)],
        ...           compute=lambda a: {"y": a}, readout=str, chart=Lines("a", (), y_title="y"))
        >>> p.grid_key() == spec_grid_key({"usermeta": {"labcore_panel": "toy_panel", "controls": ["a"]},
        ...                                "params": [{"name": "a", "value": 1}], "data": {"values": [{"a": 1}, {"a": 2}]}})
        True
        """
        return grid_key(self.name, [(c.name, list(c.values), c.default) for c in self.controls], self.variant)

    def stored_rows(self) -> list[dict[str, Any]] | None:
        """Return the rows of this panel's grid file under ``$LABCORE_PANEL_GRIDS``, or None to compute them.

        The file is used only when its key is :meth:`grid_key`, its rows walk the grid in control
        order, and the default state's row computed now equals the file's (a stale file fails that).
        """
        folder = os.environ.get(GRIDS_ENV)
        if not folder:
            return None
        key = self.grid_key()
        try:
            with open(grid_path(folder, key), encoding="utf-8") as fh:
                stored = json.load(fh)
        except (OSError, ValueError):
            return None
        rows = stored.get("rows") if isinstance(stored, dict) and stored.get("key") == key else None
        names = [c.name for c in self.controls]
        grid = list(itertools.product(*(c.values for c in self.controls)))
        if not isinstance(rows, list) or len(rows) != len(grid):
            return None
        if any(
            not isinstance(r, dict) or [r.get(n) for n in names] != list(combo)
            for r, combo in zip(rows, grid, strict=True)
        ):
            return None
        default = self.defaults()
        at = grid.index(tuple(default[n] for n in names))
        return rows if rows[at] == self.row(**default) else None

    def lookup(self, **values: Any) -> dict[str, Any]:
        """Return the precomputed row of a grid state (what the page shows for it)."""
        state = self.defaults() | values
        for row in self.rows():
            if all(row[k] == v for k, v in state.items()):
                return row
        raise KeyError(f"{self.name}: {values} is not a state of the grid")

    # ------------------------------------------------------------------ drawing
    def spec(self) -> dict[str, Any]:
        """Return the Vega-Lite v5 spec: bound parameters, the grid as data, the chart and the readout."""
        params = [
            {"name": c.name, "value": c.default, **({"bind": c.binding()} if self.bound else {})} for c in self.controls
        ]
        current = " && ".join(c.test() for c in self.controls)
        chart = lines_layer(self, current)
        readout = {
            "name": "readout",  # the page's SVG marks it class "readout_marks" (the browser tests read it)
            "width": "container",
            "height": max(r[READOUT].count("\n") + 1 for r in self.rows()) * (FONT_PX + 5) + 4,
            "transform": [{"filter": current}],
            "mark": {
                "type": "text",
                "align": "left",
                "baseline": "top",
                "lineBreak": "\n",
                "fontSize": FONT_PX,
                "lineHeight": FONT_PX + 5,
            },
            "encoding": {"text": {"field": READOUT, "type": "nominal"}, "x": {"value": 0}, "y": {"value": 2}},
            "view": {"stroke": None},
        }
        if not self.bound:  # no inputs below to give the container its width (a live panel's chart): a fixed one
            chart["width"] = readout["width"] = LIVE_WIDTH_PX
        return {
            "$schema": VEGALITE_SCHEMA,
            "description": self.description(),
            "title": {"text": textwrap.wrap(self.title, TITLE_LINE_CHARS), "anchor": "start", "fontSize": FONT_PX + 2},
            "data": {"name": "grid", "values": self.rows()},
            "params": params,
            "vconcat": [chart, readout],
            "spacing": 6,
            "usermeta": {
                "labcore_panel": self.name,
                "controls": [c.name for c in self.controls],
                **({"labcore_variant": self.variant} if self.variant else {}),
                **(
                    {"labcore_texts": [{"field": x.field, "label": x.label, "copy": x.copy} for x in self.texts]}
                    if self.texts
                    else {}
                ),
            },
            "config": {
                "font": "sans-serif",
                "axis": {"labelFontSize": 11, "titleFontSize": 12},
                "legend": {"labelFontSize": 11, "orient": "top", "title": None},
            },
        }

    def description(self) -> str:
        """Return the panel's text alternative: its title (the takeaway) and what it reads at the chapter's setting.

        Vega gives the chart this as its accessible name; the page's live region announces each later state.
        """
        default = self.row(**self.defaults())[READOUT].replace("\n", "; ")
        controls = ", ".join(f"{c.label} {_shown(c.default)}" for c in self.controls)
        return f"{self.title}. At {controls}: {default}."

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        text = f"{self.title} (an interactive panel: {', '.join(c.label for c in self.controls)})"
        return {VEGALITE_MIME: self.spec(), "text/plain": text}

    def to_json(self) -> str:
        """Return the spec as compact JSON (what a page embeds)."""
        return json.dumps(self.spec(), separators=(",", ":"), allow_nan=False)

    def __repr__(self) -> str:
        return f"Panel({self.name!r}, controls={[c.name for c in self.controls]}, states={len(self.rows())})"


def _shown(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _json_number(v: Any) -> Any:
    if isinstance(v, float):
        return round(number("a panel measure", v, minimum=None), 6)
    return v
