"""Do the lab in the live site, as a learner would: the lab notebook, your own ``lab/mine``, the suite in the page.

One session in a fresh browser profile, offline (every request outside 127.0.0.1 aborted):

1. open the lab notebook in the live site's JupyterLab (the landing page's and chapter 7's "Do the lab") and Run All:
   ``lab/mine`` is made from the skeleton and the table shows the seven modules red, each with its ``TODO(lab)`` hint;
2. in JupyterLab's editor, save a ``versions.py`` that compares version strings, run the notebook's versions cell:
   the versions line turns red with the suite's assertion; the reset cell only asks; save the right ``versions.py``:
   the line turns green;
3. reload the page: the file is still there (the versions line is still green) and nothing is copied again;
4. save labcore's seven modules as the learner's: the whole suite passes, as many tests as ``pytest tests/contract``
   collects in CPython.

Every table is compared with :func:`labcore.contract.run_contract_suite` run here, in CPython, on the same files.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from labcore.contract import LAB_MODULES, count_contract_tests, run_contract_suite
from labcore.site import LAB_NOTEBOOK, PROGRESS_KEY, lab_live_url

from .. import lab_samples
from ._pages import ROOT, is_local, launch

pytestmark = [pytest.mark.lite, pytest.mark.browser]

#: the lab notebook's code cells, by what they do (their order in ``lab/do_the_lab.ipynb``)
SETUP, START, RUN_ALL, RUN_VERSIONS, RESET = 0, 1, 2, 3, 4
#: the rows of the module table a run displays
TABLE_ROWS = """el => [...el.querySelectorAll('table.lab-status tbody tr')].map(tr =>
  [...tr.querySelectorAll('td')].map(td => td.innerText.trim()))"""
SUITE_TIMEOUT_MS = 240_000


def _expected(run) -> list[list[str]]:
    """Return a CPython run's module lines as the notebook's table shows them."""
    return [[f"{m.module}.py", "✓ green" if m.green else "✗ red", f"{m.passed}/{m.total}", m.first_failure or ""]
            for m in run.modules]


async def _code_cell(page, index: int):
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell").nth(index)


async def _run_cell(page, index: int, *, expect_table: bool = False) -> str:
    """Run code cell ``index`` of the open notebook (Shift+Enter) and wait for its new output; return its text."""
    cell = await _code_cell(page, index)
    prompt = cell.locator(".jp-InputPrompt")
    before = (await prompt.inner_text()).strip()
    await cell.locator(".jp-InputArea-editor").click()
    await page.keyboard.press("Shift+Enter")
    await page.wait_for_function(
        """([el, before]) => { const p = el.querySelector('.jp-InputPrompt').textContent.trim();
                                return /^\\[\\d+\\]:$/.test(p) && p !== before; }""",
        arg=[await cell.element_handle(), before], timeout=SUITE_TIMEOUT_MS, polling=250)
    if expect_table:
        await cell.locator("table.lab-status").wait_for(timeout=30_000)
    return await cell.locator(".jp-OutputArea").inner_text()


async def _table(page, index: int) -> list[list[str]]:
    cell = await _code_cell(page, index)
    return await cell.locator(".jp-OutputArea").evaluate(TABLE_ROWS)


async def _save_in_editor(page, path: str, source: str) -> None:
    """Open ``path`` from JupyterLab's file browser, replace its text with ``source`` in the editor, save it."""
    listing = page.locator(".jp-DirListing-content")
    await page.locator(".jp-BreadCrumbs-home").click()  # the file browser at the top folder
    for part in path.split("/"):
        await listing.get_by_text(part, exact=True).dblclick()
    editor = page.locator("#jp-main-dock-panel .lm-Widget:not(.lm-mod-hidden) > .jp-FileEditor .cm-content")
    await editor.wait_for(timeout=30_000)
    await editor.click()
    await page.keyboard.press("Control+a")
    await page.keyboard.insert_text(source)
    await page.keyboard.press("Control+s")
    tab = page.locator("#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current")
    await page.wait_for_function("el => !el.classList.contains('jp-mod-dirty')", arg=await tab.element_handle(),
                                 timeout=30_000)


