"""Present a chapter live with RISE, and a panel's live controls, in JupyterLab (requirements.txt) on 127.0.0.1, offline.

The test starts ``jupyter lab`` itself (token off, a free port, this repository as its root, its own
config and runtime folders, no news or update checks), opens ``/rise/book/<chapter>.ipynb`` in Chromium with
every request outside 127.0.0.1 blocked, and checks that RISE presents the chapter: reveal.js ready, as many
slides as the notebook's slide metadata asks for, the speaker-notes cells as reveal notes, and the chapter's
panel drawn by JupyterLab's own Vega-Lite renderer. One chapter keeps it fast. In the same JupyterLab, a panel
under live controls (``labcore.panels.live_panel``, ipywidgets) takes a number typed off its grid and draws
labcore's readout for it.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

from labcore.panels import show
from tests.browser import browser_site as site
from tests.browser.test_decks import expected_slides
from tests.lite._pages import LIVE_PANEL_TEXTS, RECORD_CANVAS_TEXT

pytestmark = pytest.mark.browser

CHAPTER = "04_the_cache.ipynb"
START_TIMEOUT_S = 120
#: console errors JupyterLab's RISE app logs on its own, with any notebook (a two-cell one included): other
#: extensions of this environment that RISE's app does not host (the JupyterLite kernel's, the widget
#: manager's) fail to load there, and RISE's toolkit overflows its stack. None of them comes from the chapter.
KNOWN_RISE_ERRORS = (
    "reading 'LicensesClient'",
    "doesn't exist in shared scope",
    "Maximum call stack size exceeded",
    # RISE looks for optional custom stylesheets beside the notebook (rise.css, <notebook>.css)
    "rise.css' because its MIME type",
    f"{Path(CHAPTER).stem}.css' because its MIME type",
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start JupyterLab on 127.0.0.1 with RISE; yield its base URL; stop it."""
    jupyter = Path(sys.executable).with_name("jupyter")
    home = tmp_path_factory.mktemp("jupyter")
    port = _free_port()
    env = os.environ | {
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "ws"),
    }
    cmd = [
        str(jupyter),
        "lab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--port-retries=0",
        f"--ServerApp.root_dir={site.ROOT}",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
    ]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    log = (home / "lab.log").open("w")
    server = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if server.poll() is not None:
                pytest.fail(f"jupyter lab exited with {server.returncode}: {(home / 'lab.log').read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(base + "api/status", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(
                    f"jupyter lab did not answer in {START_TIMEOUT_S} s: {(home / 'lab.log').read_text()[-2000:]}"
                )
            time.sleep(0.5)
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def test_rise_presents_a_chapter_offline(lab: str, browser) -> None:  # noqa: ANN001
    """``/rise/book/<chapter>.ipynb`` shows the chapter as slides with its notes and its panel, offline."""
    nb = json.loads((site.BOOK / CHAPTER).read_text(encoding="utf-8"))
    context = browser.new_context(viewport={"width": 1280, "height": 800}, service_workers="block")
    blocked: list[str] = []
    errors: list[str] = []

    def route(r) -> None:  # noqa: ANN001
        url = r.request.url
        if url.startswith(lab) or url.startswith(("data:", "blob:", "ws://127.0.0.1", "about:")):
            r.continue_()
        else:
            blocked.append(url)
            r.abort("blockedbyclient")

    context.route("**/*", route)
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(lab + f"rise/book/{CHAPTER}", wait_until="load", timeout=90_000)
        page.wait_for_selector(".reveal.ready", state="attached", timeout=90_000)
        slides = page.locator(".reveal .slides > section > section, .reveal .slides > section:not(.stack)").count()
        assert slides == expected_slides(nb), f"RISE shows {slides} slides, the metadata makes {expected_slides(nb)}"
        notes = sum((c["metadata"].get("slideshow") or {}).get("slide_type") == "notes" for c in nb["cells"])
        assert page.locator("aside.notes").count() == notes > 0, "speaker notes missing in RISE"
        page.wait_for_selector(".reveal .vega-embed svg", state="attached", timeout=60_000)
        assert not blocked, f"RISE reached outside 127.0.0.1: {blocked}"
        ours = [e for e in errors if not any(k in e for k in KNOWN_RISE_ERRORS)]
        assert not ours, f"console errors while presenting: {ours}"
    finally:
        context.close()


