"""Measure what one browser downloads from the course site on its first visit, for the instructors' offline plan.

    python scripts/measure_first_visit.py [--site _build/html] [--chapter 01_why_multi_lora] [--out results/first_visit.json]

Serves the built site (read only) on 127.0.0.1 and opens it in a fresh Chromium profile with every other request
refused, as a learner's laptop would on the day: first the chapter's page (the static site: the pages, decks and
panels), then the same chapter in the Live version, Run All, until its first cell's output (the Python runtime,
the course's packages and JupyterLab, all downloaded). Each file is counted once, at its size on the server;
``results/first_visit.json`` records the two totals, the number of files, the whole site's size and how it was
measured. The instructors' page (book/instructors.ipynb) prints them.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import functools
import http.server
import json
import threading
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
FIRST_OUTPUT = "() => document.querySelectorAll('.jp-CodeCell .jp-OutputArea-output').length > 0"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def _tree_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _file_of(site: Path, url: str) -> Path | None:
    path = unquote(urlsplit(url).path).lstrip("/")
    candidate = site / path
    if candidate.is_dir():
        candidate = candidate / "index.html"
    return candidate if candidate.is_file() else None


async def _visit(site: Path, base: str, chapter: str) -> dict[str, object]:
    from playwright.async_api import async_playwright  # optional: the browser tests' package

    seen: dict[str, set[str]] = {"static": set(), "live": set()}
    phase = ["static"]
    refused: list[str] = []

    async def guard(route) -> None:  # noqa: ANN001
        url = route.request.url
        if urlsplit(url).hostname == "127.0.0.1":
            seen[phase[0]].add(url.split("#")[0])
            await route.continue_()
        elif url.startswith(("data:", "blob:")):
            await route.continue_()
        else:
            refused.append(url)
            await route.abort()

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = await browser.new_context(viewport={"width": 1280, "height": 900})
        await context.route("**/*", guard)
        page = await context.new_page()
        await page.goto(f"{base}/book/{chapter}.html", wait_until="networkidle")
        phase[0] = "live"
        await page.goto(f"{base}/lite/notebooks/index.html?path={chapter}.ipynb")
        await page.locator(".jp-CodeCell").first.wait_for(timeout=120_000)
        await page.locator(".jp-Notebook").click()
        await page.get_by_role("menuitem", name="Run", exact=True).click()
        await page.locator("li[data-command='runmenu:run-all']").click()
        await page.wait_for_function(FIRST_OUTPUT, timeout=300_000, polling=200)
        await page.wait_for_load_state("networkidle")
        await browser.close()

    def files(urls: set[str]) -> set[Path]:
        return {f for f in (_file_of(site, u) for u in urls) if f is not None}

    static, live = files(seen["static"]), files(seen["live"]) - files(seen["static"])
    largest = sorted(live, key=lambda f: -f.stat().st_size)[:6]
    return {
        "chapter": chapter,
        "static_files": len(static),
        "static_bytes": sum(f.stat().st_size for f in static),
        "live_files": len(live),
        "live_bytes": sum(f.stat().st_size for f in live),
        "live_largest": {str(f.relative_to(site)): f.stat().st_size for f in largest},
        "refused": refused,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--chapter", default="01_why_multi_lora")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "first_visit.json")
    args = parser.parse_args()
    site = args.site.resolve()
    if not (site / "lite").is_dir():
        raise SystemExit(f"{site} has no lite/ folder: build the site with its Live version first (make book)")
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        result = asyncio.run(_visit(site, f"http://127.0.0.1:{server.server_address[1]}", args.chapter))
    finally:
        server.shutdown()
    if result["refused"]:
        raise SystemExit(f"the first visit asked for files outside the site: {result['refused'][:5]}")
    result.pop("refused")
    result.update(
        site_bytes=_tree_bytes(site),
        lite_bytes=_tree_bytes(site / "lite"),
        measured=datetime.date.today().isoformat(),
        how="headless Chromium, fresh profile: the chapter's page, then its Live version to Run All's first "
        "output; each file counted once at its size on the server (scripts/measure_first_visit.py)",
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