async def _chapter_on_mine(page, chapter: str, panel: str) -> str:
    """Open ``chapter`` beside the lab, set its switch to ``"mine"``, run what its comparison needs; return what it drew.

    Runs the setup cell (labcore into the chapter's own kernel), the imports and the switch's cell; returns the
    cell's output text, with every string its panel drew on the canvas (a Vega panel draws its readout there).
    """
    listing = page.locator(".jp-DirListing-content")
    await page.locator(".jp-BreadCrumbs-home").click()
    await listing.get_by_text(chapter, exact=True).dblclick()
    await page.locator(".lm-TabBar-tab.lm-mod-current", has_text=chapter).first.wait_for(timeout=30_000)
    panel_ = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    await panel_.locator(".jp-CodeCell").first.wait_for(timeout=60_000)
    await page.wait_for_function(  # the notebook lays its cells out progressively: wait for the switch's
        "([a, b]) => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .cm-content')]"
        ".some(e => e.textContent.includes(a) && e.textContent.includes(b))",
        arg=['implementation("reference")', panel], timeout=60_000)
    sources = await panel_.locator(".jp-CodeCell .cm-content").evaluate_all("els => els.map(e => e.textContent)")
    switch = next(i for i, s in enumerate(sources) if 'implementation("reference")' in s and panel in s)
    cell = panel_.locator(".jp-CodeCell").nth(switch)
    await cell.locator(".cm-content").click()
    await page.keyboard.press("Control+a")
    await page.keyboard.insert_text(f'lab = implementation("mine")\n{panel}(lab)')
    for index in (0, 1, switch):  # the setup cell, the imports, the switch
        await _run_cell(page, index)
    await page.wait_for_timeout(500)  # let Vega finish drawing
    drawn = await cell.locator(".jp-OutputArea").evaluate(
        "el => [...el.querySelectorAll('canvas')].flatMap(c => c.__texts || []).join('\\n')")
    text = await cell.locator(".jp-OutputArea").inner_text()
    await page.locator(".lm-TabBar-tab.lm-mod-current .lm-TabBar-tabCloseIcon").first.click()  # close the chapter
    dialog = page.locator(".jp-Dialog")
    if await dialog.count():
        await dialog.locator(".jp-Dialog-button", has_text="Discard").click()  # the switch edit is not kept
    await _notebook_tab(page)
    return text + "\n" + drawn


async def _notebook_tab(page) -> None:
    await page.locator(".lm-TabBar-tab", has_text=LAB_NOTEBOOK).first.click()
    await page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)").wait_for(timeout=30_000)


async def _run_all(page) -> None:
    await page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook").click()
    await page.get_by_role("menuitem", name="Run", exact=True).click()
    await page.locator("li[data-command='runmenu:run-all']").click()


@pytest.fixture(scope="module")
def lab_session(server, tmp_path_factory) -> dict:
    """Do the lab once in the live site (see the module doc); return what each step showed."""
    from playwright.async_api import async_playwright

    seen: dict = {"requests": [], "errors": []}

    async def main():
        async with async_playwright() as pw:
            browser = await launch(pw, tmp_path_factory.mktemp("lab-profile"))
            page = await browser.new_page()
            page.on("request", lambda req: seen["requests"].append(req.url))
            page.on("pageerror", lambda err: seen["errors"].append(str(err)))
            try:
                await _do_the_lab(page, server, seen)
            except Exception:
                (ROOT / "_build").mkdir(exist_ok=True)
                await page.screenshot(path=str(ROOT / "_build" / "lite_lab_failure.png"))
                print(f"[lite lab] steps done: {sorted(k for k in seen if k not in ('requests', 'errors'))}; "
                      f"page errors: {seen['errors'][:3]}; screenshot: _build/lite_lab_failure.png")
                raise
            finally:
                await browser.close()

    asyncio.run(main())
    return seen


