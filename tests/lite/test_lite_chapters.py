"""Run every chapter's live copy top to bottom in the site's JupyterLite, offline, and move its panels.

For each chapter (``book/NN_*.ipynb``): Run All in a Pyodide kernel with every request outside
127.0.0.1 aborted, wait until every code cell has run, then check

* no error output: no stderr output with a traceback or an ``...Error:`` line, nothing left unrun;
* no dialog: the kernel starts by itself (no "Select Kernel");
* zero requests outside 127.0.0.1 (every one is aborted and recorded);
* every figure the book drew for a cell that the live copy keeps is shown as an image (the site
  serves the stored SVG/PNG; the live kernel has no matplotlib), with its caption, and no
  "figure skipped" note;
* no raw MyST markup (``{glue``, ``{term}``, any other role or directive) in the rendered prose;
* the solutions (``hide-cell``) open collapsed, inputs and outputs; after Run All the inputs are
  still collapsed (JupyterLab shows a cell's outputs again when it runs it);
* every Vega-Lite panel is drawn and shows labcore's readout for its defaults; then each of its
  controls is moved once (a range input to the next value, a select to another option) and the
  drawn readout must become ``Panel.row(**state)["readout"]`` computed here in CPython;
* chapter 7's contract suite ran in the kernel with the same summary as here.

The chapters run two at a time in one browser (``LITE_PAGES`` to change; the first opens alone until
its kernel runs, see ``_pages.launch``; ``LITE_CHAPTERS=02,07`` runs only some); the whole module takes
several minutes on 2 cores (the panels read the grids the book build computed, so what takes the
time is booting Pyodide and the chapters' own code). Timings per chapter are printed with ``-s``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re

import pytest

from labcore.panels import show
from labcore.plots.offline import BOOK_FIGURE_CAPTION, cell_key

from ._pages import (
    CHAPTER_LIVE,
    CHAPTERS,
    LIVE_PANEL_TEXTS,
    add_cell_and_run,
    code_cells,
    is_local,
    launch,
    live_panel_cell,
    run_notebook,
    type_into_live_panel,
    visible_code_cells,
)

pytestmark = [pytest.mark.lite, pytest.mark.browser]

PAGES_AT_ONCE = int(os.environ.get("LITE_PAGES", "2"))
#: ``LITE_CHAPTERS=02,07`` runs only those chapters (the others skip)
ONLY = tuple(filter(None, os.environ.get("LITE_CHAPTERS", "").split(",")))
TRACEBACK = re.compile(r"Traceback|^\w+(Error|Exception): ", re.M)


def _panels_by_title() -> dict:
    from labcore.panels import PANELS

    return {factory().title: factory for factory in PANELS.values()}


def _candidates(factory):
    """Yield the panel a factory makes on labcore, then (an "on your code" panel) on each lab with one mistake."""
    yield factory()
    if factory.__name__.startswith("your_"):
        from labcore.checks.lab import MISTAKES, mistaken_lab

        for mistake in MISTAKES:
            yield factory(mistaken_lab(mistake))


def _value_text(value) -> str:
    return repr(value) if isinstance(value, float) else str(value)


async def _move_every_control(page, run) -> None:
    """Check each panel's default readout, then move each control once and wait for labcore's readout."""
    titles = _panels_by_title()
    vega = page.locator(".jp-RenderedVegaLite")
    for i, drawn in enumerate(run.panels):
        drawn_text = " ".join(drawn["texts"])  # Vega may wrap a long title over several lines
        title = next((t for t in titles if t in drawn_text), None)
        record = {"panel": title, "default": None, "moved": [], "problems": []}
        run.moves.append(record)
        if title is None:
            record["problems"].append(f"panel {i}: no known panel title among {drawn['texts'][-3:]}")
            continue
        # the implementation it was drawn on: labcore, or (chapter 7's exercise) a lab with one mistake
        panel = next(
            (
                p
                for p in _candidates(titles[title])
                if all(line in drawn["texts"] for line in p.row(**p.defaults())["readout"].split("\n"))
            ),
            titles[title](),
        )
        state = panel.defaults()
        expected = panel.row(**state)["readout"].split("\n")
        record["default"] = all(line in drawn["texts"] for line in expected)
        if not record["default"]:
            record["problems"].append(f"{title}: default readout {expected} not drawn")
        inputs = vega.nth(i).locator(".vega-bindings input[type=range], .vega-bindings select")
        if await inputs.count() != len(panel.controls):
            record["problems"].append(f"{title}: {await inputs.count()} inputs for {len(panel.controls)} controls")
            continue
        for j, control in enumerate(panel.controls):
            k = control.values.index(state[control.name])
            k = k + 1 if k + 1 < len(control.values) else k - 1
            if k < 0:
                continue  # a one-value control cannot move
            state[control.name] = control.values[k]
            await vega.nth(i).evaluate("el => el.querySelectorAll('canvas').forEach(c => { c.__texts = []; })")
            element = inputs.nth(j)
            if control.kind == "range":
                await element.evaluate(
                    "(el, v) => { el.value = v; el.dispatchEvent(new Event('input', {bubbles: true})); }",
                    _value_text(control.values[k]),
                )
            else:
                await element.select_option(index=k)
            expected = panel.row(**state)["readout"].split("\n")
            try:
                await vega.nth(i).evaluate(
                    """(el, lines) => new Promise((resolve, reject) => {
                         const t0 = Date.now();
                         const poll = () => {
                           const texts = [...el.querySelectorAll('canvas')].flatMap(c => c.__texts || []);
                           if (lines.every(l => texts.includes(l))) return resolve(true);
                           if (Date.now() - t0 > 15000) return reject(new Error(texts.slice(-6).join(' | ')));
                           setTimeout(poll, 50);
                         };
                         poll();
                       })""",
                    expected,
                )
                record["moved"].append(control.name)
            except Exception as error:  # noqa: BLE001 - collected and asserted by the test
                record["problems"].append(
                    f"{title}: {control.name}={control.values[k]!r} should draw {expected}; drawn: {error}"
                )


def _live_expected(chapter: str) -> tuple[str, list[str]]:
    """Return the label of the control typed into chapter's live panel and CPython's readout at the typed value."""
    name, control, value = CHAPTER_LIVE[chapter]
    panel = show(name)
    label = next(c.label for c in panel.controls if c.name == control)
    return label, panel.row(**{control: value})["readout"].split("\n")


async def _move_then_go_live(page, run) -> None:
    """Move every panel's controls; in a :data:`CHAPTER_LIVE` chapter, then add a cell with a live panel (as an
    instructor takes the room's value) and type a value off its grid into it."""
    await _move_every_control(page, run)
    if run.name not in CHAPTER_LIVE:
        return
    name, _control, value = CHAPTER_LIVE[run.name]
    label, expected = _live_expected(run.name)
    cell = await add_cell_and_run(page, live_panel_cell(name))
    try:
        run.live["seconds"] = await type_into_live_panel(page, cell, label, value, expected)
    except Exception as error:  # noqa: BLE001 - asserted by the test
        run.live["problem"] = f"{type(error).__name__}: {error}"
    run.live["texts"] = await page.evaluate(LIVE_PANEL_TEXTS)
    run.live["stderr"] = await cell.locator('[data-mime-type="application/vnd.jupyter.stderr"]').all_inner_texts()


