"""Benchmark a live panel's redraw after a typed value in the Live site: python -m benchmarks.bench_live_redraw

For panels of chapters 1, 2, 4, 6, 9, 10 and 16, in one notebook with no setup cell (nothing installed, no stored
grid: the slowest case) of the stand-alone Live site the Live tests build, served from 127.0.0.1 and opened in
Chromium: a panel under live controls (``labcore.panels.live_panel``) added in a cell, its opening sweep left to
finish, a value off its grid typed into a number box, and the seconds from Enter to its readout drawn (the comm
message to Pyodide, one row computed there, the chart drawn again in a new output).

Peers measured in the same run, kernel-side, on a view built untimed, each to a value no earlier change computed,
after the same panels were opened and typed into (labcore memoises simulations): the first redraw in Pyodide and in
this CPython (one row: ``live_panel``'s change), and in Pyodide a redraw with the whole x sweep computed in it (what
a change cost before the sweep was deferred); and the instructors' other route, ``show(name).including(...)``
displayed, for chapter 1's panel (with no stored grid, the whole grid computed). Best of ``--repeat`` kernel-side;
the typed value once per panel. The machine is shared: only the ratios within one run mean much.

Run from the repository root (``-m``); ``--site`` serves a site ``tests.lite._pages.build_test_site`` built before.
Needs ``requirements-lite.txt``, ``npm`` and Chromium, like ``tests/lite``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path

from benchmarks.bench_live import _fresh_values
from benchmarks.results import Row, add_save_flag, save_if_asked
from coursebuild.lite.site import build_site
from labcore.panels import live_panel, show
from tests.lite._pages import BLANK_NOTEBOOK, add_cell_and_run, blank_notebook, launch, serve, type_into_live_panel

#: chapter: (panel, control typed into, the value typed off its grid)
CASES = {
    "1": ("fleet_savings_panel", "tenant_qps", 1.2),
    "2": ("gpu_split_panel", "context_tokens", 6000),
    "4": ("lru_thrash_panel", "tenants", 41),
    "6": ("fleet_load_panel", "tenants", 41),
    "9": ("spill_panel", "host_adapters", 80),
    "10": ("affinity_panel", "replicas", 5),
    "16": ("fleet_calculator_panel", "tenant_qps", 0.45),
}
#: the kernel-side timing, the same code in Pyodide (a cell) and here: best of ``repeat`` first redraws on a view
#: built untimed (the sweep's missing points kept for later), then one redraw with the whole sweep in it
KERNEL_TIMING = """\
import json, time
import labcore.panels as p

def time_redraw(name, control, values):
    best_first = best_whole = float("inf")
    for first, whole in zip(values[::2], values[1::2]):  # each a value no earlier change computed
        later = []
        view = p.live_panel(p.show(name), schedule=later.append)
        started = time.perf_counter()
        view.set(**{control: first})
        best_first = min(best_first, time.perf_counter() - started)
        view = p.live_panel(p.show(name), schedule=lambda run: run())
        started = time.perf_counter()
        view.set(**{control: whole})
        best_whole = min(best_whole, time.perf_counter() - started)
    return {"first_ms": best_first * 1000, "whole_ms": best_whole * 1000}
"""
INCLUDING = ("fleet_savings_panel", {"tenants": 41})


def _timed_cases(repeat: int) -> dict[str, tuple[str, str, list]]:
    """Return, per chapter, the panel, the control and ``2 * repeat`` values off its grid, none the typed one."""
    out = {}
    for chapter, (name, control, typed) in CASES.items():
        spec = next(c for c in show(name).controls if c.name == control)
        out[chapter] = (name, control, [v for v in _fresh_values(spec, 2 * repeat + 1) if v != typed][: 2 * repeat])
    return out


def _cells(repeat: int) -> tuple[list[str], str, str]:
    """Return the cells the benchmark adds: one live panel per case, the kernel-side timing, the issue's route."""
    views = [
        f"import asyncio, labcore.panels as p\nview_{chapter} = p.live_panel(p.show({name!r}))\nview_{chapter}.widget"
        for chapter, (name, *_rest) in CASES.items()
    ]
    cases = _timed_cases(repeat)
    timing = KERNEL_TIMING + (
        f"print('KERNEL', json.dumps({{c: time_redraw(*args) for c, args in {cases!r}.items()}}))"
    )
    name, values = INCLUDING
    including = (
        f"started = time.perf_counter()\nroom = p.show({name!r}).including(**{values!r})\n"
        "room._repr_mimebundle_()\nprint('INCLUDING', (time.perf_counter() - started) * 1000)"
    )
    return views, timing, including


