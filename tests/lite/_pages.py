"""Drive notebooks of the live site in Chromium: open offline, Run All, wait, read outputs and panels.

Async Playwright, so several chapters can run at once in one browser (each page has its own
Pyodide kernel in a web worker). The panels draw on a canvas: the page records every string drawn
(``conftest.RECORD_CANVAS_TEXT``), which is how a test reads a panel's readout.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
CHAPTERS = sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb"))
#: the book build's executed notebooks (glue values): beside ``BOOK_HTML`` when that points at another build
EXECUTED = (
    (Path(os.environ["BOOK_HTML"]).parent if os.environ.get("BOOK_HTML") else ROOT / "_build")
    / "jupyter_execute"
    / "book"
)


def serve(folder: Path, timeout_s: float = 20) -> tuple[subprocess.Popen, str]:
    """Serve ``folder`` with ``python -m http.server`` on a free 127.0.0.1 port; return the server and its base URL
    once the port accepts connections (the Live tests' fixture and the Live benchmarks)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port), "--directory", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            break
        time.sleep(0.1)
    return server, f"http://127.0.0.1:{port}"


#: recorded on every canvas: the strings Vega draws (readouts, titles, axis labels), so a test can
#: read what a canvas-rendered panel shows; ``__texts`` is cleared by the test before a change
RECORD_CANVAS_TEXT = """
(() => {
  const fill = CanvasRenderingContext2D.prototype.fillText;
  CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
    const canvas = this.canvas;
    (canvas.__texts = canvas.__texts || []).push(String(text));
    return fill.call(this, text, ...rest);
  };
})();
"""

#: every string a live panel (``labcore.panels.live_panel``, inside its widget) draws, on canvas or as SVG text
LIVE_PANEL_TEXTS = (
    "() => [...document.querySelectorAll('.jupyter-widgets .jp-RenderedVegaLite')].flatMap("
    "el => [...[...el.querySelectorAll('canvas')].flatMap(c => c.__texts || []),"
    " ...[...el.querySelectorAll('svg text')].flatMap(t => t.querySelector('tspan') ?"
    " [...t.querySelectorAll('tspan')].map(s => s.textContent) : [t.textContent])])"
)


def tool_missing() -> str | None:
    """Return why the browser tests cannot run here, or None."""
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


def is_local(url: str) -> bool:
    """Tell whether a request stays on this machine (loopback, data: or blob: URLs)."""
    if url.startswith(("data:", "blob:")):
        return True
    return urllib.parse.urlparse(url).hostname == "127.0.0.1"


RUN_TIMEOUT_MS = 420_000
#: a laptop's window: the site lays out every cell whatever the window (``windowingMode: defer``), and a
#: window 24,000 px tall cost the compositor about 5 CPU-s more per chapter (4 chapters: 233 vs 211 CPU-s)
VIEWPORT = {"width": 1280, "height": 900}
STDERR = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'

#: true once no visible code cell waits to run ("[*]") and the kernel has stayed idle for 1.5 s (the app's
#: favicon shows a busy kernel): Run All has finished, or stopped at an error
SETTLED = """() => {
  const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')].map(p => p.textContent.trim());
  const icon = document.querySelector('link[rel="icon"]');
  const settled = !prompts.includes('[*]:') && !(icon && icon.href.includes('busy'));
  if (!settled) { window.__settledSince = undefined; return false; }
  window.__settledSince = window.__settledSince || Date.now();
  return Date.now() - window.__settledSince > 1500;
}"""
#: true once Run All has queued or run a cell
STARTED = """() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
  .some(p => /^\\[(\\*|\\d+)\\]:$/.test(p.textContent.trim()))"""
#: the execution prompts of the code cells that show their input ("[3]:" once run)
PROMPTS = """() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
  .map(p => p.textContent.trim()).filter(t => t !== '')"""

#: true once every Vega panel on the page has drawn text on its canvas (its title and readout)
PANELS_DRAWN = """() => [...document.querySelectorAll('.jp-RenderedVegaLite')]
  .every(el => [...el.querySelectorAll('canvas')].some(c => (c.__texts || []).length > 0))"""

#: every image output on the page holds its loaded image (JupyterLab adds an output's widget at once and its
#: image when the renderer is done: a fast kernel finishes Run All before the last figures' images are in)
IMAGES_DRAWN = """() => [...document.querySelectorAll('.jp-RenderedSVG, .jp-RenderedImage')]
  .every(el => [...el.querySelectorAll('img')].some(i => i.complete && i.naturalWidth > 0))"""

#: every image output on the page (an SVG or PNG figure): whether it loaded, and its drawn width
IMAGES = """() => [...document.querySelectorAll('.jp-RenderedSVG img, .jp-RenderedImage img')].map(i => ({
  loaded: i.complete && i.naturalWidth > 0, width: Math.round(i.getBoundingClientRect().width)}))"""

#: the state of every Vega panel on the page: its controls and the strings on its canvas
PANELS = """() => [...document.querySelectorAll('.jp-RenderedVegaLite')].map(el => ({
  controls: [...el.querySelectorAll('.vega-bindings input[type=range], .vega-bindings select')].map(c => ({
    tag: c.tagName.toLowerCase(), value: c.value, options: c.tagName === 'SELECT' ? c.options.length : 0})),
  texts: [...el.querySelectorAll('canvas')].flatMap(c => c.__texts || []),
}))"""


@dataclass
class Run:
    """What one notebook's Run All left on the page."""

    name: str
    seconds: float = 0.0
    outputs: list[str] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)
    panels: list[dict[str, Any]] = field(default_factory=list)
    images: list[dict[str, Any]] = field(default_factory=list)
    #: the text of every dialog JupyterLab opened (none should: the site starts its one kernel by itself)
    dialogs: list[str] = field(default_factory=list)
    #: seconds from opening the page to: the first cell shown, Run All started, every cell run, controls moved
    phases: dict[str, float] = field(default_factory=dict)
    moves: list[dict[str, Any]] = field(default_factory=list)
    #: a live panel added to the page (``CHAPTER_LIVE``): the strings it drew, seconds to the redraw, any problem
    live: dict[str, Any] = field(default_factory=dict)
    collapsed: dict[str, int] = field(default_factory=dict)
    collapsed_at_open: dict[str, int] = field(default_factory=dict)
    markdown: str = ""
    #: the notebook toolbar's items (``data-jp-item-name``), read once the notebook opened
    toolbar: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    #: what the page wrote to the console (JupyterLite's service-worker lines among it)
    console: list[str] = field(default_factory=list)
    #: what the page's web workers (the kernel's among them) wrote to the console
    worker_console: list[str] = field(default_factory=list)
    failure: str | None = None
    unrun: int = 0


