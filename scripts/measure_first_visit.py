"""Measure what one browser downloads from the course site on its first visit, for the instructors' offline plan.

    python scripts/measure_first_visit.py [--site _build/html] [--chapter 01_why_multi_lora] [--out results/first_visit.json]

Serves the built site (read only; its gzip copies in a folder beside it) on 127.0.0.1 with the room's server,
``coursebuild.serve`` (``make serve``), and opens it in a fresh Chromium profile that can reach nothing else, as a
learner's laptop would on the day: first the chapter's page (the static site: the pages, decks and panels), then
the same chapter in the Live version, Run All, until its first cell's output (the Python runtime, the course's
packages and JupyterLab, all downloaded). It does so twice, in two fresh profiles: with the server's compression
off (every file as on disk, as ``python -m http.server`` sends it) and on. The server counts the bytes of every
response body it sends; each file the browser asked for is also counted once at its size on disk.
``results/first_visit.json`` records both, the number of files, the largest ones, the whole site's size and how it
was measured. The instructors' page (book/instructors.ipynb) prints them.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from coursebuild.serve import WsgiApp, compress_site, create_server, recording, site_app

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
#: no name resolves but 127.0.0.1's: a request for anything outside the site fails (and is listed as refused)
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
FIRST_OUTPUT = "() => document.querySelectorAll('.jp-CodeCell .jp-OutputArea-output').length > 0"
PHASES = ("static", "live")


@dataclass
class Sent:
    """Every response the server sent, by phase of the visit: (path, status, body bytes, Content-Encoding)."""

    phase: str = "static"
    log: dict[str, list[tuple[str, int, int, str]]] = field(default_factory=lambda: {p: [] for p in PHASES})

    def wrap(self, app: WsgiApp) -> WsgiApp:
        """Return ``app`` recording each response in the current phase."""
        return recording(app, lambda *entry: self.log[self.phase].append(entry))


def _tree_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _file_of(site: Path, url_path: str) -> Path | None:
    candidate = site / unquote(urlsplit(url_path).path).lstrip("/")
    if candidate.is_dir():
        candidate = candidate / "index.html"
    return candidate if candidate.is_file() else None


async def _visit(base: str, chapter: str, sent: Sent) -> list[str]:
    """Open the chapter, then its Live version to Run All's first output; return the requests that left the site."""
    from playwright.async_api import async_playwright  # optional: the browser tests' package

    refused: list[str] = []

    def outside(request: Any) -> None:
        url = request.url
        if not url.startswith(("data:", "blob:")) and urlsplit(url).hostname != "127.0.0.1":
            refused.append(url)

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = await browser.new_context(viewport={"width": 1280, "height": 900})
        context.on("request", outside)
        page = await context.new_page()
        sent.phase = "static"
        await page.goto(f"{base}/book/{chapter}.html", wait_until="networkidle")
        sent.phase = "live"
        await page.goto(f"{base}/lite/notebooks/index.html?path={chapter}.ipynb")
        await page.locator(".jp-CodeCell").first.wait_for(timeout=120_000)
        await page.locator(".jp-Notebook").click()
        await page.get_by_role("menuitem", name="Run", exact=True).click()
        await page.locator("li[data-command='runmenu:run-all']").click()
        await page.wait_for_function(FIRST_OUTPUT, timeout=300_000, polling=200)
        await page.wait_for_load_state("networkidle")
        await browser.close()
    return refused


def measure(site: Path, chapter: str, compressed: Path | None) -> Sent:
    """Serve ``site`` (gzip copies from ``compressed``, or none), make the first visit; return what was sent."""
    sent = Sent()
    server = create_server(sent.wrap(site_app(site, compressed=compressed)), host="127.0.0.1", port=0)
    threading.Thread(target=server.run, daemon=True).start()
    try:
        refused = asyncio.run(_visit(f"http://127.0.0.1:{server.effective_port}", chapter, sent))
    finally:
        server.close()
    if refused:
        raise SystemExit(f"the first visit asked for files outside the site: {refused[:5]}")
    return sent


def summary(site: Path, plain: Sent, gzipped: Sent) -> dict[str, Any]:
    """The two phases' files (once each, at their size on disk) and the bytes sent without and with compression."""

    def files(sent: Sent, phase: str) -> set[Path]:
        return {f for f in (_file_of(site, path) for path, status, _, _ in sent.log[phase] if status < 400) if f}

    static = files(gzipped, "static")
    live = files(gzipped, "live") - static
    by_file: dict[str, int] = {}
    for path, _, body, _ in gzipped.log["live"]:
        found = _file_of(site, path)
        if found in live:
            key = found.relative_to(site).as_posix()
            by_file[key] = by_file.get(key, 0) + body
    missing = [path for phase in PHASES for path, status, _, _ in gzipped.log[phase] if status == 404]
    largest = sorted(live, key=lambda f: -f.stat().st_size)
    return {
        "static_files": len(static),
        "static_bytes": sum(f.stat().st_size for f in static),
        "live_files": len(live),
        "live_bytes": sum(f.stat().st_size for f in live),
        "static_sent_plain_bytes": sum(body for _, _, body, _ in plain.log["static"]),
        "live_sent_plain_bytes": sum(body for _, _, body, _ in plain.log["live"]),
        "static_sent_bytes": sum(body for _, _, body, _ in gzipped.log["static"]),
        "live_sent_bytes": sum(body for _, _, body, _ in gzipped.log["live"]),
        "live_gzip_responses": sum(enc == "gzip" for _, _, _, enc in gzipped.log["live"]),
        "not_found": sorted(set(missing)),
        "live_downloads": {
            f.relative_to(site).as_posix(): [f.stat().st_size, by_file.get(f.relative_to(site).as_posix(), 0)]
            for f in largest
        },
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
    with tempfile.TemporaryDirectory(prefix="first-visit-gzip-") as folder:
        compress_site(site, Path(folder))
        plain = measure(site, args.chapter, None)
        gzipped = measure(site, args.chapter, Path(folder))
    result = {"chapter": args.chapter, **summary(site, plain, gzipped)}
    result.update(
        site_bytes=_tree_bytes(site),
        lite_bytes=_tree_bytes(site / "lite"),
        measured=datetime.date.today().isoformat(),
        how="headless Chromium, two fresh profiles reaching nothing but the site: the chapter's page, then its Live "
        "version to Run All's first output, served by coursebuild.serve with its compression off, then on; "
        "*_bytes: each file asked for counted once at its size on disk; *_sent_*: the response bodies the "
        "server sent (live_downloads: each file's size on disk and bytes sent, compression on); "
        "scripts/measure_first_visit.py",
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "live_downloads"}, indent=1))


if __name__ == "__main__":
    main()
