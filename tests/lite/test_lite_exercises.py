"""In the live site, an exercise's own notebook (the static page's "Open exercise 3.1 in Live") runs on its own.

The reader's path from the static page's button: ``exercise_3_1.ipynb`` opens offline in Chromium, Run All with
nothing typed: every code cell runs, the check prints its ✗ verdict and the browser's progress stays empty. Then
the learner's answer (the exercise record's right function, put in place of the placeholder) runs with
Shift+Enter: the cell says ✓ and exactly that exercise is stored, right. Last, the notebook's link back to the
chapter opens chapter 3 in Live.
"""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from coursebuild.lite.exercises import exercise_notebook_name
from labcore.chapters import EXERCISES
from labcore.site import PROGRESS_KEY

from ._pages import code_cells, launch, run_notebook, visible_code_cells

pytestmark = [pytest.mark.lite, pytest.mark.browser]

EXERCISE = next(e for e in EXERCISES if e.label == "3.1")
NOTEBOOK = exercise_notebook_name(EXERCISE.label)
STORED = f"() => JSON.parse(window.localStorage.getItem({json.dumps(PROGRESS_KEY)}) || '{{}}')"
CHECK_CALL = "check_version_key(my_key)"


async def _answer(page, run) -> None:  # noqa: ANN001
    run.live["after_run_all"] = await page.evaluate(STORED)
    run.live["links"] = await page.locator(".jp-MarkdownOutput a").evaluate_all("els => els.map(e => e.href)")
    cell = page.locator(".jp-CodeCell", has=page.locator(".cm-content", has_text=CHECK_CALL)).first
    run.live["placeholder"] = await cell.locator(".jp-OutputArea-output").first.inner_text()
    source = (await cell.locator(".cm-content").inner_text()).replace(
        CHECK_CALL,
        f"from labcore.chapters import EXERCISES\nmy_key = next(e.right for e in EXERCISES if e.label "
        f"== {EXERCISE.label!r})\n{CHECK_CALL}",
    )
    await cell.locator(".cm-content").click()
    await page.keyboard.press("Control+a")
    await page.keyboard.insert_text(source)
    await page.keyboard.press("Shift+Enter")
    output = cell.locator(".jp-OutputArea-output", has_text=re.compile("✓"))
    await output.first.wait_for(timeout=60_000)
    run.live["verdict"] = await output.first.inner_text()
    await page.wait_for_function(f"() => ({STORED})().exercises !== undefined", timeout=30_000)
    run.live["after_answer"] = await page.evaluate(STORED)
    back = page.locator(".jp-MarkdownOutput a", has_text=f"open chapter {EXERCISE.label.split('.')[0]} in Live")
    async with page.context.expect_page(timeout=30_000) as opened:  # the notebook app opens a notebook in a new tab
        await back.click()
    chapter = await opened.value
    await chapter.locator(".jp-CodeCell").first.wait_for(timeout=90_000)
    run.live["back"] = chapter.url
    await chapter.close()


@pytest.fixture(scope="module")
def exercise_run(server, lite_site, tmp_path_factory):
    from playwright.async_api import async_playwright

    files = lite_site / "lite" / "files"

    async def main():
        async with async_playwright() as pw:
            browser = await launch(pw, tmp_path_factory.mktemp("profile"))
            run = await run_notebook(
                browser,
                server,
                NOTEBOOK,
                visible_code_cells(files / NOTEBOOK),
                n_total=code_cells(files / NOTEBOOK),
                move=_answer,
            )
            await browser.close()
            return run

    return asyncio.run(main())


def test_the_exercise_notebook_runs_alone_and_the_answer_stores_itself(exercise_run) -> None:  # noqa: ANN001
    run = exercise_run
    assert run.failure is None, f"{run.failure}\n{chr(10).join(run.outputs)[-3000:]}"
    assert run.unrun == 0 and not run.stderr and not run.blocked, (run.unrun, run.stderr, run.blocked)
    assert run.live["placeholder"].startswith("✗"), run.live["placeholder"]
    assert run.live["after_run_all"] == {}, run.live["after_run_all"]
    assert any(href.endswith(f"{EXERCISE.page}.ipynb") for href in run.live["links"]), run.live["links"]
    assert run.live["back"].endswith(f"/lite/notebooks/index.html?path={EXERCISE.page}.ipynb"), run.live["back"]
    assert run.live["verdict"].startswith("✓"), run.live["verdict"]
    stored = run.live["after_answer"]
    assert set(stored) == {"exercises"} and list(stored["exercises"]) == [EXERCISE.key], stored
    assert stored["exercises"][EXERCISE.key]["ok"] is True
