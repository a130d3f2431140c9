"""Prove the live (JupyterLite) site boots a Pyodide kernel where labcore runs, with no network.

The site (built once by ``conftest.lite_site``) holds a small check notebook (``_pages.demo_notebook``)
beside the chapters: its cells print the platform and the kernel's folder (``/drive``, the site's files, on a
first and on a second visit: ``coursebuild.lite.service_worker``), run a registry/cache/router walk-through whose
line must equal the same code run here in CPython, check that IPython and labcore were imported from
the bytecode the site serves (``coursebuild.lite.bytecode``), show a panel from a blank notebook in one
call, compute a panel state off its grid (equal to CPython's), and draw a panel at a value off its grid
(``Panel.including``, the instructors' route for a value the room proposes), and type a value off the grid into
a panel under live controls. The second visit opens a notebook with no setup cell (``_pages.BLANK_NOTEBOOK``), as
File > New makes: its live panel works with nothing installed (ipywidgets comes with the kernel) and draws
CPython's readout for a typed value. The check notebook is served with a kernelspec
that matches no kernel, so it also checks that the site starts its one kernel by itself, with no
"Select Kernel" dialog (``autoStartDefaultKernel``), even for a notebook it cannot match.
Every request is recorded; any outside 127.0.0.1 is aborted and fails this test.

Run alone with ``pytest -m lite tests/lite -s`` (prints times). Needs ``requirements-lite.txt``,
``npm`` and ``/usr/bin/chromium``; skips when one is missing. A screenshot goes to
``_build/lite_kernel_test.png``.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
from pathlib import Path

import pytest

from coursebuild.lite.fast_start.snapshot import BOOT_MODULE
from coursebuild.lite.site import LEFT_OUT_EXTENSIONS
from labcore.chapters import CHAPTERS as LAB_CHAPTERS
from labcore.panels import show

from ._pages import (
    BLANK_LIVE,
    BLANK_NOTEBOOK,
    CHAPTERS,
    LABCORE_CELL,
    LIVE_PANEL_TEXTS,
    ROOT,
    ROW_CELL,
    UNMATCHED_KERNELSPEC,
    is_local,
    launch,
    run_notebook,
    type_into_live_panel,
)

pytestmark = [pytest.mark.lite, pytest.mark.browser]

#: what the live controls must draw once the test types 41 tenants (labcore in CPython, at the other defaults)
WIDGET_41 = __import__("labcore.panels", fromlist=["show"]).show("fleet_savings_panel").row(tenants=41)["readout"]


def _run_here(source: str) -> str:
    """Run ``source`` in this CPython process and return what it printed."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(source, "<cell>", "exec"), {})
    return buf.getvalue().strip()


