"""Prove the live (JupyterLite) site boots a Pyodide kernel where labcore runs, with no network.

The browser test builds a stand-alone lite site (``scripts/build_lite.py``) whose only notebook
is generated here with the course's real setup cell, serves it from 127.0.0.1, boots the
kernel in Debian's Chromium, runs registry/cache/router cells and moves an ipywidgets slider.
Every request is recorded and any request outside 127.0.0.1 is aborted and fails the test.
Results computed in the browser are compared with the same code run here in CPython. The same
site also holds chapter 1's live copy, which a second test runs top to bottom offline: no
traceback, one printed note in place of each figure, labcore's numbers printed.

Run it alone with ``pytest -m lite tests/lite -s`` (prints boot and run times; about 60 s for
both browser tests on the 2-core machine). It needs ``pip install -r requirements-lite.txt``, ``npm`` and
``/usr/bin/chromium``, and skips when one is missing. npm/pip downloads are cached in
``_build/lite_cache``; a screenshot of the finished notebook goes to ``_build/lite_kernel_test.png``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

pytestmark = [pytest.mark.lite, pytest.mark.browser]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run",
]
BOOT_TIMEOUT_MS = 240_000

#: a registry/cache/router walk-through; its printed line must be identical in Pyodide and here
LABCORE_CELL = """\
from labcore import AdapterCache, AdapterRegistry, MultiLoRARouter, tenant_adapters
reg = AdapterRegistry()
reg.register_base("llama-3-8b", "sha256:llama-3-8b-demo")
for adapter in tenant_adapters(6, vram_mb=16.0):
    reg.register(adapter)
cache = AdapterCache(48.0, 10.0)
router = MultiLoRARouter(reg, cache, "llama-3-8b", base_latency_ms=20.0, dynamic_overhead=0.1)
routes = [router.route(f"llama-3-8b:tenant-{i:02d}") for i in [1, 2, 3, 1, 4, 5, 1, 6]]
print("LABCORE", len(reg), cache.hits, cache.misses, len(cache.eviction_log),
      [d.mode for d in routes][0], round(sum(d.total_latency_ms for d in routes), 3))"""

#: a kernel-side slider: moving it recomputes adapter VRAM with labcore in the kernel
SLIDER_CELL = """\
import ipywidgets as widgets
import labcore
rank = widgets.IntSlider(value=16, min=4, max=64, step=4, description="rank")
vram = widgets.HTML()
def show(change=None):
    vram.value = f"<b class='lc-vram'>{labcore.adapter_vram_mb(rank.value, 4096, 32, 2):.2f} MiB</b>"
rank.observe(show, names="value")
show()
widgets.VBox([rank, vram])"""

#: a real chapter run top to bottom offline: its figures must become one printed line each
OFFLINE_CHAPTER = ROOT / "book" / "01_why_multi_lora.ipynb"

PROBE_CELL = """\
import sys
print("PYODIDE", sys.platform, sys.version.split()[0])"""


def _tool_missing() -> str | None:
    """Return why the browser test cannot run here, or None."""
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    if shutil.which("npm") is None:
        return "npm is missing"
    for module in ("playwright", "jupyterlite_core", "jupyterlite_pyodide_kernel"):
        try:
            __import__(module)
        except ImportError:
            return f"{module} is missing (pip install -r requirements-lite.txt)"
    return None


def _demo_notebook(path: Path) -> None:
    """Write the test notebook: the course's setup cell, then labcore and slider cells."""
    import nbformat
    from build_lite import SETUP_CELL

    nb = nbformat.v4.new_notebook()
    setup = nbformat.v4.new_code_cell(SETUP_CELL, metadata={"tags": ["remove-cell"]})
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Live kernel check"),
        setup,
        nbformat.v4.new_code_cell(PROBE_CELL),
        nbformat.v4.new_code_cell(LABCORE_CELL),
        nbformat.v4.new_code_cell(SLIDER_CELL),
    ]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


