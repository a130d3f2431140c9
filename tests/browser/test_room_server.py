"""The room's server (``make serve``, coursebuild/serve.py) with its compression on, in Chromium: a chapter's page and its
Live version work through it, and what compresses reaches the browser gzipped (the WebAssembly runtime included).

The built site (``BOOK_HTML``) is served by the same application ``make serve`` runs, its gzip copies in a temporary
folder, on 127.0.0.1; the server records every response it sends. Nothing outside 127.0.0.1 is reached.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from coursebuild.serve import compress_site, create_server, recording, site_app
from labcore.site import LIVE_DIR
from tests.browser.browser_site import KNOWN_STOCK_ERRORS

pytestmark = pytest.mark.browser

CHAPTER = "01_why_multi_lora"
WASM = f"/{LIVE_DIR}/static/pyodide/pyodide.asm.wasm"
FIRST_OUTPUT = "() => document.querySelectorAll('.jp-CodeCell .jp-OutputArea-output').length > 0"


@pytest.fixture(scope="module")
def room(built_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[tuple]]]:
    """Serve the built site compressed, as ``make serve`` does; yield its base URL and the log of responses."""
    compressed = tmp_path_factory.mktemp("gzip")
    compress_site(built_site, compressed)
    sent: list[tuple] = []
    server = create_server(
        recording(site_app(built_site, compressed=compressed), lambda *entry: sent.append(entry)),
        host="127.0.0.1",
        port=0,
    )
    threading.Thread(target=server.run, daemon=True).start()
    yield f"http://127.0.0.1:{server.effective_port}", sent
    server.close()


def _context(browser):  # noqa: ANN001, ANN202
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    outside: list[str] = []
    context.route(
        lambda url: not url.startswith(("http://127.0.0.1", "data:", "blob:")),
        lambda route: (outside.append(route.request.url), route.abort())[1],
    )
    return context, outside


def test_a_chapter_page_through_the_room_server_arrives_compressed(browser, room) -> None:  # noqa: ANN001
    base, sent = room
    context, outside = _context(browser)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: any(k in str(e) for k in KNOWN_STOCK_ERRORS) or errors.append(str(e)))
    response = page.goto(f"{base}/book/{CHAPTER}.html", wait_until="networkidle")
    assert response is not None and response.ok and response.headers.get("content-encoding") == "gzip"
    assert page.locator("h1").first.inner_text().strip() and page.locator(".lc-panel, .vega-embed").count() > 0
    page_files = [entry for entry in sent if not entry[0].startswith(f"/{LIVE_DIR}/")]
    gzipped = [path for path, status, _, encoding in page_files if encoding == "gzip"]
    assert any(path.endswith(".js") for path in gzipped) and any(path.endswith(".css") for path in gzipped), gzipped
    assert not [e for e in page_files if e[1] >= 400 and e[0] != "/favicon.ico"] and not outside and not errors
    context.close()


def test_the_live_chapter_runs_through_the_room_server_with_its_runtime_gzipped(browser, room, built_site) -> None:  # noqa: ANN001
    if not (built_site / LIVE_DIR / "notebooks" / "index.html").is_file():
        pytest.skip("this build has no live site (COURSE_LITE=0)")
    base, sent = room
    context, outside = _context(browser)
    page = context.new_page()
    page.goto(f"{base}/{LIVE_DIR}/notebooks/index.html?path={CHAPTER}.ipynb")
    page.locator(".jp-CodeCell").first.wait_for(timeout=120_000)
    page.locator(".jp-Notebook").click()
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.locator("li[data-command='runmenu:run-all']").click()
    page.wait_for_function(FIRST_OUTPUT, timeout=300_000, polling=200)
    first = page.locator(".jp-CodeCell .jp-OutputArea-output").first.inner_text()
    assert "Error" not in first and "Traceback" not in first, first
    wasm = [entry for entry in sent if entry[0] == WASM]
    assert wasm and wasm[0][1] == 200 and wasm[0][3] == "gzip", wasm
    assert wasm[0][2] < (built_site / WASM.lstrip("/")).stat().st_size / 2  # the runtime, gzipped: under half
    assert not outside
    context.close()


def test_a_live_chapters_math_renders_with_jupyterlabs_own_mathjax(browser, room, built_site) -> None:  # noqa: ANN001
    """The live site leaves out jupyterlab-mathjax3 (coursebuild.lite.site.LEFT_OUT_EXTENSIONS): chapter 2's formulas
    are typeset all the same, by JupyterLab 4's MathJax, and no file of the left-out extension is asked for."""
    if not (built_site / LIVE_DIR / "notebooks" / "index.html").is_file():
        pytest.skip("this build has no live site (COURSE_LITE=0)")
    base, sent = room
    before = len(sent)
    context, outside = _context(browser)
    page = context.new_page()
    page.goto(f"{base}/{LIVE_DIR}/notebooks/index.html?path=02_adapter_is_a_delta.ipynb")
    page.locator(".jp-CodeCell").first.wait_for(timeout=120_000)
    typeset = 0
    for _ in range(60):  # the notebook renders the cells that scroll into view
        typeset = page.locator(".jp-RenderedMarkdown mjx-container").count()
        if typeset:
            break
        page.mouse.wheel(0, 800)
        page.wait_for_timeout(500)
    assert typeset > 0, "no formula typeset in chapter 2's Live copy"
    asked = [entry[0] for entry in sent[before:]]
    assert not [path for path in asked if "mathjax3-extension" in path] and not outside
    context.close()
