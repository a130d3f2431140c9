"""Prove the live (JupyterLite) site boots a Pyodide kernel where labcore runs, with no network.

The site (built once by ``conftest.lite_site``) holds a small check notebook (``_pages.demo_notebook``)
beside the chapters: its cells print the platform, run a registry/cache/router walk-through whose
line must equal the same code run here in CPython, show a panel from a blank notebook in one
call, and compute a panel state off its grid (equal to CPython's). It is served with a kernelspec
that matches no kernel, so it also checks that the harness answers JupyterLab's kernel dialog.
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

from ._pages import CHAPTERS, LABCORE_CELL, ROOT, ROW_CELL, UNMATCHED_KERNELSPEC, is_local, launch, run_notebook

pytestmark = [pytest.mark.lite, pytest.mark.browser]


def _run_here(source: str) -> str:
    """Run ``source`` in this CPython process and return what it printed."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(source, "<cell>", "exec"), {})
    return buf.getvalue().strip()


def test_live_kernel_boots_offline_and_runs_labcore(server: str, lite_site: Path) -> None:
    """Answer the kernel dialog, boot Pyodide, run labcore, draw a panel, with zero requests outside 127.0.0.1.

    The notebook's kernelspec matches no kernel of the site, so JupyterLab always opens its "Select Kernel"
    dialog: ``run_notebook`` must answer it with the Pyodide kernel and run the notebook (the race CI met).
    """
    from playwright.async_api import async_playwright

    served = json.loads((lite_site / "lite" / "files" / "live_check.ipynb").read_text(encoding="utf-8"))
    assert served["metadata"]["kernelspec"] == UNMATCHED_KERNELSPEC

    async def shot(page, run) -> None:
        await page.screenshot(path=str(ROOT / "_build" / "lite_kernel_test.png"))

    async def main():
        async with async_playwright() as pw:
            browser = await launch(pw)
            run = await run_notebook(browser, server, "live_check.ipynb", 5, move=shot)
            await browser.close()
            return run

    (ROOT / "_build").mkdir(exist_ok=True)
    run = asyncio.run(main())
    text = "\n".join(run.outputs)
    print(f"\n[lite] check notebook ran in {run.seconds:.1f} s; {len(run.requests)} requests, "
          f"{len(run.blocked)} blocked")
    assert run.dialogs >= 1, "the kernel dialog never opened: the dialog check proves nothing"
    assert run.failure is None and run.unrun == 0, f"{run.failure}, {run.unrun} cells not run\n{text}"
    assert "PYODIDE emscripten" in text, text
    assert _run_here(LABCORE_CELL) in text, text
    here = _run_here("import labcore.panels\n" + ROW_CELL).splitlines()
    assert here[0] in text, text  # a state off the grid, computed live as here
    assert "GRID FROM THE BOOK BUILD True" in text, text  # the live kernel read the staged grid and accepted it
    assert run.blocked == [] and all(is_local(url) for url in run.requests), run.blocked
    assert run.stderr == [] and run.page_errors == [], (run.stderr, run.page_errors)
    from labcore.panels import adapter_vram_panel

    panel = adapter_vram_panel()
    assert len(run.panels) == 1 and len(run.panels[0]["controls"]) == len(panel.controls), run.panels
    assert all(line in run.panels[0]["texts"] for line in panel.row()["readout"].split("\n")), run.panels


def test_every_chapter_has_the_setup_cell() -> None:
    """Check each chapter notebook's first code cell is the live setup cell, hidden in the book."""
    from coursebuild.lite_notebooks import LIVE_MARKER

    if not CHAPTERS:
        pytest.skip("no chapter notebooks yet")
    missing = []
    for path in CHAPTERS:
        cells = [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
        first = cells[0] if cells else {"source": "", "metadata": {}}
        if not ("".join(first["source"]).startswith(LIVE_MARKER) and "remove-cell" in first["metadata"].get("tags", [])):
            missing.append(path.name)
    assert missing == [], f"chapters without the tagged setup cell first: {missing}"


def test_built_book_links_every_chapter_live() -> None:
    """Check a built book holds each chapter's live copy (glue pasted) and links to it from the page."""
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
        if page.is_file() and f"?path={path.name}" not in page.read_text(encoding="utf-8"):
            problems.append(f"{page.name} has no live link")
    config = json.loads((html / "lite" / "jupyter-lite.json").read_text(encoding="utf-8"))
    settings = config["jupyter-config-data"]["litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"]
    assert settings["pyodideUrl"].startswith("./"), settings
    assert settings["disablePyPIFallback"] is True
    wheels = sorted(p.name for p in (html / "lite" / "pypi").glob("*.whl"))
    assert any(w.startswith("labcore-") for w in wheels) and not any(w.startswith("myst_nb") for w in wheels), wheels
    assert problems == []