async def _do_the_lab(page, server: str, seen: dict) -> None:
    """The learner's session (see the module doc); each step's result goes into ``seen``."""
    await page.goto(f"{server}/{lab_live_url()}")
    await page.locator(".jp-CodeCell").first.wait_for(timeout=90_000)
    await _run_all(page)
    cell = await _code_cell(page, RESET)
    await cell.locator(".jp-OutputArea-output").wait_for(timeout=SUITE_TIMEOUT_MS)
    seen["start"] = await (await _code_cell(page, START)).locator(".jp-OutputArea").inner_text()
    seen["skeleton"] = await _table(page, RUN_ALL)
    seen["storage_after_skeleton"] = await page.evaluate(f"() => localStorage.getItem({PROGRESS_KEY!r})")
    seen["cache_chapter_on_skeleton"] = await _chapter_on_mine(page, "04_the_cache.ipynb", "your_cache_panel")

    await _save_in_editor(page, "lab/mine/versions.py", lab_samples.VERSIONS_COMPARING_STRINGS)
    await _notebook_tab(page)
    await _run_cell(page, RUN_VERSIONS, expect_table=True)
    seen["strings"] = await _table(page, RUN_VERSIONS)
    seen["reset_asks"] = await _run_cell(page, RESET)

    await _save_in_editor(page, "lab/mine/versions.py", lab_samples.reference("versions"))
    await _notebook_tab(page)
    await _run_cell(page, RUN_VERSIONS, expect_table=True)
    seen["right"] = await _table(page, RUN_VERSIONS)

    await page.reload()  # a new page and a new kernel: install labcore again (the setup cell), then open the lab
    await page.locator(".jp-CodeCell").first.wait_for(timeout=90_000)
    await _notebook_tab(page)
    await _run_cell(page, SETUP)
    seen["start_after_reload"] = await _run_cell(page, START)
    await _run_cell(page, RUN_VERSIONS, expect_table=True)
    seen["after_reload"] = await _table(page, RUN_VERSIONS)

    for module in LAB_MODULES:
        await _save_in_editor(page, f"lab/mine/{module}.py", lab_samples.reference(module))
    await _notebook_tab(page)
    await _run_cell(page, RUN_ALL, expect_table=True)
    seen["finished"] = await _table(page, RUN_ALL)
    seen["storage"] = await page.evaluate(f"() => localStorage.getItem({PROGRESS_KEY!r})")

    await _save_in_editor(page, "lab/mine/cache.py", lab_samples.fifo_cache())
    await _save_in_editor(page, "lab/mine/router.py", lab_samples.router_without_overhead())
    seen["cache_chapter_on_fifo"] = await _chapter_on_mine(page, "04_the_cache.ipynb", "your_cache_panel")
    seen["simulator_chapter_on_mine"] = await _chapter_on_mine(page, "08_serving_simulator.ipynb",
                                                                "your_simulator_panel")


def test_the_lab_opens_with_your_copy_and_every_module_red_with_its_hint(lab_session, lab_folder):
    assert "lab/mine/versions.py" in lab_session["start"] and "lab/mine/errors.py" in lab_session["start"]
    assert lab_session["skeleton"] == _expected(run_contract_suite("lab.mine", root=lab_folder))
    assert [row[0] for row in lab_session["skeleton"]] == [f"{m}.py" for m in LAB_MODULES]
    assert all(row[1] == "✗ red" and "TODO(lab): implement" in row[3] for row in lab_session["skeleton"])


def test_versions_comparing_strings_is_red_with_the_suites_message_and_the_right_one_green(lab_session, lab_folder):
    lab_samples.write(lab_folder, "versions", lab_samples.VERSIONS_COMPARING_STRINGS)
    wrong = run_contract_suite("lab.mine", modules="versions", root=lab_folder)
    assert lab_session["strings"] == _expected(wrong)
    assert lab_session["strings"][0][1] == "✗ red" and "AssertionError: assert ('1', '10', '0')" in \
        lab_session["strings"][0][3]
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
    assert all(row[1] == "✓ green" and row[3] == "" for row in rows), rows
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
