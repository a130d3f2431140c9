"""In the live site, Run All in chapter 4 stores no exercise; the learner's own answer to exercise 4.2 stores itself.

Chapter 4 opens offline in Chromium and runs with Run All (its folded solutions included), nothing typed: the
progress the site keeps in the browser (``localStorage``, :mod:`labcore.progress`) holds no exercise, no lab
module and no quiz. Then the learner types the answer into exercise 4.2's cell (whose ``EXACT_MB`` a shown cell
above defines) and runs it with Shift+Enter: the cell says "✓ Correct" and exactly that exercise is stored, right.
"""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from labcore.chapters import EXERCISES
from labcore.site import PROGRESS_KEY

from ._pages import code_cells, launch, run_notebook, visible_code_cells

pytestmark = [pytest.mark.lite, pytest.mark.browser]

CHAPTER = "04_the_cache.ipynb"
EXERCISE = next(e for e in EXERCISES if e.label == "4.2")
STORED = f"() => JSON.parse(window.localStorage.getItem({json.dumps(PROGRESS_KEY)}) || '{{}}')"


async def _answer_4_2(page, run) -> None:  # noqa: ANN001
    run.live["after_run_all"] = await page.evaluate(STORED)
    cell = page.locator(".jp-CodeCell", has=page.locator(".cm-content", has_text="check_miss_load_ms(answer")).first
    source = (await cell.locator(".cm-content").inner_text()).replace("answer = None", f"answer = {EXERCISE.right!r}")
    await cell.locator(".cm-content").click()
    await page.keyboard.press("Control+a")
    await page.keyboard.insert_text(source)  # as typed (pasted): no auto-closed brackets
    await page.keyboard.press("Shift+Enter")
    output = cell.locator(".jp-OutputArea-output", has_text=re.compile("✓|✗"))
    await output.first.wait_for(timeout=60_000)
    run.live["verdict"] = await output.first.inner_text()
    await page.wait_for_function(f"() => ({STORED})().exercises !== undefined", timeout=30_000)
    run.live["after_answer"] = await page.evaluate(STORED)


@pytest.fixture(scope="module")
def chapter_4(server, lite_site, tmp_path_factory):
    from playwright.async_api import async_playwright

    files = lite_site / "lite" / "files"

    async def main():
        async with async_playwright() as pw:
            browser = await launch(pw, tmp_path_factory.mktemp("profile"))
            run = await run_notebook(
                browser,
                server,
                CHAPTER,
                visible_code_cells(files / CHAPTER),
                n_total=code_cells(files / CHAPTER),
                move=_answer_4_2,
            )
            await browser.close()
            return run

    return asyncio.run(main())


def test_run_all_stores_nothing_and_the_learners_answer_stores_itself(chapter_4) -> None:  # noqa: ANN001
    run = chapter_4
    assert run.failure is None, f"{run.failure}\n{chr(10).join(run.outputs)[-3000:]}"
    assert run.live["after_run_all"] == {}, run.live["after_run_all"]
    assert run.live["verdict"].startswith("✓ Correct"), run.live["verdict"]
    stored = run.live["after_answer"]
    assert set(stored) == {"exercises"} and list(stored["exercises"]) == [EXERCISE.key], stored
    assert stored["exercises"][EXERCISE.key]["ok"] is True
