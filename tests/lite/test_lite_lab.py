"""Do the lab in the live site, as a learner would: the lab notebook, your own ``lab/mine``, the suite in the page.

One session in a fresh browser profile, offline (every request outside 127.0.0.1 aborted):

1. open the lab notebook where the landing page's "Do the lab" and chapter 7's Live button lead (the live site's
   notebook app, the notebook alone in the window), on a phone's screen (390 x 844), and Run All: ``lab/mine`` is
   made from the skeleton and the table shows the seven modules red, each with its failing tests, its ``TODO(lab)``
   hint and the lines that run it alone; the notebook fills the phone's width and nothing scrolls sideways, nor on
   a laptop's screen (1280 x 720);
2. open ``versions.py`` with its link in the notebook (an editor in a new tab), save a version that compares
   version strings, run the notebook's versions cell: the versions line turns red with the suite's assertion; the
   reset cell only asks; save the right ``versions.py``: the line turns green;
3. save the notebook (as JupyterLab's autosave would) and reload the page: no table comes back, each table cell
   says to run it; the file is still there (the versions line is still green) and nothing is copied again;
4. save labcore's seven modules as the learner's: the whole suite passes, as many tests as ``pytest tests/contract``
   collects in CPython.

Every table is compared with :func:`labcore.contract.run_contract_suite` run here, in CPython, on the same files.
"""

from __future__ import annotations

import asyncio
import contextlib
import re

import pytest

from labcore.contract import LAB_MODULES, count_contract_tests, run_contract_suite
from labcore.contract_table import STALE_MESSAGE, failing_line
from labcore.site import LIVE_DIR, PROGRESS_KEY, lab_live_url

from .. import lab_samples
from ._pages import ROOT, is_local, launch, run_all

pytestmark = [pytest.mark.lite, pytest.mark.browser]

#: the lab notebook's code cells, by what they do (their order in ``lab/do_the_lab.ipynb``)
SETUP, START, RUN_ALL, RUN_VERSIONS, RESET = 0, 1, 2, 3, 4
#: the rows of the module table a run displays
TABLE_ROWS = """el => [...el.querySelectorAll('table.lab-status tbody tr')].map(tr =>
  [...tr.querySelectorAll('td')].map(td => td.innerText.trim()))"""
SUITE_TIMEOUT_MS = 240_000


def _expected(run) -> list[list[str]]:
    """Return a CPython run's table rows as the notebook shows them: a module's line, and under a red one its detail."""
    rows = []
    for m in run.modules:
        rows.append([f"{m.module}.py", "✓ green" if m.green else "✗ red", f"{m.passed}/{m.total}"])
        if not m.green:
            rows.append(
                [
                    "\n".join(
                        [
                            failing_line(m),
                            f"First failure: {m.first_failure}",
                            f"Run only this module: {m.notebook_command} in a notebook, {m.shell_command} "
                            "in a terminal",
                        ]
                    )
                ]
            )
    return rows


#: the layout of the open notebook: the page's scrolling width, and the notebook's left edge and width
LAYOUT = """() => { const nb = document.querySelector('.jp-NotebookPanel .jp-Notebook').getBoundingClientRect();
  return {scroll: document.documentElement.scrollWidth, x: nb.x, width: nb.width, window: innerWidth}; }"""
PHONE = {"width": 390, "height": 844}
EDITOR = ".jp-FileEditor .cm-content"
#: every page records what the live site writes into the browser's storage (IndexedDB): ``[store, key, text]``; the
#: editor app shows no unsaved-changes mark, so a test knows a file is saved when its text is written there
RECORD_SAVES = """(() => {
  const put = IDBObjectStore.prototype.put;
  IDBObjectStore.prototype.put = function (value, key) {
    const text = value && typeof value.content === 'string' ? value.content : null;
    (window.__saved = window.__saved || []).push([this.name, String(key), text]);
    return put.apply(this, arguments);
  };
})();"""
#: the file ``path`` was written with ``text`` since ``__saved`` was emptied
SAVED = """([path, text]) => (window.__saved || []).some(([store, key, content]) =>
  store === 'files' && key === path && content !== null && content.trimEnd() === text.trimEnd())"""