def code_cells(notebook: Path) -> int:
    """Return how many code cells a notebook file holds."""
    return sum(c["cell_type"] == "code" for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"])


def visible_code_cells(notebook: Path) -> int:
    """Return how many code cells of a notebook file show their input (not ``jupyter.source_hidden``)."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return sum(c["cell_type"] == "code" and not c["metadata"].get("jupyter", {}).get("source_hidden") for c in cells)


async def _collapsed(page) -> dict[str, int]:
    return {
        "inputs": await page.locator(".jp-InputPlaceholder").count(),
        "outputs": await page.locator(".jp-OutputPlaceholder").count(),
    }


async def answer_kernel_dialog(dialog) -> None:
    """Pick the Pyodide kernel in JupyterLab's "Select Kernel" dialog and accept it.

    The site sets ``autoStartDefaultKernel``, so no notebook should ask; the tests fail on any dialog
    (:attr:`Run.dialogs`). This answers one anyway, so the run goes on and its other checks still report.
    Registered with ``page.add_locator_handler``: Playwright answers the dialog whenever it appears in
    front of an action.
    """
    select = dialog.locator("select")
    if await select.count():
        options = await select.first.locator("option").evaluate_all("els => els.map(e => [e.value, e.textContent])")
        pyodide = [value for value, text in options if "Pyodide" in text or "Python" in text]
        if pyodide:
            await select.first.select_option(pyodide[0])
    await dialog.locator(".jp-Dialog-button.jp-mod-accept").first.click()


async def _wait_settled(page, dialog, answer) -> None:
    """Wait until Run All has finished (:data:`SETTLED`), answering a kernel dialog that opens meanwhile.

    The locator handler only runs before an action; while this waits, nothing acts, so a dialog that
    opens after Run All was pressed is answered here.
    """
    deadline = time.monotonic() + RUN_TIMEOUT_MS / 1000
    while True:
        try:
            await page.wait_for_function(SETTLED, timeout=10_000, polling=500)
            return
        except Exception:  # noqa: BLE001 - a timeout of this slice: answer a dialog, or give up at the deadline
            if time.monotonic() > deadline:
                raise
            if await dialog.count() and await dialog.first.is_visible():
                await answer(dialog)


async def run_all(page, notebook: str = ".jp-Notebook") -> None:
    """Press Run > Run All Cells and wait until a cell has started (its prompt shows ``[*]`` or a number).

    The menu can miss a click while the page is still busy (a kernel starting, a layout after a resize): each
    attempt that starts nothing within 20 s closes the menu and presses again, three times at the most.
    """
    for attempt in range(3):
        try:
            await page.locator(notebook).click(timeout=20_000)
            await page.get_by_role("menuitem", name="Run", exact=True).click(timeout=20_000)
            await page.locator("li[data-command='runmenu:run-all']").click(timeout=20_000)
            await page.wait_for_function(STARTED, timeout=20_000)
            return
        except Exception:  # noqa: BLE001 - retried; the last attempt's error is the caller's failure
            if attempt == 2:
                raise
            await page.keyboard.press("Escape")  # close a half-open menu before trying again


async def run_notebook(
    browser,
    base: str,
    name: str,
    n_code: int,
    *,
    n_total: int | None = None,
    move=None,
    ready: asyncio.Event | None = None,
) -> Run:
    """Open ``name`` offline in a new tab of ``browser`` (:func:`launch`), Run All, wait until its ``n_code``
    visible code cells ran and the kernel is idle, and collect a :class:`Run`.

    ``move(page, run)`` (async), when given, is called after the run to move panel controls. ``ready``,
    when given, is set once the kernel runs the first cell (or the run failed before): by then this tab's
    JupyterLab has created every IndexedDB store of the site (see :func:`launch`). The tab's
    requests include those of its kernel's web worker; any that would leave 127.0.0.1 was aborted by
    :func:`launch`'s guard and is the run's ``blocked``.
    """
    run = Run(name)
    page = await browser.new_page()
    page.on("request", lambda req: run.requests.append(req.url))
    page.on("pageerror", lambda err: run.page_errors.append(str(err)))
    page.on("console", lambda msg: run.console.append(msg.text))
    page.on("worker", lambda worker: worker.on("console", lambda msg: run.worker_console.append(msg.text)))
    started = time.perf_counter()
    try:
        await page.goto(f"{base}/lite/notebooks/index.html?path={name}")
        await page.locator(".jp-CodeCell").first.wait_for(timeout=90_000)
        run.phases["opened"] = time.perf_counter() - started
        if n_total is not None:  # every cell laid out: count the collapsed ones as the reader meets them
            await page.wait_for_function(
                "n => document.querySelectorAll('.jp-CodeCell').length === n", arg=n_total, timeout=60_000
            )
        run.collapsed_at_open = await _collapsed(page)
        run.toolbar = await page.locator(".jp-NotebookPanel-toolbar .jp-Toolbar-item").evaluate_all(
            "els => els.map(e => e.getAttribute('data-jp-item-name') || '')"
        )
        dialog = page.locator(".jp-Dialog")

        async def answer(found) -> None:
            run.dialogs.append(" ".join((await found.first.inner_text()).split())[:200])
            await answer_kernel_dialog(found)

        await page.add_locator_handler(dialog, answer)
        await run_all(page)
        run.phases["started"] = time.perf_counter() - started
        if ready is not None:
            ready.set()
        await _wait_settled(page, dialog, answer)
        run.seconds = run.phases["ran"] = time.perf_counter() - started
        prompts = await page.evaluate(PROMPTS)
        run.unrun = len(prompts) - sum(bool(re.fullmatch(r"\[\d+\]:", p)) for p in prompts)
        run.unrun += max(0, n_code - len(prompts))
        run.outputs = await page.locator(".jp-OutputArea-output").evaluate_all("els => els.map(e => e.textContent)")
        run.stderr = await page.locator(STDERR).evaluate_all("els => els.map(e => e.textContent)")
        run.markdown = "\n".join(
            await page.locator(".jp-MarkdownOutput").evaluate_all("els => els.map(e => e.textContent)")
        )
        run.collapsed = await _collapsed(page)
        await page.wait_for_function(PANELS_DRAWN, timeout=60_000, polling=200)  # a big grid may still be drawing
        run.panels = await page.evaluate(PANELS)
        await page.wait_for_function(IMAGES_DRAWN, timeout=60_000, polling=200)
        run.images = await page.evaluate(IMAGES)
        if move is not None:
            await move(page, run)
            run.phases["moved"] = time.perf_counter() - started
    except Exception as error:  # noqa: BLE001 - reported per notebook by the test
        run.failure = f"{type(error).__name__}: {error}"
        run.outputs = run.outputs or await page.locator(".jp-OutputArea-output").evaluate_all(
            "els => els.map(e => e.textContent)"
        )
    finally:
        if ready is not None:
            ready.set()
        run.blocked = [url for url in run.requests if not is_local(url)]
        await page.close()
    return run


async def launch(playwright, profile: Path):
    """Launch Debian's Chromium headless with one profile on disk (``profile``) for every notebook a test opens.

    A reader's browser keeps its HTTP cache and the code V8 compiled from JupyterLab's scripts and
    Pyodide's WebAssembly between the chapters they open; so does this profile (measured on chapter 4
    opened three times in one profile: 37.8, then 30.1 and 29.8 CPU-s). Every request that would leave
    127.0.0.1 is aborted; each tab records its own (:func:`run_notebook`).

    The tabs also share the site's IndexedDB database, whose stores (settings, statedb, files,
    checkpoints) the first JupyterLab to load creates, one version upgrade each, in its first seconds.
    A second tab opening meanwhile can lose its connection to the upgrade and break (CI met "Cannot set
    properties of null (setting 'db')", the TypeError of localForage's issue 997): open one tab first,
    the others once its kernel runs (``run_notebook(..., ready=)``).
    """
    context = await playwright.chromium.launch_persistent_context(
        str(profile), executable_path=CHROMIUM, args=CHROMIUM_ARGS, viewport=VIEWPORT
    )

    async def guard(route) -> None:
        if is_local(route.request.url):
            await route.continue_()
        else:
            await route.abort()

    await context.route("**/*", guard)
    await context.add_init_script(RECORD_CANVAS_TEXT)
    return context


#: a registry/cache/router walk-through; its printed line must be identical in Pyodide and in CPython
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

#: the platform, and where the kernel runs: ``/drive`` (the site's files) when the page's service worker was
#: registered before the kernel was created (``coursebuild.lite.service_worker``)
PROBE_CELL = """\
import os, sys
print("PYODIDE", sys.platform, sys.version.split()[0])
print("CWD", os.getcwd())"""

#: whether the kernel imported IPython (sourceless) and labcore (source beside it) from the bytecode the site serves,
#: written by Pyodide's own Python (``coursebuild.lite.bytecode``): same magic number as this interpreter's
BYTECODE_CELL = """\
import importlib.util, IPython, labcore
def served_bytecode(module):
    path = module.__file__ if module.__file__.endswith(".pyc") else importlib.util.cache_from_source(module.__file__)
    with open(path, "rb") as f:
        return f.read(4) == importlib.util.MAGIC_NUMBER
print("BYTECODE", IPython.__file__.endswith(".pyc"), served_bytecode(IPython), served_bytecode(labcore))"""

#: one panel shown from a blank notebook in one call, as an instructor would
PANEL_CELL = """\
import labcore.panels
labcore.panels.show("adapter_vram_panel")"""
#: a state off the panel's grid, computed in the kernel (the page can only select grid states), and whether the
#: panel takes the grid the book build computed (the site's ``book_build/panels``)
ROW_CELL = """\
print("ROW", labcore.panels.show("adapter_vram_panel").row(rank=12, budget_gib=3.0)["readout"].replace("\\n", " | "))
print("GRID FROM THE BOOK BUILD", labcore.panels.show("adapter_vram_panel").stored_rows() is not None)"""
#: a value the room proposes, off the panel's grid, shown on the panel itself (the instructors' page's route)
ROOM_CELL = """\
labcore.panels.show("fleet_savings_panel").including(tenants=41, tenant_qps=1.2)"""
#: a panel under live controls (ipywidgets, served by the site): the test types a value off the grid into one
WIDGET_CELL = """\
view = labcore.panels.live_panel(labcore.panels.show("fleet_savings_panel"))
view.widget"""


#: a notebook with no setup cell (as File > New > Notebook makes): live controls must work with no install step
BLANK_NOTEBOOK = "live_blank.ipynb"
#: the live panel the blank notebook shows, the control the test types into and a value off its grid
BLANK_LIVE = ("fleet_calculator_panel", "tenant_qps", 0.45)
#: chapters whose live copy the chapters test extends with a live panel, as an instructor would add a cell:
#: the panel, the control typed into and a value off its grid (chapter 4's 41 tenants, 16's 0.45 requests/s)
CHAPTER_LIVE = {
    "04_the_cache.ipynb": ("lru_thrash_panel", "tenants", 41),
    "06_fleet_plan.ipynb": ("fleet_load_panel", "tenant_qps", 1.1),
    "16_putting_it_together.ipynb": ("fleet_calculator_panel", "tenant_qps", 0.45),
}


def live_panel_cell(name: str) -> str:
    """Return the cell an instructor adds to show panel ``name`` under live controls."""
    return f"import labcore.panels as p\nview = p.live_panel(p.show({name!r}))\nview.widget"


def blank_notebook(path: Path, cells: list[str]) -> None:
    """Write a notebook of code ``cells`` with no setup cell, for the site's Pyodide kernel."""
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    nb.metadata["kernelspec"] = {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}
    nbformat.write(nb, path)


async def add_cell_and_run(page, source: str):
    """Add a code cell below the notebook's last cell, as a reader would (select it, ``b``), type ``source``, run it
    (Shift+Enter, which also adds an empty cell below); return the added cell's locator."""
    await page.locator(".jp-Notebook .jp-Cell").last.click()
    await page.keyboard.press("Escape")
    before = await page.locator(".jp-Notebook .jp-Cell").count()
    await page.keyboard.press("b")
    await page.wait_for_function("n => document.querySelectorAll('.jp-Notebook .jp-Cell').length > n", arg=before)
    await page.keyboard.press("Enter")
    await page.keyboard.insert_text(source)  # as pasted: no auto-closed brackets
    await page.keyboard.press("Shift+Enter")
    return page.locator(".jp-Notebook .jp-Cell").nth(before)


async def type_into_live_panel(page, cell, label: str, value, expected: list[str], timeout_ms: int = 120_000) -> float:
    """Type ``value`` into the number box labelled ``label`` of the live panel in ``cell`` (a locator), press Enter,
    and wait until its redrawn chart shows every line of ``expected`` and check the box still shows ``value``;
    return the seconds from Enter to drawn."""
    box = cell.locator(f".widget-text:has(label:text-is({json.dumps(label)})) input").first
    await box.wait_for(timeout=timeout_ms)
    await cell.evaluate("el => el.querySelectorAll('canvas').forEach(c => { c.__texts = []; })")
    await box.fill(str(value))
    started = time.perf_counter()
    await box.press("Enter")
    await cell.evaluate(
        """(el, [lines, timeout]) => new Promise((resolve, reject) => {
             const t0 = Date.now();
             const poll = () => {
               const texts = [...el.querySelectorAll('.jp-RenderedVegaLite canvas')].flatMap(c => c.__texts || []);
               if (lines.every(l => texts.includes(l))) return resolve(true);
               if (Date.now() - t0 > timeout) return reject(new Error('drawn: ' + texts.slice(-8).join(' | ')));
               setTimeout(poll, 20);
             };
             poll();
           })""",
        [expected, timeout_ms],
    )
    seconds = time.perf_counter() - started
    if await box.input_value() != str(value):  # the box keeps what was typed: no slider wrote a snapped value back
        raise AssertionError(f"the box shows {await box.input_value()} after {value} was typed")
    return seconds


def demo_notebook(path: Path) -> None:
    """Write the kernel check notebook: a setup cell (replaced by the live one), then the probe, labcore,
    bytecode, panel and row cells."""
    import nbformat

    from coursebuild.lite.notebooks import LIVE_MARKER

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Live kernel check"),
        nbformat.v4.new_code_cell(f"{LIVE_MARKER}: replaced in the live copy", metadata={"tags": ["remove-cell"]}),
        nbformat.v4.new_code_cell(PROBE_CELL),
        nbformat.v4.new_code_cell(LABCORE_CELL),
        nbformat.v4.new_code_cell(BYTECODE_CELL),
        nbformat.v4.new_code_cell(PANEL_CELL),
        nbformat.v4.new_code_cell(ROW_CELL),
        nbformat.v4.new_code_cell(ROOM_CELL),
        nbformat.v4.new_code_cell(WIDGET_CELL),
    ]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