@pytest.fixture(scope="module")
def chapter_runs(server, lite_site, tmp_path_factory):
    """Run every chapter's live copy (``PAGES_AT_ONCE`` at a time); return ``{name: Run}``."""
    from playwright.async_api import async_playwright

    files = lite_site / "lite" / "files"

    async def main():
        async with async_playwright() as pw:
            browser = await launch(pw, tmp_path_factory.mktemp("profile"))
            gate = asyncio.Semaphore(PAGES_AT_ONCE)
            first_ready = asyncio.Event()  # the profile's IndexedDB stores exist (see launch): other tabs may open

            async def one(path, first):
                if not first:
                    await first_ready.wait()
                async with gate:
                    n_code = visible_code_cells(files / path.name)
                    run = await run_notebook(
                        browser,
                        server,
                        path.name,
                        n_code,
                        n_total=code_cells(files / path.name),
                        move=_move_then_go_live,
                        ready=first_ready if first else None,
                    )
                    phases = ", ".join(f"{k} {v:.1f}" for k, v in run.phases.items())
                    print(
                        f"\n[lite] {run.name}: {run.seconds:.1f} s ({phases}), {len(run.panels)} panels, "
                        f"{sum(len(m['moved']) for m in run.moves)} controls moved, failure: {run.failure}",
                        flush=True,
                    )
                    return run

            chosen = [p for p in CHAPTERS if not ONLY or p.name.startswith(ONLY)]
            runs = await asyncio.gather(*(one(p, i == 0) for i, p in enumerate(chosen)))
            await browser.close()
            return {r.name: r for r in runs}

    return asyncio.run(main())