def _run_here(source: str) -> str:
    """Run ``source`` in this CPython process and return what it printed."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(source, "<cell>", "exec"), {})
    return buf.getvalue().strip()


@pytest.fixture(scope="module")
def lite_site(tmp_path_factory) -> Path:
    """Build a stand-alone lite site with the demo notebook; return the folder to serve."""
    why = _tool_missing()
    if why:
        pytest.skip(why)
    import build_lite

    work = tmp_path_factory.mktemp("lite")
    nb = work / "live_check.ipynb"
    _demo_notebook(nb)
    cache = ROOT / "_build" / "lite_cache"  # npm/pip downloads, reused across runs
    started = time.perf_counter()
    chapters = [OFFLINE_CHAPTER] if OFFLINE_CHAPTER.is_file() else []
    build_lite.prepare(work / "lite_src", [nb, *chapters], cache=cache, root=ROOT)
    build_lite.lite_build(work / "lite_src", work / "site" / "lite")
    size = build_lite.prune_and_measure(work / "site" / "lite")
    print(f"\n[lite] site built in {time.perf_counter() - started:.1f} s, {size / 2**20:.1f} MiB")
    return work / "site"


@pytest.fixture(scope="module")
def server(lite_site: Path):
    """Serve the site with ``python -m http.server`` on 127.0.0.1; yield its base URL."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port),
         "--directory", str(lite_site)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            break
        time.sleep(0.1)
    yield base
    proc.terminate()
    proc.wait(10)


def _is_local(url: str) -> bool:
    """Tell whether a request stays on this machine (loopback, data: or blob: URLs)."""
    if url.startswith(("data:", "blob:")):
        return True
    return urllib.parse.urlparse(url).hostname == "127.0.0.1"


def _cell_output(page, index: int):
    """Return the locator of the output area of the ``index``-th code cell."""
    return page.locator(".jp-CodeCell").nth(index).locator(".jp-OutputArea")


@contextlib.contextmanager
def _offline_notebook(server: str, notebook: str, *, height: int):
    """Open ``notebook`` in the live site with every request outside 127.0.0.1 blocked, and press Run All.

    Yields ``(page, requests, blocked, errors)``: the page, every URL requested, the blocked ones and page errors.
    """
    from playwright.sync_api import sync_playwright

    requests: list[str] = []
    blocked: list[str] = []
    errors: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": height})

        def guard(route) -> None:
            if _is_local(route.request.url):
                route.continue_()
            else:
                blocked.append(route.request.url)
                route.abort()

        context.route("**/*", guard)
        context.on("request", lambda req: requests.append(req.url))
        page = context.new_page()
        page.on("pageerror", lambda err: errors.append(str(err)))
        page.goto(f"{server}/lite/notebooks/index.html?path={notebook}")
        page.locator(".jp-CodeCell").first.wait_for(timeout=60_000)
        page.locator(".jp-Notebook").click()
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.locator("li[data-command='runmenu:run-all']").click()
        try:
            yield page, requests, blocked, errors
        finally:
            browser.close()


def test_live_kernel_boots_offline_and_runs_labcore(server: str) -> None:
    """Boot Pyodide, run labcore and move a slider with zero requests outside 127.0.0.1."""
    from playwright.sync_api import expect

    t0 = time.perf_counter()
    with _offline_notebook(server, "live_check.ipynb", height=1000) as (page, requests, blocked, errors):
        t_ui = time.perf_counter() - t0
        expect(_cell_output(page, 1)).to_contain_text("PYODIDE emscripten", timeout=BOOT_TIMEOUT_MS)
        t_boot = time.perf_counter() - t0
        expected = _run_here(LABCORE_CELL)
        expect(_cell_output(page, 2)).to_contain_text(expected, timeout=60_000)
        readout = _cell_output(page, 3).locator(".lc-vram")
        expect(readout).to_have_text("16.00 MiB", timeout=60_000)
        t_run = time.perf_counter() - t0

        handle = _cell_output(page, 3).locator(".widget-slider .noUi-handle")
        handle.focus()
        page.keyboard.press("ArrowRight")
        import labcore

        expect(readout).to_have_text(f"{labcore.adapter_vram_mb(20, 4096, 32, 2):.2f} MiB", timeout=30_000)
        t_slider = time.perf_counter() - t0
        setup_text = _cell_output(page, 0).inner_text()
        (ROOT / "_build").mkdir(exist_ok=True)
        page.screenshot(path=str(ROOT / "_build" / "lite_kernel_test.png"), full_page=True)

    print(f"\n[lite] UI {t_ui:.1f} s, kernel booted + setup cell {t_boot:.1f} s, "
          f"labcore cells {t_run:.1f} s, slider round trip {t_slider:.1f} s; "
          f"{len(requests)} requests, {len(blocked)} blocked")
    assert blocked == [], f"requests outside 127.0.0.1: {blocked}"
    assert all(_is_local(url) for url in requests)
    assert "Traceback" not in setup_text and "Error" not in setup_text, setup_text
    assert errors == [], errors


