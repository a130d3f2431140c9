"""Benchmark a live panel's change in the kernel: python -m benchmarks.bench_live [--save]

For the panels of chapters 1, 2, 4 and 6 (``labcore.panels.live_panel``, ipywidgets), the kernel-side cost of one
change, from setting the new value to the chart ready to draw (``LivePanel.chart()`` with its spec): the x control
moved to a value off the grid (one new row), and another control moved (the x sweep computed again). The peer is
one ``panel.row()`` at a value off the grid, the least any change can cost. Every move goes to a value no earlier
repeat computed, so neither a view's rows nor labcore's memoised traces are reused; each repeat builds its view
untimed. Drawing the chart in the browser is ``bench_panels.py``'s measure (about 8 ms a move). Best of 5 per
case; only the ratios are stable on these machines.
"""

from __future__ import annotations

import argparse
import time

from benchmarks.results import Row, add_save_flag, save_if_asked
from labcore.panels import live_panel, show

PANELS = {"1": "fleet_savings_panel", "2": "gpu_split_panel", "4": "lru_thrash_panel", "6": "fleet_load_panel"}


def _best_move(panel, name: str, values, repeats: int) -> float:  # noqa: ANN001
    """Return the best time (ms) of one change: a view is built (untimed), then one control set and the chart made."""
    best = float("inf")
    for _ in range(repeats):
        view = live_panel(panel)
        value = next(values)
        started = time.perf_counter()
        view.set(**{name: value})
        view.drawn.spec()
        best = min(best, time.perf_counter() - started)
    return best * 1000


def _best(run, repeats: int) -> float:  # noqa: ANN001
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    add_save_flag(parser)
    args = parser.parse_args(argv)
    repeats, rows = args.repeat, []
    print(f"{'chapter':8} {'panel':20} {'x off the grid':>16} {'other control':>14} {'one row (peer)':>15}")
    for chapter, name in PANELS.items():
        panel = show(name)
        x = next(c for c in panel.controls if c.name == panel.chart.x)
        # the first other control with numbers: each repeat moves it to a value never computed before (a cold sweep)
        other = next(
            c
            for c in panel.controls
            if c.name != x.name
            and len(c.values) > 1
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in c.values)
        )
        offs, others = iter(_fresh_values(x, repeats * 2)), iter(_fresh_values(other, repeats))
        moved_x = _best_move(panel, x.name, offs, repeats)
        moved_other = _best_move(panel, other.name, others, repeats)
        peer = _best(lambda panel=panel, x=x, offs=offs: panel.row(**{x.name: next(offs)}), repeats)
        print(
            f"{chapter:8} {name:20} {moved_x:13.1f} ms {moved_other:11.1f} ms {peer:12.2f} ms"
            f"   ({moved_x / peer:.1f}x, {moved_other / peer:.1f}x the peer; {other.name} moved)"
        )
        moves = ((f"{x.name} off the grid", moved_x), (f"{other.name} moved", moved_other))
        rows += [
            Row(
                f"chapter {chapter} {name}: {what}",
                ms,
                "ms",
                peer="one panel.row() off the grid",
                peer_result=peer,
                goal="< 100 ms",
            )
            for what, ms in moves
        ]
    save_if_asked(
        args, "bench_live", rows, measure=f"live_panel: one change to the chart ready, kernel-side, best of {repeats}"
    )


if __name__ == "__main__":
    main()