LAPTOP = {"width": 1280, "height": 720}


async def _code_cell(page, index: int):
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell").nth(index)


async def _run_cell(page, index: int, *, expect_table: bool = False) -> str:
    """Run code cell ``index`` of the open notebook (Shift+Enter) and wait for its new output; return its text."""
    cell = await _code_cell(page, index)
    # a saved notebook reopened in a new kernel shows the same counts again ("[1]:" before and after): mark the
    # prompt, which JupyterLab rewrites ("[*]:", then the count) when the cell runs
    before = "[?]:"
    await cell.locator(".jp-InputPrompt").evaluate("(el, mark) => { el.textContent = mark; }", before)
    await cell.locator(".jp-InputArea-editor").click()
    await page.keyboard.press("Shift+Enter")
    await page.wait_for_function(
        """([el, before]) => { const p = el.querySelector('.jp-InputPrompt').textContent.trim();
                                return /^\\[\\d+\\]:$/.test(p) && p !== before; }""",
        arg=[await cell.element_handle(), before],
        timeout=SUITE_TIMEOUT_MS,
        polling=250,
    )
    if expect_table:
        await cell.locator("table.lab-status").wait_for(timeout=30_000)
    return await cell.locator(".jp-OutputArea").inner_text()


async def _table(page, index: int) -> list[list[str]]:
    cell = await _code_cell(page, index)
    return await cell.locator(".jp-OutputArea").evaluate(TABLE_ROWS)


async def _save_in_editor(page, path: str, source: str) -> None:
    """Open ``path`` with its link in the lab notebook (an editor in a new tab), replace its text, save, close it."""
    link = page.locator(".jp-MarkdownCell a").filter(has_text=re.compile(f"^{re.escape(path)}$")).first
    async with page.context.expect_page() as opened:
        await link.click()
    editor_page = await opened.value
    editor = editor_page.locator(EDITOR)
    await editor.wait_for(timeout=180_000)  # a new tab boots the live site's editor app
    # the editor shows before the file's text arrives: typed earlier, the text would be replaced, and nothing saved
    await editor_page.wait_for_function(
        f"() => document.querySelector({EDITOR!r}).textContent.length > 0", timeout=60_000
    )
    await editor.click()
    await editor_page.keyboard.press("Control+a")
    await editor_page.keyboard.insert_text(source)
    await editor_page.evaluate("() => { window.__saved = []; }")
    await editor_page.keyboard.press("Control+s")
    await editor_page.wait_for_function(SAVED, arg=[path, source], timeout=60_000)
    await editor_page.close()
    await page.bring_to_front()


async def _chapter_on_mine(page, server: str, chapter: str, panel: str) -> str:
    """Open ``chapter`` in the live site beside the lab, set its switch to ``"mine"``, run what its comparison needs;
    return what it drew.

    Runs the setup cell (labcore into the chapter's own kernel), the imports and the switch's cell; returns the
    cell's output text, with every string its panel drew on the canvas (a Vega panel draws its readout there).
    """
    chapter_page = await page.context.new_page()
    await chapter_page.goto(f"{server}/{LIVE_DIR}/notebooks/index.html?path={chapter}")  # its Live button
    panel_ = chapter_page.locator(".jp-NotebookPanel")
    await panel_.locator(".jp-CodeCell").first.wait_for(timeout=60_000)
    await chapter_page.wait_for_function(  # the notebook lays its cells out progressively: wait for the switch's
        "([a, b]) => [...document.querySelectorAll('.jp-NotebookPanel .jp-CodeCell .cm-content')]"
        ".some(e => e.textContent.includes(a) && e.textContent.includes(b))",
        arg=["implementation(", panel],
        timeout=60_000,
    )
    sources = await panel_.locator(".jp-CodeCell .cm-content").evaluate_all("els => els.map(e => e.textContent)")
    switch = next(i for i, s in enumerate(sources) if "implementation(" in s and panel in s)
    cell = panel_.locator(".jp-CodeCell").nth(switch)
    await cell.locator(".cm-content").click()
    await chapter_page.keyboard.press("Control+a")
    await chapter_page.keyboard.insert_text(f'lab = implementation("mine")\n{panel}(lab)')
    for index in (0, 1, switch):  # the setup cell, the imports, the switch
        await _run_cell(chapter_page, index)
    await chapter_page.wait_for_timeout(500)  # let Vega finish drawing
    drawn = await cell.locator(".jp-OutputArea").evaluate(
        "el => [...el.querySelectorAll('canvas')].flatMap(c => c.__texts || []).join('\\n')"
    )
    text = await cell.locator(".jp-OutputArea").inner_text()
    await chapter_page.close()
    await page.bring_to_front()
    return text + "\n" + drawn