def test_live_chapter_runs_offline_with_figures_skipped(server: str) -> None:
    """Run chapter 1's live copy top to bottom offline: no traceback, a note per figure, labcore's numbers."""
    if not OFFLINE_CHAPTER.is_file():
        pytest.skip(f"{OFFLINE_CHAPTER.name} is missing")
    from playwright.sync_api import expect

    from labcore import fleet_plan, tenant_adapters

    plan = fleet_plan(tenant_adapters(40, vram_mb=16.0))  # the chapter's plan: 40 tenants, 16 MiB adapters
    t0 = time.perf_counter()
    # tall enough that every cell of the chapter is laid out, so all outputs are in the DOM
    with _offline_notebook(server, OFFLINE_CHAPTER.name, height=12000) as (page, _, blocked, errors):
        last = page.locator(".jp-CodeCell").last.locator(".jp-OutputArea")
        expect(last).to_contain_text(f"the saving is {plan.savings_pct:g}", timeout=BOOT_TIMEOUT_MS)
        t_run = time.perf_counter() - t0
        outputs = page.locator(".jp-OutputArea-output").all_inner_texts()
        stderr = page.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')
        n_stderr = stderr.count()
        unrun = page.locator(".jp-InputPrompt").filter(has_text="[ ]").count()
        page.screenshot(path=str(ROOT / "_build" / "lite_offline_chapter.png"), full_page=True)

    text = "\n".join(outputs)
    print(f"\n[lite] {OFFLINE_CHAPTER.name} ran offline in {t_run:.1f} s: {len(outputs)} outputs, "
          f"{len(blocked)} requests blocked")
    assert n_stderr == 0, text
    assert "Traceback" not in text and "Error" not in text, text
    assert unrun == 0, f"{unrun} code cells did not run"
    assert "(figure skipped: matplotlib is not available here" in text, text
    assert f"{plan.multi_lora_monthly_usd:,.0f}" in text and f"savings_pct={plan.savings_pct}" in text, text
    assert "lc-unavailable" not in text and "could not be loaded in this browser" in text, text
    assert errors == [], errors


def test_every_chapter_has_the_setup_cell() -> None:
    """Check each chapter notebook starts with the live setup cell, hidden in the book."""
    import build_lite

    chapters = sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb"))
    if not chapters:
        pytest.skip("no chapter notebooks yet")
    missing = []
    for path in chapters:
        cells = [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
        first = cells[0] if cells else {"source": "", "metadata": {}}
        source = "".join(first["source"])
        ok = source.startswith(build_lite.SETUP_CELL) and "remove-cell" in first["metadata"].get("tags", [])
        if not ok:
            missing.append(path.name)
    assert missing == [], f"chapters without the tagged setup cell first: {missing}"


def test_built_book_links_every_chapter_live() -> None:
    """Check a built book holds each chapter in its lite site and links to it from the page."""
    html = Path(os.environ.get("BOOK_HTML", ROOT / "_build" / "html"))
    if not (html / "lite" / "jupyter-lite.json").is_file():
        pytest.skip(f"no built book with a lite site at {html}")
    chapters = sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb"))
    problems = []
    for path in chapters:
        if not (html / "lite" / "files" / path.name).is_file():
            problems.append(f"{path.name} not in lite/files")
        page = html / "book" / f"{path.stem}.html"
        if page.is_file() and f"?path={path.name}" not in page.read_text(encoding="utf-8"):
            problems.append(f"{page.name} has no live link")
    config = json.loads((html / "lite" / "jupyter-lite.json").read_text(encoding="utf-8"))
    settings = config["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"]
    assert settings["pyodideUrl"].startswith("./"), settings
    assert settings["disablePyPIFallback"] is True
    assert list((html / "lite" / "pypi").glob("labcore-*.whl"))
    assert problems == []
