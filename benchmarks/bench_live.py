"""Benchmark a live panel's change in the kernel: python benchmarks/bench_live.py

For the panels of chapters 1, 2, 4 and 6 (``labcore.panels.live_panel``, ipywidgets), the kernel-side cost of one change: the
x control moved to a value off the grid (one new row), and another control moved (the x sweep recomputed), from
the new value to the chart ready to draw (``LivePanel.chart()`` with its spec). The peer is one ``panel.row()``
at a value off the grid, the least any change can cost. Every measured move goes to a value no earlier
repeat computed (off the grid), so neither the view's rows nor labcore's memoised traces are reused. Drawing the chart in the browser is ``bench_panels.py``'s
measure (about 8 ms a move). Best of 5 per case; only the ratios are stable on these machines.
"""

from __future__ import annotations

import time

from labcore.panels import live_panel, show

PANELS = {"1": "fleet_savings_panel", "2": "gpu_split_panel", "4": "lru_thrash_panel", "6": "fleet_load_panel"}


def _best(run, repeats: int = 5) -> float:  # noqa: ANN001
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best * 1000


def _fresh_values(control, count: int) -> list:  # noqa: ANN001
    """Return ``count`` values of ``control`` that no earlier repeat used: off its grid, so nothing is memoised."""
    if all(isinstance(v, int) for v in control.values):
        return [v for v in range(control.default + 1, control.default + 10 * count) if v not in control.values][:count]
    step = (control.values[1] - control.values[0]) / (count + 2)
    return [control.default + step * (k + 1) for k in range(count)]


def main() -> None:
    repeats = 5
    print(f"{'chapter':8} {'panel':20} {'x off the grid':>16} {'other control':>14} {'one row (peer)':>15}")
    for chapter, name in PANELS.items():
        panel = show(name)
        x = next(c for c in panel.controls if c.name == panel.chart.x)
        # the first other control with numbers: each repeat moves it to a value never computed before (a cold sweep)
        other = next(c for c in panel.controls if c.name != x.name and len(c.values) > 1
                     and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in c.values))
        offs, others = iter(_fresh_values(x, repeats * 2)), iter(_fresh_values(other, repeats))

        def move_x() -> None:
            view = live_panel(panel)
            view.set(**{x.name: next(offs)})
            view.drawn.spec()

        def move_other() -> None:
            view = live_panel(panel)
            view.set(**{other.name: next(others)})
            view.drawn.spec()

        base = _best(lambda: live_panel(panel), repeats)  # building the view draws the default state once
        peer = _best(lambda: panel.row(**{x.name: next(offs)}), repeats)
        moved_x, moved_other = _best(move_x, repeats) - base, _best(move_other, repeats) - base
        print(f"{chapter:8} {name:20} {max(moved_x, 0):13.1f} ms {max(moved_other, 0):11.1f} ms {peer:12.2f} ms"
              f"   ({max(moved_x, 0) / peer:.1f}x, {max(moved_other, 0) / peer:.1f}x the peer; {other.name} moved)")


if __name__ == "__main__":
    main()
