"""Time a control move of every panel on the static pages, in headless Chromium (goal: median < 100 ms).

For each page of the built site that shows a panel (``make book`` first), every panel's controls are moved
through their values by their real inputs; ``lc-panels.js`` records, per move, the time from the
input event to the end of Vega's redraw (dataflow, SVG update and the browser's layout of it). The
report is the median and the
worst per panel, and, as a peer measured in the same run, the time the same browser takes to
replace one SVG element's markup of the same size (what any redraw must at least pay).

Usage: ``.venv/bin/python -m benchmarks.bench_panels [--site _build/html] [--save]``
"""

from __future__ import annotations

import argparse
import functools
import http.server
import statistics
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

from benchmarks.results import Row, add_save_flag, save_if_asked

ROOT = Path(__file__).resolve().parent.parent
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]

_MOVE_ALL_JS = """
async () => {
  const out = {};
  for (const p of window.lcPanels) {
    const moves = [];
    for (const param of p.spec.params) {
      const input = p.target.querySelector(`.vega-bindings [name="${param.name}"]`);
      const n = input.tagName === 'SELECT' ? input.options.length
                : Math.round((param.bind.max - param.bind.min) / param.bind.step) + 1;
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        if (input.tagName === 'SELECT') { input.selectedIndex = i; input.dispatchEvent(new Event('change')); }
        else { input.value = String(param.bind.min + i * param.bind.step); input.dispatchEvent(new Event('input')); }
        await p.view.runAsync();
        p.target.querySelector('svg').getBoundingClientRect();  // the layout of the new SVG
        moves.push(performance.now() - t0);
      }
    }
    const svg = p.target.querySelector('svg');
    const html = svg.outerHTML, peer = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      const box = document.createElement('div'); box.innerHTML = html; document.body.appendChild(box);
      box.getBoundingClientRect(); box.remove();
      peer.push(performance.now() - t0);
    }
    out[p.name] = {moves: moves, peer: peer};
  }
  return out;
}
"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def main() -> None:
    """Serve the site, open every page with a panel, move every control, print the timings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=ROOT / "_build" / "html")
    add_save_flag(parser)
    args = parser.parse_args()
    handler = functools.partial(_Quiet, directory=str(args.site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    rows = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        pages = [p for p in sorted((args.site / "book").glob("*.html")) if "lc-panel-spec" in p.read_text("utf-8")]
        for path in pages:  # the chapters and the fleet calculator
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(base + f"book/{path.name}")
            ready = "() => window.lcPanels && window.lcPanels.every(p => p.target.dataset.ready === '1')"
            page.wait_for_function(ready, timeout=60_000)
            for name, t in page.evaluate(_MOVE_ALL_JS).items():
                rows.append(
                    (
                        name,
                        len(t["moves"]),
                        statistics.median(t["moves"]),
                        max(t["moves"]),
                        statistics.median(t["peer"]),
                    )
                )
            page.close()
        browser.close()
    server.shutdown()
    print(f"{'panel':24} {'moves':>5} {'median ms':>9} {'max ms':>7} {'peer ms':>7} {'ratio':>6}")
    for name, n, med, worst, peer in rows:
        print(f"{name:24} {n:5d} {med:9.1f} {worst:7.1f} {peer:7.2f} {med / peer:6.1f}")
    overall = statistics.median(r[2] for r in rows)
    print(
        f"median of the panels' medians: {overall:.1f} ms (goal < 100 ms); slowest median "
        f"{max(r[2] for r in rows):.1f} ms"
    )
    slowest = max(rows, key=lambda r: r[2])
    peer = "one panel SVG's markup parsed and laid out again"
    save_if_asked(
        args,
        "bench_panels",
        [
            Row(
                f"a panel's median move, median over the {len(rows)} panels on the pages",
                overall,
                "ms",
                peer=f"{peer} (median over the panels)",
                peer_result=statistics.median(r[4] for r in rows),
                goal="< 100 ms",
            ),
            Row(
                f"slowest panel's median move ({slowest[0]})",
                slowest[2],
                "ms",
                peer=f"{peer} (that panel)",
                peer_result=slowest[4],
                goal="< 100 ms",
            ),
        ],
        measure=f"every value of every control, input event to the redrawn SVG laid out, headless Chromium, "
        f"{sum(r[1] for r in rows):,} moves",
    )


if __name__ == "__main__":
    main()