def test_live_kernel_boots_offline_and_runs_labcore(server: str, lite_site: Path, tmp_path: Path) -> None:
    """Start Pyodide with no dialog, run labcore, draw a panel, with zero requests outside 127.0.0.1.

    The notebook's kernelspec matches no kernel of the site: JupyterLab would ask "Select Kernel" (the race
    CI met, made certain), but the site's ``autoStartDefaultKernel`` starts the Pyodide kernel instead.
    """
    from playwright.async_api import async_playwright

    served = json.loads((lite_site / "lite" / "files" / "live_check.ipynb").read_text(encoding="utf-8"))
    assert served["metadata"]["kernelspec"] == UNMATCHED_KERNELSPEC

    async def shot(page, run) -> None:
        # the live controls: type a tenant count off the grid into the panel's number box, as a reader would
        box = page.locator(".widget-text:has(label:text-is('tenants')) input").first
        await box.fill("41")
        await box.press("Enter")
        first_line = WIDGET_41.split("\n")[0]
        texts = LIVE_PANEL_TEXTS
        await page.wait_for_function(f"line => ({texts})().includes(line)", arg=first_line, timeout=60_000)
        run.moves.append({"widget": await page.evaluate(texts)})
        await page.screenshot(path=str(ROOT / "_build" / "lite_kernel_test.png"))

    name, control, value = BLANK_LIVE
    blank_expected = show(name).row(**{control: value})["readout"].split("\n")
    label = next(c.label for c in show(name).controls if c.name == control)

    async def blank_panel(page, run) -> None:
        cell = page.locator(".jp-CodeCell").nth(1)
        run.moves.append(
            {
                "seconds": await type_into_live_panel(page, cell, label, value, blank_expected),
                "widget": await page.evaluate(LIVE_PANEL_TEXTS),
            }
        )

    async def main():
        async with async_playwright() as pw:
            browser = await launch(pw, tmp_path / "profile")
            run = await run_notebook(browser, server, "live_check.ipynb", 8, move=shot)
            # a second visit in the same profile: the page finds the first one's service worker in control; it opens
            # a notebook with no setup cell, whose live panel must work with nothing installed (ipywidgets preloaded)
            again = await run_notebook(browser, server, BLANK_NOTEBOOK, 2, move=blank_panel)
            await browser.close()
            return run, again

    (ROOT / "_build").mkdir(exist_ok=True)
    run, again = asyncio.run(main())
    text = "\n".join(run.outputs)
    print(
        f"\n[lite] check notebook ran in {run.seconds:.1f} s; {len(run.requests)} requests, {len(run.blocked)} blocked"
    )
    assert run.dialogs == [], f"JupyterLab asked instead of starting the site's kernel: {run.dialogs}"
    # the notebook's own toolbar, and no button of an extension the live site leaves out (RISE needs a server)
    assert "run" in run.toolbar and not any("RISE" in item for item in run.toolbar), run.toolbar
    assert run.failure is None and run.unrun == 0, f"{run.failure}, {run.unrun} cells not run\n{text}"
    assert "PYODIDE emscripten" in text, text
    # both visits' kernels see the site's files: the second page kept the first one's service worker registered
    # (coursebuild.lite.service_worker) instead of re-registering it after its kernel was created
    assert "CWD /drive" in text, text
    assert again.failure is None and "CWD /drive" in "\n".join(again.outputs), (again.failure, again.outputs)
    # the blank notebook: no cell installed anything, and its live panel drew CPython's readout at a value off the grid
    assert again.stderr == [] and again.moves, (again.stderr, again.failure)
    assert all(line in again.moves[0]["widget"] for line in blank_expected), (blank_expected, again.moves)
    print(f"[lite] blank notebook: {control}={value} typed, drawn {again.moves[0]['seconds']:.2f} s after Enter")
    # the cause of the race, which the timing above may hide: without the recorded version the second page
    # unregisters every worker ("New version, ...") and registers one again while its kernel is being created
    workers = [line for line in again.console if "ServiceWorker" in line or "service workers" in line]
    assert workers == ["JupyterLite ServiceWorker was already registered"], workers
    assert _run_here(LABCORE_CELL) in text, text
    assert "BYTECODE True True True" in text, text  # IPython and labcore imported from the site's Pyodide bytecode
    here = _run_here("import labcore.panels\n" + ROW_CELL).splitlines()
    assert here[0] in text, text  # a state off the grid, computed live as here
    assert "GRID FROM THE BOOK BUILD True" in text, text  # the live kernel read the staged grid and accepted it
    assert run.blocked == [] and all(is_local(url) for url in run.requests), run.blocked
    assert run.stderr == [] and run.page_errors == [], (run.stderr, run.page_errors)
    restored = [line for line in run.worker_console if line.startswith("kernel: restored from the snapshot")]
    if (lite_site / "lite" / "static" / "pyodide" / BOOT_MODULE).is_file():  # built with the fast start (the default)
        # the kernel started from the site's snapshot (coursebuild.lite.fast_start), not by importing IPython again
        assert restored, run.worker_console
        assert not any("without the snapshot" in line for line in run.worker_console), run.worker_console
    else:  # COURSE_LITE_FAST_START=0: the kernel boots as Pyodide does, and everything above holds all the same
        assert restored == [] and not any(line.startswith("kernel:") for line in run.worker_console), run.worker_console
    from labcore.panels import adapter_vram_panel

    panel = adapter_vram_panel()
    assert len(run.panels) == 3 and len(run.panels[0]["controls"]) == len(panel.controls), run.panels
    assert all(line in run.panels[0]["texts"] for line in panel.row()["readout"].split("\n")), run.panels
    room = show("fleet_savings_panel").row(tenants=41, tenant_qps=1.2)["readout"]  # the room's value, drawn live
    assert all(line in run.panels[1]["texts"] for line in room.split("\n")), run.panels[1]["texts"]
    # the live controls: 41 tenants typed into the widget, computed in the kernel and drawn again in the same chart
    assert run.moves and all(line in run.moves[0]["widget"] for line in WIDGET_41.split("\n")), run.moves