#: the notebook the live-controls test opens in JupyterLab: a panel under ipywidgets controls
LIVE_CONTROLS = (
    "from labcore.panels import live_panel, show\nview = live_panel(show('fleet_savings_panel'))\nview.widget"
)
#: every string the panels' canvases drew, inside the widget's output area


def test_live_controls_redraw_in_jupyterlab(lab: str, browser) -> None:  # noqa: ANN001
    """In JupyterLab, a panel under live controls takes a value off its grid (41 tenants typed into its box) and
    draws labcore's readout for it in the same chart, computed in the kernel."""

    path = site.ROOT / "_build" / "live_controls_check.ipynb"
    path.parent.mkdir(exist_ok=True)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(LIVE_CONTROLS)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)
    expected = show("fleet_savings_panel").row(tenants=41)["readout"].split("\n")
    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    context.route(
        "**/*",
        lambda r: (
            r.continue_()
            if r.request.url.startswith((lab, "data:", "blob:", "ws://127.0.0.1"))
            else r.abort("blockedbyclient")
        ),
    )
    context.add_init_script(RECORD_CANVAS_TEXT)
    page = context.new_page()
    try:
        page.goto(lab + "lab/tree/_build/live_controls_check.ipynb", wait_until="load", timeout=90_000)
        page.locator(".jp-CodeCell").first.wait_for(timeout=90_000)
        box = page.locator(".widget-text:has(label:text-is('tenants')) input").first
        for _attempt in range(3):  # the kernel may still be connecting when the notebook first reads idle
            page.wait_for_function(
                "() => /\\| Idle/.test(document.querySelector('.jp-StatusBar-Widget, #jp-main-statusbar').innerText)",
                timeout=90_000,
            )
            page.locator(".jp-CodeCell .jp-InputArea-editor").first.click()
            page.keyboard.press("Shift+Enter")
            try:
                box.wait_for(timeout=30_000)
                break
            except Exception:  # noqa: BLE001 - run the cell again once the kernel is up
                continue
        box.wait_for(timeout=30_000)
        default = show("fleet_savings_panel").defaults()["tenants"]
        assert box.input_value() == str(default), f"the live view opened at {box.input_value()} tenants, not {default}"
        box.fill("41")
        box.press("Enter")
        page.wait_for_function(
            "([js, line]) => eval(js)().includes(line)", arg=[LIVE_PANEL_TEXTS, expected[0]], timeout=60_000
        )
        drawn = page.evaluate(LIVE_PANEL_TEXTS)
        assert all(line in drawn for line in expected), (expected, drawn)
        assert box.input_value() == "41", f"the box shows {box.input_value()} after 41 was typed"  # not snapped
        # the widgets are its only controls: the chart they draw has no inputs of its own (no dead one-value lists)
        chart_inputs = page.locator(
            ".jp-OutputArea .vega-embed .vega-bindings input, .jp-OutputArea .vega-embed .vega-bindings select"
        ).count()
        assert chart_inputs == 0, f"{chart_inputs} Vega inputs under the live controls' chart"
        width = page.evaluate(
            "() => Math.max(...[...document.querySelectorAll('.jp-OutputArea .vega-embed canvas, "
            ".jp-OutputArea .vega-embed svg')].map(c => c.getBoundingClientRect().width))"
        )
        assert width >= 400, f"the live chart is drawn {width:.0f} px wide"
        page.screenshot(path=str(site.ROOT / "_build" / "live_controls_test.png"))
    finally:
        context.close()
        path.unlink(missing_ok=True)
