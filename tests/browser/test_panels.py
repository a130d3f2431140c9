"""Move every control of every panel on the static pages and compare what is drawn with labcore.

For each panel on each page (no kernel, no network): each control is moved through every value it
offers, through its real input element (a range slider or a dropdown), the others held at their
defaults. After each move the readout the SVG shows must equal the readout labcore computes for that
state (``labcore.panels.show(name).row(**state)``), and whenever labcore's chart data differ between
two of those states, the drawn figure must differ too.
"""

from __future__ import annotations

import pytest

from labcore.panels._panel import READOUT
from tests.browser import browser_site as site
from tests.browser.test_browser_pages import wait_for_panels

pytestmark = pytest.mark.browser

_READOUT_JS = """
(i) => { const p = window.lcPanels[i];
         const t = p.target.querySelector('svg .readout_marks text');
         return t ? [...t.querySelectorAll('tspan')].map(s => s.textContent).join('\\n') || t.textContent : null; }
"""
_FIGURE_JS = """
(i) => { const svg = window.lcPanels[i].target.querySelector('svg');
         return [...svg.querySelectorAll('.mark-line path, .mark-symbol path, .mark-rule line, .mark-rect path')]
           .map(e => e.getAttribute('d') || e.getAttribute('transform') || (e.getAttribute('x2') + ',' + e.getAttribute('y2')))
           .join('|'); }
"""
#: move one control of panel ``i`` to its ``index``-th value through its real input (the decks' test moves one)
_MOVE_JS = """
([i, name, index]) => {
  const p = window.lcPanels[i];
  const input = p.target.querySelector(`.vega-bindings [name="${name}"]`);
  if (!input) return 'no input for ' + name;
  const param = p.spec.params.find(q => q.name === name);
  if (input.tagName === 'SELECT') {
    input.selectedIndex = index;
    input.dispatchEvent(new Event('change', {bubbles: true}));
  } else {
    input.value = String(param.bind.min + index * param.bind.step);
    input.dispatchEvent(new Event('input', {bubbles: true}));
  }
  return null;
}
"""
#: move one control of panel ``i`` through every value (the others held), through its real input; after each
#: move wait (up to 5 s) for the readout labcore computed for that value, then record the readout and the figure
_SWEEP_JS = """
async ([i, name, expected, back]) => {
  const p = window.lcPanels[i];
  const input = p.target.querySelector(`.vega-bindings [name="${name}"]`);
  if (!input) return 'no input for ' + name;
  const readout = %s;
  const figure = %s;
  const move = (index) => (%s)([i, name, index]);
  const seen = [];
  for (let index = 0; index < expected.length; index++) {
    move(index);
    await p.view.runAsync();
    const t0 = Date.now();
    while (readout(i) !== expected[index] && Date.now() - t0 < 5000) await new Promise(r => setTimeout(r, 20));
    seen.push([readout(i), figure(i)]);
  }
  move(back);
  await p.view.runAsync();
  return seen;
}
""" % (_READOUT_JS.strip(), _FIGURE_JS.strip(), _MOVE_JS.strip())  # noqa: UP031 - JavaScript: its braces would need doubling


#: labcore's row of each (panel, full state) this module has asked for: a state's readout and the curves through it
#: are read by several checks (and the same panel is on several pages), so each state is computed once
_ROWS: dict[tuple, dict] = {}


def _row(panel, state: dict) -> dict:  # noqa: ANN001
    """Return ``panel.row(**state)`` for a full state, computed once per panel name and state in this module."""
    key = (panel.name, panel.variant, tuple(sorted(state.items())))
    if key not in _ROWS:
        _ROWS[key] = panel.row(**state)
    return _ROWS[key]


def _drawn_data(panel, state: dict) -> tuple:  # noqa: ANN001
    """Return what the chart draws for ``state`` per labcore: each series over the chart's x, and the marker."""
    chart = panel.chart
    xs = next(c for c in panel.controls if c.name == chart.x).values
    curve = tuple(tuple(_row(panel, state | {chart.x: x})[s.field] for s in chart.series) for x in xs)
    return curve, state[chart.x]


def _wait_readout(page, i: int, want: str) -> str:  # noqa: ANN001
    try:
        page.wait_for_function(f"([i, want]) => ({_READOUT_JS})(i) === want", arg=[i, want], timeout=5_000)
    except Exception:  # noqa: BLE001 - the caller's assert reports what was shown
        pass
    return page.evaluate(_READOUT_JS, i)


@pytest.mark.parametrize("rel", site.page_paths())
def test_every_control_moves_the_readout_and_the_figure(built_site, open_page, rel: str) -> None:  # noqa: ANN001
    if 'class="lc-panel"' not in (built_site / rel).read_text(encoding="utf-8"):
        return  # no panel on the page (the landing page, the live page): nothing to move, so no load;
        # test_browser_pages loads every page and checks it draws as many panels as it holds
    page, log = open_page(rel)
    assert wait_for_panels(page) > 0, f"{rel} holds a panel but none drew"
    names = page.evaluate(site.PANEL_NAMES_JS)
    for i, (name, variant) in enumerate(names):
        panel = site.labcore_panel(name, variant)
        state = panel.defaults()
        shown = _wait_readout(page, i, _row(panel, state)[READOUT])
        assert shown == _row(panel, state)[READOUT], f"{rel} {name} at its defaults shows {shown!r}"
        for control in panel.controls:
            expected = [_row(panel, state | {control.name: value})[READOUT] for value in control.values]
            seen = page.evaluate(_SWEEP_JS, [i, control.name, expected, control.values.index(control.default)])
            assert isinstance(seen, list), f"{rel} {name}: {seen}"
            for value, want, (shown, _figure) in zip(control.values, expected, seen, strict=True):
                assert shown == want, f"{rel} {name}: {control.name}={value!r} shows {shown!r}, labcore says {want!r}"
            figures = {figure for _shown, figure in seen}
            data = {_drawn_data(panel, state | {control.name: value}) for value in control.values}
            assert len(figures) >= len(data) > 0, (
                f"{rel} {name}: moving {control.name} changes labcore's chart data "
                f"{len(data)} ways but the drawn figure only {len(figures)}"
            )
            _wait_readout(page, i, _row(panel, state)[READOUT])
    assert not log.unexpected_errors(), f"{rel}: errors while moving controls: {log.unexpected_errors()}"