def test_every_chapter_has_the_setup_cell() -> None:
    """Check each chapter notebook's first code cell is the live setup cell, hidden in the book."""
    from coursebuild.lite.notebooks import LIVE_MARKER

    if not CHAPTERS:
        pytest.skip("no chapter notebooks yet")
    missing = []
    for path in CHAPTERS:
        cells = [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
        first = cells[0] if cells else {"source": "", "metadata": {}}
        tags = first["metadata"].get("tags", [])
        if not ("".join(first["source"]).startswith(LIVE_MARKER) and "remove-cell" in tags):
            missing.append(path.name)
    assert missing == [], f"chapters without the tagged setup cell first: {missing}"


def test_built_book_links_every_chapter_live() -> None:
    """Check a built book holds each chapter's live copy (glue pasted), links to it, loads only working extensions."""
    html = Path(os.environ.get("BOOK_HTML", ROOT / "_build" / "html"))
    if not (html / "lite" / "jupyter-lite.json").is_file():
        pytest.skip(f"no built book with a lite site at {html}")
    problems = []
    for path in CHAPTERS:
        live = html / "lite" / "files" / path.name
        if not live.is_file():
            problems.append(f"{path.name} not in lite/files")
        elif "{glue" in live.read_text(encoding="utf-8"):
            problems.append(f"{path.name}: raw glue role in the live copy")
        page = html / "book" / f"{path.stem}.html"
        opens = next((c.live_notebook for c in LAB_CHAPTERS if f"{c.notebook}.ipynb" == path.name), "")
        target = opens or path.name  # chapter 7's Live button opens the lab notebook its manifest names
        if page.is_file() and f"?path={target}" not in page.read_text(encoding="utf-8"):
            problems.append(f"{page.name} has no live link to {target}")
    config = json.loads((html / "lite" / "jupyter-lite.json").read_text(encoding="utf-8"))
    settings = config["jupyter-config-data"]["litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"]
    assert settings["pyodideUrl"].startswith("./"), settings
    assert settings["disablePyPIFallback"] is True
    loaded = {e["name"] for e in config["jupyter-config-data"]["federated_extensions"]}
    assert "@jupyterlite/pyodide-kernel-extension" in loaded and not loaded & set(LEFT_OUT_EXTENSIONS), loaded
    assert not any((html / "lite" / "extensions" / name).exists() for name in LEFT_OUT_EXTENSIONS)
    # every page that starts JupyterLite records its service worker's version (coursebuild.lite.service_worker)
    from coursebuild.lite.service_worker import SCRIPT, SERVED

    assert (html / "lite" / SERVED).is_file()
    for app in ("lab", "notebooks", "tree"):
        assert f'{SCRIPT.name}" data-version="{config["jupyter-config-data"]["appVersion"]}"' in (
            html / "lite" / app / "index.html"
        ).read_text(encoding="utf-8"), app
    wheels = sorted(p.name for p in (html / "lite" / "pypi").glob("*.whl"))
    assert any(w.startswith("labcore-") for w in wheels) and not any(w.startswith("myst_nb") for w in wheels), wheels
    assert problems == []