@pytest.fixture(scope="module")
def lab_session(server, tmp_path_factory) -> dict:
    """Do the lab once in the live site (see the module doc); return what each step showed."""
    from playwright.async_api import async_playwright

    seen: dict = {"requests": [], "errors": []}

    async def main():
        async with async_playwright() as pw:
            browser = await launch(pw, tmp_path_factory.mktemp("lab-profile"))
            await browser.add_init_script(RECORD_SAVES)
            page = await browser.new_page()
            page.on("request", lambda req: seen["requests"].append(req.url))
            page.on("pageerror", lambda err: seen["errors"].append(str(err)))
            try:
                await _do_the_lab(page, server, seen)
            except Exception:
                (ROOT / "_build").mkdir(exist_ok=True)
                await page.screenshot(path=str(ROOT / "_build" / "lite_lab_failure.png"))
                print(
                    f"[lite lab] steps done: {sorted(k for k in seen if k not in ('requests', 'errors'))}; "
                    f"page errors: {seen['errors'][:3]}; screenshot: _build/lite_lab_failure.png"
                )
                raise
            finally:
                await browser.close()

    asyncio.run(main())
    return seen


async def _do_the_lab(page, server: str, seen: dict) -> None:
    """The learner's session (see the module doc); each step's result goes into ``seen``."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout  # here: the module skips without playwright

    await page.set_viewport_size(PHONE)
    await page.goto(f"{server}/{lab_live_url()}")
    await page.locator(".jp-CodeCell").first.wait_for(timeout=90_000)
    await run_all(page, ".jp-NotebookPanel .jp-Notebook")  # presses again if the busy page missed the click
    cell = await _code_cell(page, RESET)
    await cell.locator(".jp-OutputArea-output").wait_for(timeout=SUITE_TIMEOUT_MS)
    await (await _code_cell(page, RUN_ALL)).locator("table.lab-status").wait_for(timeout=30_000)
    seen["phone"] = await page.evaluate(LAYOUT)
    await page.set_viewport_size(LAPTOP)
    with contextlib.suppress(PlaywrightTimeout):  # JupyterLab lays the panel out again after a resize, not at once
        await page.wait_for_function(f"() => ({LAYOUT})().width >= 0.9 * innerWidth", timeout=15_000)
    seen["laptop"] = await page.evaluate(LAYOUT)
    seen["start"] = await (await _code_cell(page, START)).locator(".jp-OutputArea").inner_text()
    seen["skeleton"] = await _table(page, RUN_ALL)
    seen["storage_after_skeleton"] = await page.evaluate(f"() => localStorage.getItem({PROGRESS_KEY!r})")
    seen["cache_chapter_on_skeleton"] = await _chapter_on_mine(page, server, "04_the_cache.ipynb", "your_cache_panel")

    await _save_in_editor(page, "lab/mine/versions.py", lab_samples.VERSIONS_COMPARING_STRINGS)
    await _run_cell(page, RUN_VERSIONS, expect_table=True)
    seen["strings"] = await _table(page, RUN_VERSIONS)
    seen["reset_asks"] = await _run_cell(page, RESET)

    await _save_in_editor(page, "lab/mine/versions.py", lab_samples.reference("versions"))
    await _run_cell(page, RUN_VERSIONS, expect_table=True)
    seen["right"] = await _table(page, RUN_VERSIONS)

    await page.locator(".jp-NotebookPanel .jp-Notebook").click()
    await page.keyboard.press("Escape")
    await page.keyboard.press("Control+s")  # the notebook saved with its tables, as autosave would
    await page.wait_for_function(
        "() => !document.title.startsWith('*') && !document.querySelector('.jp-NotebookPanel.jp-mod-dirty')",
        timeout=30_000,
    )
    await page.reload()  # a new page and a new kernel: the saved tables must not come back as results
    await page.locator(".jp-CodeCell").first.wait_for(timeout=90_000)
    await page.wait_for_function(
        f"() => [...document.querySelectorAll('.jp-OutputArea')].some(o => o.innerText.includes({STALE_MESSAGE!r}))",
        timeout=60_000,
    )
    seen["reopened"] = [
        await (await _code_cell(page, i)).locator(".jp-OutputArea").inner_text() for i in (RUN_ALL, RUN_VERSIONS)
    ]
    seen["tables_reopened"] = await page.locator("table.lab-status").count()
    await _run_cell(page, SETUP)
    seen["start_after_reload"] = await _run_cell(page, START)
    await _run_cell(page, RUN_VERSIONS, expect_table=True)
    seen["after_reload"] = await _table(page, RUN_VERSIONS)

    for module in LAB_MODULES:
        await _save_in_editor(page, f"lab/mine/{module}.py", lab_samples.reference(module))
    await _run_cell(page, RUN_ALL, expect_table=True)
    seen["finished"] = await _table(page, RUN_ALL)
    seen["storage"] = await page.evaluate(f"() => localStorage.getItem({PROGRESS_KEY!r})")

    await _save_in_editor(page, "lab/mine/cache.py", lab_samples.fifo_cache())
    await _save_in_editor(page, "lab/mine/router.py", lab_samples.router_without_overhead())
    seen["cache_chapter_on_fifo"] = await _chapter_on_mine(page, server, "04_the_cache.ipynb", "your_cache_panel")
    seen["simulator_chapter_on_mine"] = await _chapter_on_mine(
        page, server, "08_serving_simulator.ipynb", "your_simulator_panel"
    )


def test_the_lab_opens_with_your_copy_and_every_module_red_with_its_hint(lab_session, lab_folder):
    assert "lab/mine/versions.py" in lab_session["start"] and "lab/mine/errors.py" in lab_session["start"]
    assert lab_session["skeleton"] == _expected(run_contract_suite("lab.mine", root=lab_folder))
    lines, details = lab_session["skeleton"][0::2], lab_session["skeleton"][1::2]
    assert [row[0] for row in lines] == [f"{m}.py" for m in LAB_MODULES]
    assert all(row[1] == "✗ red" for row in lines)
    assert all("TODO(lab): implement" in row[0] and "failing: test_" in row[0] for row in details)
    assert 'run_contract_suite("lab.mine", modules="versions")' in details[0][0]
    assert "LAB_MODULE=lab.mine pytest tests/contract/test_versions.py" in details[0][0]


@pytest.mark.parametrize("screen", ["phone", "laptop"])
def test_the_lab_notebook_fills_the_window_on_a_phone_and_a_laptop(lab_session, screen):
    layout = lab_session[screen]
    assert layout["scroll"] <= layout["window"], layout  # nothing scrolls sideways, the table included
    assert layout["width"] >= 0.9 * layout["window"] and layout["x"] >= 0, layout


def test_a_reopened_lab_shows_no_stale_table(lab_session):
    assert lab_session["tables_reopened"] == 0
    # each table cell's output: its prompt ("[3]:") and the message, nothing else
    assert all(
        text.split("\n")[-1].strip() == STALE_MESSAGE and "passed" not in text for text in lab_session["reopened"]
    ), lab_session["reopened"]


def test_versions_comparing_strings_is_red_with_the_suites_message_and_the_right_one_green(lab_session, lab_folder):
    lab_samples.write(lab_folder, "versions", lab_samples.VERSIONS_COMPARING_STRINGS)
    wrong = run_contract_suite("lab.mine", modules="versions", root=lab_folder)
    assert lab_session["strings"] == _expected(wrong)
    assert (
        lab_session["strings"][0][1] == "✗ red"
        and "First failure: AssertionError: assert ('1', '10', '0')" in lab_session["strings"][1][0]
    )
    assert f"{len(wrong.modules[0].failing)} failing: " in lab_session["strings"][1][0]
    lab_samples.write(lab_folder, "versions", lab_samples.reference("versions"))
    right = run_contract_suite("lab.mine", modules="versions", root=lab_folder)
    assert lab_session["right"] == _expected(right) and lab_session["right"][0][1] == "✓ green"


def test_reset_asks_before_it_replaces_your_file(lab_session):
    assert "This would replace lab/mine/versions.py" in lab_session["reset_asks"]
    assert "confirm=True" in lab_session["reset_asks"]
    assert lab_session["right"][0][1] == "✓ green"  # the file was not replaced: the right version stayed


def test_your_files_survive_a_reload(lab_session):
    assert "nothing (your lab/mine is already here)" in lab_session["start_after_reload"]
    assert lab_session["after_reload"] == lab_session["right"]


def test_a_finished_lab_passes_every_contract_test_as_in_cpython(lab_session):
    total = count_contract_tests()
    rows = lab_session["finished"]
    assert all(len(row) == 3 and row[1] == "✓ green" for row in rows), rows
    assert sum(int(re.match(r"(\d+)/", row[2])[1]) for row in rows) == total


def _mine(lab_folder, **files):
    from labcore.implementation import implementation

    for module in LAB_MODULES:
        lab_samples.write(lab_folder, module, files.get(module) or lab_samples.reference(module))
    return implementation("mine", root=lab_folder)


def test_a_chapter_on_unfinished_code_names_the_missing_function(lab_session):
    text = lab_session["cache_chapter_on_skeleton"]
    assert "Not yet on your code" in text and "adapter.tenant_adapters" in text, text[-600:]
    assert "Traceback" not in text


def test_the_switch_draws_a_fifo_cache_beside_the_reference(lab_session, lab_folder):
    from labcore.panels import your_cache_panel

    expected = your_cache_panel(_mine(lab_folder, cache=lab_samples.fifo_cache())).row()["readout"].split("\n")
    drawn = lab_session["cache_chapter_on_fifo"].split("\n")
    assert all(line in drawn for line in expected), (expected, drawn[-12:])
    reference = your_cache_panel().row()
    assert f"your AdapterCache: {reference['fifo_hit_pct']:.1f}% hits" in expected  # the FIFO line, not LRU's
    assert reference["fifo_hit_pct"] != reference["lru_hit_pct"]


def test_the_simulator_replays_your_router(lab_session, lab_folder):
    from labcore.panels import your_simulator_panel

    mine = _mine(lab_folder, cache=lab_samples.fifo_cache(), router=lab_samples.router_without_overhead())
    expected = your_simulator_panel(mine).row()["readout"].split("\n")
    drawn = lab_session["simulator_chapter_on_mine"].split("\n")
    assert all(line in drawn for line in expected), (expected, drawn[-12:])
    assert any(line.startswith("yours: p99 40.0 ms before") for line in expected)  # no LoRA overhead: 40, not 42


def test_the_lab_keeps_its_progress_in_the_browser_and_stays_offline(lab_session):
    import json

    stored = json.loads(lab_session["storage"])["lab"]
    assert sorted(stored) == sorted(LAB_MODULES) and all(v["passed"] == v["total"] > 0 for v in stored.values())
    skeleton = json.loads(lab_session["storage_after_skeleton"])["lab"]
    assert all(v["passed"] == 0 for v in skeleton.values())
    assert lab_session["errors"] == [] and all(is_local(url) for url in lab_session["requests"])
