"""Benchmark the Live version's start: python -m benchmarks.bench_live_start [--chapters 01,04] [--repeat 2]

For each chapter's live copy (the stand-alone live site the Live tests build, served from 127.0.0.1 with every other
request blocked): the seconds from opening its page to the first cell shown, to Run All started, and to the first
output of a cell (the moment a reader sees Python answer); and for the lab notebook (opened where "Do the lab"
leads, the notebook app), also to its first suite run's table. Two peers in the same run: the same page's first cell
shown (what JupyterLab alone costs before any kernel work), and the same site with its kernel booting without the
snapshot (``coursebuild.lite.fast_start``: ``pyodideUrl`` pointed back at Pyodide's own ``pyodide.mjs``, so also
without the bundle of the preloaded packages' files and hypothesis's tables), measured in turn with it. The first
open of a profile is cold (no HTTP or compiled-code cache); the next ones are warm, as for a reader who opens a second
chapter. Needs ``requirements-lite.txt``, ``npm`` and Chromium, like ``tests/lite``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.results import Row, add_save_flag, save_if_asked
from coursebuild.lite.runtime import KERNEL_PLUGIN
from coursebuild.lite.site import build_site
from labcore.site import LAB_NOTEBOOK, lab_live_url
from tests.lite._pages import CHAPTERS, EXECUTED, ROOT, launch, serve

FIRST_OUTPUT = "() => document.querySelectorAll('.jp-CodeCell .jp-OutputArea-output').length > 0"
#: the lab notebook's suite table (``labcore.workbench``), which its third code cell (``bench.show()``) shows
SUITE_TABLE = "() => document.querySelectorAll('.jp-CodeCell')[2]?.querySelector('table.lab-status') != null"


async def _open(browser, base: str, name: str) -> dict[str, float]:  # noqa: ANN001
    """Open a chapter (or, for :data:`LAB_NOTEBOOK`, the lab where "Do the lab" leads), Run All; return its seconds.

    For the lab, also the seconds to its first suite run's table (the learner's first red/green answer).
    """
    page = await browser.new_page()
    started = time.perf_counter()
    lab = name == LAB_NOTEBOOK
    await page.goto(f"{base}/{lab_live_url()}" if lab else f"{base}/lite/notebooks/index.html?path={name}")
    await page.locator(".jp-CodeCell").first.wait_for(timeout=90_000)
    shown = time.perf_counter() - started
    await page.locator(".jp-Notebook").click()
    await page.get_by_role("menuitem", name="Run", exact=True).click()
    await page.locator("li[data-command='runmenu:run-all']").click()
    run = time.perf_counter() - started
    await page.wait_for_function(FIRST_OUTPUT, timeout=180_000, polling=50)
    times = {"shown": shown, "run all": run, "first output": time.perf_counter() - started}
    if lab:
        await page.wait_for_function(SUITE_TABLE, timeout=240_000, polling=50)
        times["suite"] = time.perf_counter() - started
    await page.close()
    return times


def _without_snapshot(site: Path, dest: Path) -> Path:
    """Copy ``site`` to ``dest`` with its kernel loading Pyodide's own ``pyodide.mjs`` (no snapshot)."""
    shutil.copytree(site, dest)
    config = dest / "lite" / "jupyter-lite.json"
    data = json.loads(config.read_text(encoding="utf-8"))
    settings = data["jupyter-config-data"]["litePluginSettings"][KERNEL_PLUGIN]
    settings["pyodideUrl"] = settings["pyodideUrl"].rsplit("/", 1)[0] + "/pyodide.mjs"
    config.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return dest


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapters", default="01,04,07")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--no-lab", dest="lab", action="store_false", help="leave out the lab notebook")
    add_save_flag(parser)
    args = parser.parse_args(argv)
    wanted = [c for c in CHAPTERS if c.name[:2] in args.chapters.split(",")]
    opened = [c.name for c in wanted] + ([LAB_NOTEBOOK] if args.lab else [])
    from playwright.async_api import async_playwright  # optional: the browser tests' package

    work = Path(tempfile.mkdtemp())
    glue = "build" if all((EXECUTED / p.name).is_file() for p in wanted) else "note"
    site = build_site(work / "out", wanted, root=ROOT, glue=glue, executed_dir=EXECUTED)
    variants = {"snapshot": site, "no snapshot": _without_snapshot(site, work / "plain")}
    servers = {name: serve(folder) for name, folder in variants.items()}
    time.sleep(1.0)

    async def measure() -> list[tuple[str, str, int, dict[str, float]]]:
        out = []
        async with async_playwright() as pw:
            browsers = {name: await launch(pw, work / f"profile-{i}") for i, name in enumerate(variants)}
            for attempt in range(args.repeat):
                for notebook in opened:
                    for name, (_, base) in servers.items():  # in turn, so both meet the same machine load
                        out.append((name, notebook, attempt, await _open(browsers[name], base, notebook)))
            for browser in browsers.values():
                await browser.close()
        return out

    try:
        results = asyncio.run(measure())
    finally:
        for server, _ in servers.values():
            server.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)  # the two sites and the browser profiles: about 330 MB a run
    print(
        f"{'kernel':12} {'chapter':28} {'open':>5} {'shown s':>8} {'run all s':>10} {'first output s':>15} "
        f"{'over the peer':>14} {'suite s':>8}"
    )
    for variant, name, attempt, t in results:
        suite = f"{t['suite']:8.1f}" if "suite" in t else f"{'':8}"
        print(
            f"{variant:12} {name:28} {'cold' if attempt == 0 and name == opened[0] else 'warm':>5} "
            f"{t['shown']:8.1f} {t['run all']:10.1f} {t['first output']:15.1f} "
            f"{t['first output'] / t['shown']:13.1f}x "
            f"{suite}"
        )
    timed = {(v, n, a): t for v, n, a, t in results}
    ratios = [
        t["first output"] / timed[("no snapshot", n, a)]["first output"] for v, n, a, t in results if v == "snapshot"
    ]
    print(f"first output with the snapshot / without it, same run: {min(ratios):.2f}-{max(ratios):.2f}x")
    measures = (("first output", "open to first output"), ("suite", "open to the suite's first table"))
    save_if_asked(
        args,
        "bench_live_start",
        [
            Row(
                f"{n}, open {a + 1}: {label}",
                t[key],
                "s",
                peer="the same without the fast start",
                peer_result=timed[("no snapshot", n, a)][key],
                goal="< 8 s",
            )
            for key, label in measures
            for v, n, a, t in results
            if v == "snapshot" and key in t
        ],
        measure="a Live chapter opened in Chromium, Run All, to its first cell's output (the Live tests' site)",
    )


if __name__ == "__main__":
    main()