@pytest.mark.parametrize("chapter", [p.name for p in CHAPTERS])
def test_chapter_runs_offline_with_working_panels(chapter_runs, lite_site, chapter) -> None:
    """One chapter: ran to the end offline, no error output, glue pasted, solutions collapsed, panels respond."""
    if chapter not in chapter_runs:
        pytest.skip(f"LITE_CHAPTERS={','.join(ONLY)}")
    run = chapter_runs[chapter]
    text = "\n".join(run.outputs)
    assert run.failure is None, f"{run.failure}\n{text[-3000:]}"
    assert run.dialogs == [], f"JupyterLab opened a dialog instead of running the chapter: {run.dialogs}"
    assert run.unrun == 0, f"{run.unrun} code cells did not run\n{text[-3000:]}"
    assert run.blocked == [] and all(is_local(url) for url in run.requests), run.blocked
    errors = [s for s in run.stderr if TRACEBACK.search(s)]
    assert errors == [], errors
    assert "Traceback" not in text, text[-3000:]
    raw = re.findall(r"\{[a-z][\w:-]*\}`", run.markdown)
    assert raw == [], f"raw MyST roles in the live prose: {raw[:5]}"
    live = json.loads((lite_site / "lite" / "files" / chapter).read_text(encoding="utf-8"))
    hidden = [c["metadata"].get("jupyter", {}) for c in live["cells"]]
    n_hidden = sum(bool(h.get("source_hidden")) for h in hidden)
    assert run.collapsed_at_open == {"inputs": n_hidden, "outputs": sum(bool(h.get("outputs_hidden")) for h in hidden)}
    # JupyterLab shows a cell's outputs again when it runs it: after Run All only the inputs stay collapsed
    assert run.collapsed["inputs"] == n_hidden, run.collapsed
    expected_panels = sum("_panel(" in "".join(c["source"]) for c in live["cells"] if c["cell_type"] == "code")
    assert len(run.panels) == expected_panels, run.panels
    problems = [p for m in run.moves for p in m["problems"]]
    assert problems == [], problems
    assert all(m["default"] and m["moved"] for m in run.moves), run.moves
    figures = _book_figures_shown(lite_site, chapter, live)
    assert len(run.images) == figures and all(i["loaded"] and i["width"] > 100 for i in run.images), run.images
    assert text.count(BOOK_FIGURE_CAPTION) == len([c for c in _figure_cells(lite_site, chapter, live)]), text[-2000:]
    assert "(figure skipped" not in text, text[-2000:]  # every figure cell of the book shows the book's figure


@pytest.mark.parametrize("chapter", sorted(CHAPTER_LIVE))
def test_a_live_panel_added_to_the_chapter_takes_a_value_off_its_grid(chapter_runs, chapter) -> None:
    """A cell added after Run All shows a panel under live controls (ipywidgets, preloaded: no install); a value off
    the grid typed into its number box is computed in Pyodide and drawn as CPython's ``row()`` at that value."""
    if chapter not in chapter_runs:
        pytest.skip(f"LITE_CHAPTERS={','.join(ONLY)}")
    run = chapter_runs[chapter]
    assert run.failure is None, run.failure
    _label, expected = _live_expected(chapter)
    assert run.live.get("problem") is None and run.live["stderr"] == [], run.live
    assert all(line in run.live["texts"] for line in expected), (expected, run.live["texts"])
    print(f"\n[lite] {chapter}: {CHAPTER_LIVE[chapter]} drawn {run.live['seconds']:.2f} s after Enter")


def _figure_cells(lite_site, chapter: str, live: dict) -> list[list]:
    """Return, per code cell of the live copy that has the book's figures, their files (from the staged index)."""
    index = lite_site / "lite" / "files" / "book_build" / "figures" / f"{chapter.removesuffix('.ipynb')}.json"
    if not index.is_file():
        return []
    figures = json.loads(index.read_text(encoding="utf-8"))["figures"]
    keys = [cell_key("".join(c["source"])) for c in live["cells"] if c["cell_type"] == "code"]
    return [figures[k] for k in keys if k in figures]


def _book_figures_shown(lite_site, chapter: str, live: dict) -> int:
    """Return how many images the live copy's cells should show: the book's figures of the cells it keeps."""
    return sum(len(files) for files in _figure_cells(lite_site, chapter, live))


def test_chapter_7_runs_the_contract_suite_in_the_kernel(chapter_runs) -> None:
    """Chapter 7's red/green summaries, computed by pytest inside Pyodide, equal CPython's."""
    from labcore.contract import run_contract_suite

    run = chapter_runs.get("07_do_the_lab.ipynb")
    if run is None:
        pytest.skip("no chapter 7")
    text = "\n".join(run.outputs)
    red = run_contract_suite("lab.skeleton", modules="versions", select="parse_version")
    green = run_contract_suite("labcore", modules="versions", select="parse_version")
    assert str(red) in text and str(green) in text and f"first failure: {red.first_failure}" in text, text[:2000]
