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


def test_the_lab_keeps_its_progress_in_the_browser_and_stays_offline(lab_session):
    import json

    stored = json.loads(lab_session["storage"])["lab"]
    assert sorted(stored) == sorted(LAB_MODULES) and all(v["passed"] == v["total"] > 0 for v in stored.values())
    skeleton = json.loads(lab_session["storage_after_skeleton"])["lab"]
    assert all(v["passed"] == 0 for v in skeleton.values())
    assert lab_session["errors"] == [] and all(is_local(url) for url in lab_session["requests"])