#: the kernelspec the site serves the check notebook with: no kernel of the site has this name or language, so
#: without ``autoStartDefaultKernel`` JupyterLab would always ask which kernel to start (the "Select Kernel"
#: dialog CI met by a race, made certain); with it, the notebook must start the site's kernel by itself
UNMATCHED_KERNELSPEC = {"name": "no-such-kernel", "display_name": "No such kernel", "language": "no-such-language"}


def served_demo_notebook(path: Path) -> None:
    """Write the check notebook as the site serves it: its live copy, with a kernelspec no kernel matches."""
    import tempfile

    from coursebuild.lite.notebooks import live_copy

    with tempfile.TemporaryDirectory() as tmp:
        book = Path(tmp) / path.name
        demo_notebook(book)
        live = live_copy(json.loads(book.read_text(encoding="utf-8")), {}, path.name, needs=("panels",))
    live["metadata"]["kernelspec"] = dict(UNMATCHED_KERNELSPEC)
    path.write_text(json.dumps(live, indent=1), encoding="utf-8")


def build_test_site(work: Path) -> Path:
    """Build the live site the tests serve into ``work`` (every chapter, the check notebook, the blank notebook);
    return the folder to serve. The glued numbers come from the book build when it left every chapter's."""
    from coursebuild.lite.site import build_site

    demo = work / "live_check.ipynb"  # its live copy, with a kernelspec JupyterLab cannot match
    served_demo_notebook(demo)
    blank = work / BLANK_NOTEBOOK
    blank_notebook(blank, [PROBE_CELL, live_panel_cell(BLANK_LIVE[0])])
    glue = "build" if all((EXECUTED / p.name).is_file() for p in CHAPTERS) else "note"
    started = time.perf_counter()
    site = build_site(work / "out", CHAPTERS, root=ROOT, glue=glue, executed_dir=EXECUTED, verbatim=[demo, blank])
    print(f"\n[lite] site built in {time.perf_counter() - started:.1f} s (glue: {glue})")
    return site
