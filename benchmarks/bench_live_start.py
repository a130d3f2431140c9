"""Benchmark the Live version's start: python benchmarks/bench_live_start.py [--chapters 01,04] [--repeat 2]

For each chapter's live copy (the stand-alone live site the Live tests build, served from 127.0.0.1 with every other
request blocked): the seconds from opening its page to the first cell shown, to Run All started, and to the first
output of a cell (the moment a reader sees Python answer). The peer is the same page's first cell shown: what
JupyterLab alone costs before any kernel work. The first open of a profile is cold (no HTTP or compiled-code
cache); the next ones are warm, as for a reader who opens a second chapter. Needs ``requirements-lite.txt``,
``npm`` and Chromium, like ``tests/lite``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.lite._pages import CHAPTERS, EXECUTED, launch  # noqa: E402

FIRST_OUTPUT = "() => document.querySelectorAll('.jp-CodeCell .jp-OutputArea-output').length > 0"


async def _open(browser, base: str, name: str) -> dict[str, float]:  # noqa: ANN001
    page = await browser.new_page()
    started = time.perf_counter()
    await page.goto(f"{base}/lite/notebooks/index.html?path={name}")
    await page.locator(".jp-CodeCell").first.wait_for(timeout=90_000)
    shown = time.perf_counter() - started
    await page.locator(".jp-Notebook").click()
    await page.get_by_role("menuitem", name="Run", exact=True).click()
    await page.locator("li[data-command='runmenu:run-all']").click()
    run = time.perf_counter() - started
    await page.wait_for_function(FIRST_OUTPUT, timeout=180_000, polling=50)
    first = time.perf_counter() - started
    await page.close()
    return {"shown": shown, "run all": run, "first output": first}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapters", default="01,04,07")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    wanted = [c for c in CHAPTERS if c.name[:2] in args.chapters.split(",")]
    from coursebuild.lite_site import build_site
    from playwright.async_api import async_playwright

    work = Path(tempfile.mkdtemp())
    glue = "build" if all((EXECUTED / p.name).is_file() for p in wanted) else "note"
    site = build_site(work / "out", wanted, root=ROOT, glue=glue, executed_dir=EXECUTED)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port), "--directory",
                               str(site)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)

    async def measure() -> list[tuple[str, int, dict[str, float]]]:
        out = []
        async with async_playwright() as pw:
            browser = await launch(pw, work / "profile")
            for attempt in range(args.repeat):
                for chapter in wanted:
                    out.append((chapter.name, attempt, await _open(browser, f"http://127.0.0.1:{port}", chapter.name)))
            await browser.close()
        return out

    try:
        results = asyncio.run(measure())
    finally:
        server.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=10)
    print(f"{'chapter':28} {'open':>5} {'shown s':>8} {'run all s':>10} {'first output s':>15} {'over the peer':>14}")
    for name, attempt, t in results:
        print(f"{name:28} {'cold' if attempt == 0 and name == wanted[0].name else 'warm':>5} {t['shown']:8.1f} "
              f"{t['run all']:10.1f} {t['first output']:15.1f} {t['first output'] / t['shown']:13.1f}x")


if __name__ == "__main__":
    main()