async def _printed(page, word: str) -> str:
    """Wait until an output line starts with ``word``; return it."""
    found = f"() => [...document.querySelectorAll('.jp-OutputArea-output')].some(o => o.textContent.includes({word!r}))"
    await page.wait_for_function(found, timeout=1_800_000, polling=200)
    texts = await page.locator(".jp-OutputArea-output").all_inner_texts()
    return next(line for t in texts for line in t.splitlines() if line.startswith(word))


async def _measure(base: str, profile: Path, repeat: int) -> tuple[dict[str, float], str, str]:
    """Open the blank notebook; per case add a live panel's cell and type its value (seconds from Enter to drawn);
    then add the timing cells; return the seconds per chapter and the two printed lines."""
    from playwright.async_api import async_playwright

    views, timing, including = _cells(repeat)
    typed = {}
    async with async_playwright() as pw:
        browser = await launch(pw, profile)
        page = await browser.new_page()
        await page.goto(f"{base}/lite/notebooks/index.html?path={BLANK_NOTEBOOK}")
        await page.locator(".jp-CodeCell").first.wait_for(timeout=90_000)
        for source, (chapter, (name, control, value)) in zip(views, CASES.items(), strict=True):
            cell = await add_cell_and_run(page, source)
            # the opening's sweep computed first (no stored grid here): the redraw timed is a change's alone
            await add_cell_and_run(
                page, f"while view_{chapter}.pending:\n    await asyncio.sleep(0.05)\nprint('SETTLED', {chapter!r})"
            )
            await _printed(page, f"SETTLED {chapter}")
            label = next(c.label for c in show(name).controls if c.name == control)
            expected = show(name).row(**{control: value})["readout"].split("\n")
            typed[chapter] = await type_into_live_panel(page, cell, label, value, expected, 600_000)
            print(f"  chapter {chapter}: {control}={value} drawn {typed[chapter]:.2f} s after Enter", flush=True)
        await add_cell_and_run(page, timing)
        kernel = await _printed(page, "KERNEL")
        await add_cell_and_run(page, including)
        room = await _printed(page, "INCLUDING")
        await browser.close()
    return typed, kernel, room


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--site",
        type=Path,
        help="serve this site (tests.lite._pages.build_test_site's) instead of "
        "building one with the blank notebook alone",
    )
    parser.add_argument("--repeat", type=int, default=3)
    add_save_flag(parser)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        site = args.site
        if site is None:
            blank_notebook(work / BLANK_NOTEBOOK, [])
            site = build_site(work / "out", [], verbatim=[work / BLANK_NOTEBOOK], glue="note")
        server, base = serve(site)
        try:
            typed, kernel_line, room_line = asyncio.run(_measure(base, work / "profile", args.repeat))
        finally:
            server.terminate()
            server.wait(10)
    kernel = json.loads(kernel_line.split(" ", 1)[1])  # "KERNEL {...}"
    including_ms = float(room_line.split()[1])
    scope: dict = {}
    exec(KERNEL_TIMING, scope)  # the same timing code, here in CPython
    for name, control, value in CASES.values():  # here as in the Live kernel before its timing: each panel opened
        live_panel(show(name), schedule=lambda run: run()).set(**{control: value})  # and typed into, sweeps done
    here = {c: scope["time_redraw"](*case) for c, case in _timed_cases(args.repeat).items()}
    print(
        f"\n{'chapter':8} {'panel':24} {'typed':>20} {'Live: Enter to drawn':>21} {'Pyodide 1st redraw':>19} "
        f"{'CPython 1st redraw':>19} {'Pyodide, sweep in it':>21}"
    )
    for chapter, (name, control, value) in CASES.items():
        k, c = kernel[chapter], here[chapter]
        print(
            f"{chapter:8} {name:24} {control + '=' + str(value):>20} {typed[chapter] * 1000:18.0f} ms "
            f"{k['first_ms']:16.1f} ms {c['first_ms']:16.2f} ms {k['whole_ms']:18.1f} ms"
            f"   (Pyodide {k['first_ms'] / c['first_ms']:.1f}x CPython)"
        )
    print(f"the issue's route in Pyodide: {INCLUDING[0]}.including({INCLUDING[1]}) displayed in {including_ms:.0f} ms")
    save_if_asked(
        args,
        "bench_live_redraw",
        [
            Row(
                f"chapter {chapter} {name}: {control}={value} typed, Enter to drawn",
                typed[chapter] * 1000,
                "ms",
                peer="the first redraw kernel-side in Pyodide",
                peer_result=kernel[chapter]["first_ms"],
                goal="< 1 s",
            )
            for chapter, (name, control, value) in CASES.items()
        ],
        measure="a value off the grid typed into a live panel "
        f"in Live (Chromium, a notebook with no setup cell); kernel-side best of {args.repeat}",
    )


if __name__ == "__main__":
    main()
