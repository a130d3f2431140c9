"""Time a slider update of every panel in ``labcore.widgets.PANELS`` (goal: median <= 100 ms each).

A slider update is the callback the slider triggers: compute (labcore) + redraw (matplotlib to PNG)
+ handing the PNG and the readout to the widgets. For a static headline panel it is the kernel-side
index switch (in the browser it is client-side), so its table row also shows the one-off cost of
pre-rendering each state.

Panels are found through the registry, so a factory added with ``@register_panel`` is benchmarked
without touching this file. The "peer" is a minimal matplotlib figure (one line, a title, two axis
labels) drawn to PNG the same way in the same run; ``x peer`` is the panel's median over the peer's,
which stays comparable when the machine is busy.

    python benchmarks/bench_panels.py [--moves 20] [--only vram_panel ...] [--strict]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labcore.widgets import PANELS, Panel, render_png  # noqa: E402

GOAL_MS = 100.0


def _positions(control: object, count: int = 5) -> list[object]:
    """Return a few slider positions spread over the control's range (or its options)."""
    options = getattr(control, "options", None)
    if options:
        return list(options)
    lo, hi = control.min, control.max  # type: ignore[attr-defined]
    values = [lo + (hi - lo) * i / (count - 1) for i in range(count)]
    return [round(v) if isinstance(lo, int) else v for v in values]


def moves(panel: Panel, n: int) -> list[tuple[str, object]]:
    """Return ``n`` slider moves that visit the controls in turn, each to the next position on its track."""
    keys = list(panel.controls)
    tracks = {key: _positions(panel.controls[key]) for key in keys}
    current = panel.values()
    plan: list[tuple[str, object]] = []
    for i in range(n):
        key = keys[i % len(keys)]
        track = tracks[key]
        here = track.index(current[key]) if current[key] in track else -1
        current[key] = track[(here + 1) % len(track)]
        plan.append((key, current[key]))
    return plan


def bench_panel(name: str, n_moves: int) -> dict[str, object]:
    t0 = time.perf_counter()
    try:
        panel = PANELS[name]()
    except Exception as exc:  # one broken factory must not hide the others' numbers
        return {"name": name, "kind": "unavailable", "note": f"factory raised {type(exc).__name__}: {exc}"}
    build_ms = (time.perf_counter() - t0) * 1e3
    if not isinstance(panel, Panel):
        return {"name": name, "kind": "unavailable", "note": repr(panel)}
    wall, cpu = [], []
    for key, value in moves(panel, n_moves):
        t_wall, t_cpu = time.perf_counter(), time.process_time()
        panel.set(**{key: value})
        wall.append((time.perf_counter() - t_wall) * 1e3)
        cpu.append((time.process_time() - t_cpu) * 1e3)
    panel.reset()
    return {
        "name": name,
        "kind": panel.kind,
        "build_ms": build_ms,
        "moves": len(wall),
        "median_ms": statistics.median(wall),
        "p90_ms": sorted(wall)[int(0.9 * (len(wall) - 1))],
        "cpu_ms": statistics.median(cpu),
        "prerender_ms": statistics.median(panel.render_ms) if panel.render_ms else None,
    }


def peer_ms(repeats: int = 15) -> float:
    """Median time to draw and encode a minimal figure: the yardstick measured in the same run."""

    def plot(_result: object, ax: object) -> None:
        ax.plot([1, 2, 3], [1, 4, 9])  # type: ignore[attr-defined]
        ax.set_title("peer")  # type: ignore[attr-defined]
        ax.set_xlabel("x (unit)")  # type: ignore[attr-defined]
        ax.set_ylabel("y (unit)")  # type: ignore[attr-defined]

    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        render_png(plot, None)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=20, help="slider moves per panel (default 20)")
    parser.add_argument("--only", nargs="*", default=None, help="panel names (default: every registered panel)")
    parser.add_argument("--strict", action="store_true", help=f"exit 1 if a median exceeds {GOAL_MS:g} ms")
    args = parser.parse_args(argv)

    names = args.only or list(PANELS)
    unknown = sorted(set(names) - set(PANELS))
    if unknown:
        parser.error(f"unknown panels {unknown}; registered: {sorted(PANELS)}")
    peer_before = peer_ms()
    rows = [bench_panel(name, args.moves) for name in names]
    peer = statistics.median([peer_before, peer_ms()])

    print(f"slider update = compute + redraw + widget update; {args.moves} moves per panel; goal: median <= {GOAL_MS:g} ms")
    print(f"peer (minimal figure to PNG, same run): {peer:.1f} ms; load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores (CPU ms = process time, less sensitive to a busy machine)\n")
    header = (f"{'panel':<26} {'kind':<7} {'median ms':>9} {'p90 ms':>7} {'CPU ms':>7} {'x peer':>6} "
              f"{'pre-render ms/state':>20} {'build ms':>9}  goal")
    print(header)
    print("-" * len(header))
    over = []
    for r in rows:
        if r["kind"] == "unavailable":
            print(f"{r['name']:<26} {r['note']}")
            continue
        ok = r["median_ms"] <= GOAL_MS
        if not ok:
            over.append(r["name"])
        pre = f"{r['prerender_ms']:.1f}" if r["prerender_ms"] is not None else "-"
        print(f"{r['name']:<26} {r['kind']:<7} {r['median_ms']:>9.1f} {r['p90_ms']:>7.1f} {r['cpu_ms']:>7.1f} "
              f"{r['median_ms'] / peer:>6.2f} {pre:>20} {r['build_ms']:>9.0f}  {'ok' if ok else 'OVER'}")
    if over:
        print(f"\nover the {GOAL_MS:g} ms goal: {', '.join(over)}")
    return 1 if (over and args.strict) else 0


if __name__ == "__main__":
    raise SystemExit(main())
