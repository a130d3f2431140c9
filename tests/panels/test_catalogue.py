"""Every panel in labcore.panels.PANELS: a grid labcore computed, a readout per state, a spec a page can draw.

The grids are the ones the book's stored outputs hold, staged as the Live site stages them (each panel takes a
grid file only when its key matches and its default state's row equals a fresh computation). Strict nbval
recomputes every stored grid in the same run, so this module does not compute the long simulation grids a
second time; :func:`test_grid_rows_equal_a_fresh_computation` recomputes a sample here as well.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from coursebuild.lite.site import stage_book_build
from labcore.panels import PANELS, show
from labcore.panels._panel import READOUT
from labcore.site import BOOK_BUILD, GRIDS_ENV, PANELS_DIR

BOOK = Path(__file__).resolve().parents[2] / "book"


@pytest.fixture(scope="module", autouse=True)
def _book_grids(tmp_path_factory: pytest.TempPathFactory):
    """Point ``$LABCORE_PANEL_GRIDS`` at the grids of every chapter's stored outputs, for this module only."""
    staged = tmp_path_factory.mktemp("site")
    for notebook in sorted(BOOK.glob("*.ipynb")):
        stage_book_build(json.loads(notebook.read_text(encoding="utf-8")), notebook.stem, staged)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(GRIDS_ENV, str(staged / BOOK_BUILD / PANELS_DIR))
        yield


@pytest.fixture(scope="module", params=sorted(PANELS))
def panel(request):
    return show(request.param)


def test_every_panel_takes_the_grid_the_book_stored() -> None:
    """Each panel's default grid is one the chapters display: the grid this module checks is the one readers see."""
    missing = [name for name in sorted(PANELS) if show(name).stored_rows() is None]
    assert missing == [], f"no chapter stores these panels' grids at their defaults (run make execute): {missing}"


def test_every_state_is_on_the_grid_once(panel):
    rows = panel.rows()
    assert len(rows) == math.prod(len(c.values) for c in panel.controls)
    states = {tuple(r[c.name] for c in panel.controls) for r in rows}
    assert len(states) == len(rows)


def test_defaults_are_a_state_and_each_control_moves_something(panel):
    default = panel.lookup()
    for control in panel.controls:
        shown = {panel.lookup(**{control.name: v})[READOUT] for v in control.values}
        assert len(shown) > 1 or len(control.values) == 1, f"{panel.name}.{control.name} changes nothing it shows"
    assert default[READOUT] == panel.readout(default)


def test_every_control_changes_the_chart_somewhere_on_the_grid(panel):
    """No dead control: each one changes what the chart draws for some state of the others (not only the text)."""
    fields = [s.field for s in panel.chart.series]
    x = panel.chart.x
    for control in panel.controls:
        if control.name == x or len(control.values) == 1:
            continue  # the marker moves along x
        others = [c.name for c in panel.controls if c.name != control.name]
        seen: dict[tuple, set] = {}
        for row in panel.rows():
            seen.setdefault(tuple(row[o] for o in others), set()).add(tuple(row[f] for f in fields))
        assert any(len(v) > 1 for v in seen.values()), f"{panel.name}.{control.name} never changes the chart"


def test_grid_rows_equal_a_fresh_computation(panel):
    """The page shows what labcore computes: a recomputed state equals the precomputed row (deterministic)."""
    for row in panel.rows()[:: max(1, len(panel.rows()) // 5)]:
        state = {c.name: row[c.name] for c in panel.controls}
        assert panel.row(**state) == row


def test_chart_fields_exist_and_the_spec_is_strict_json(panel):
    row = panel.lookup()
    assert all(s.field in row for s in panel.chart.series)
    assert panel.chart.x in {c.name for c in panel.controls}
    text = panel.to_json()
    assert json.loads(text)["usermeta"]["labcore_panel"] == panel.name
    assert len(text) < 3_000_000, "a panel's data must stay light enough for a page"
