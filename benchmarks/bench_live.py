"""Benchmark a live panel's change in the kernel: python benchmarks/bench_live.py

For the panels of chapters 1, 2, 4 and 6 (``labcore.panels.live_panel``, ipywidgets), the kernel-side cost of one change: the
x control moved to a value off the grid (one new row), and another control moved (the x sweep recomputed), from
the new value to the chart ready to draw (``LivePanel.chart()`` with its spec). The peer is one ``panel.row()``
at the same state, the least any change can cost. Drawing the chart in the browser is ``bench_panels.py``'s
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


def main() -> None:
    print(f"{'chapter':8} {'panel':20} {'x off the grid':>16} {'other control':>14} {'one row (peer)':>15}")
    for chapter, name in PANELS.items():
        panel = show(name)
        x = next(c for c in panel.controls if c.name == panel.chart.x)
        other = next(c for c in panel.controls if c.name != x.name and len(c.values) > 1)
        if all(isinstance(v, int) for v in x.values):
            off = next(v for v in range(x.default + 1, x.default + 1000) if v not in x.values)
        else:
            off = x.default + (x.values[1] - x.values[0]) / 3

        def move_x() -> None:
            view = live_panel(panel)
            view.set(**{x.name: off})
            view.drawn.spec()

        def move_other() -> None:
            view = live_panel(panel)
            value = next(v for v in other.values if v != other.default)
            view.set(**{other.name: value})
            view.drawn.spec()

        base = _best(lambda: live_panel(panel))  # building the view draws the default state once
        peer = _best(lambda: panel.row(**{x.name: off}))
        moved_x, moved_other = _best(move_x) - base, _best(move_other) - base
        print(f"{chapter:8} {name:20} {max(moved_x, 0):13.1f} ms {max(moved_other, 0):11.1f} ms {peer:12.2f} ms"
              f"   ({max(moved_x, 0) / peer:.1f}x, {max(moved_other, 0) / peer:.1f}x the peer)")


if __name__ == "__main__":
    main()
