"""The reader's progress is kept in their browser, shown at the top of the pages, and forgotten with one button.

One browser context (the reader's one browser), offline: a fresh landing page shows zeros; chapter 4's quiz, shown
and not yet clicked, stores nothing; answered right, it counts at once on its page; what the live kernel records for a finished lab (the very script
``labcore.progress`` displays there) and for an exercise checked right shows on the landing page, survives a
reload, and "Forget my progress" (after its confirmation) brings everything back to zero, for good.
"""

from __future__ import annotations

import re

from labcore import progress
from labcore.chapters import EXERCISES
from labcore.contract import LAB_MODULES
from labcore.quizzes import QUIZZES, MultipleChoice

LINE = ".course-progress-counts"


def _counts(page) -> tuple[int, int, int]:  # noqa: ANN001
    box = page.locator(".course-progress")
    return tuple(int(box.get_attribute(f"data-{kind}")) for kind in ("lab", "quizzes", "exercises"))


def _answer_right(page, quiz) -> None:  # noqa: ANN001
    """Give every question of ``quiz`` on the page its right answer, as a reader would (click, or type and Enter)."""
    page.wait_for_selector(".Quiz")
    for wrapper in page.locator(".Quiz").all():
        text = wrapper.locator("[id^=quizQn]").inner_text()
        question = next(q for q in quiz.questions if q.question in text)
        if isinstance(question, MultipleChoice):
            right = next(c.text for c in question.choices if c.correct)
            wrapper.locator(".MCButton", has_text=right).first.click()
        else:
            box = wrapper.locator("input.Input-text")
            box.fill(repr(question.answer))
            box.press("Enter")


def test_progress_is_kept_shown_and_forgotten(built_site, browser, base_url) -> None:  # noqa: ANN001
    context = browser.new_context(service_workers="block")
    context.route(re.compile(r"^(?!https?://127\.0\.0\.1[:/]|data:|blob:|about:)"), lambda route: route.abort())
    page = context.new_page()
    try:
        page.goto(base_url + "book/index.html")
        assert _counts(page) == (0, 0, 0)
        total = len(QUIZZES)
        assert page.locator(LINE).inner_text() == (
            f"lab: 0 of {len(LAB_MODULES)} modules green; quizzes: 0 of "
            f"{total} answered right; exercises: 0 of {len(EXERCISES)} "
            "checked right"
        )

        page.goto(base_url + "book/04_the_cache.html")
        page.wait_for_selector(".Quiz .MCButton")
        assert _counts(page) == (0, 0, 0), "a quiz shown, nothing clicked, stores nothing"
        _answer_right(page, QUIZZES["cache_quiz"]())
        page.wait_for_function("() => document.querySelector('.course-progress').dataset.quizzes === '1'")

        finished = [progress.entry("lab", m, {"passed": 3, "total": 3}) for m in LAB_MODULES]
        page.evaluate(progress.script(finished))  # what the live lab notebook displays after a green run
        if EXERCISES:
            page.evaluate(progress.script([progress.entry("exercises", EXERCISES[0].key, {"ok": True})]))
        page.goto(base_url + "book/index.html")
        shown = (len(LAB_MODULES), 1, 1 if EXERCISES else 0)
        assert _counts(page) == shown
        page.reload()
        assert _counts(page) == shown, "progress must survive a reload"

        button = page.get_by_role("button", name="Forget my progress")
        page.once("dialog", lambda dialog: dialog.dismiss())
        button.click()
        assert _counts(page) == shown, "dismissing the confirmation keeps the progress"
        page.once("dialog", lambda dialog: dialog.accept())
        button.click()
        assert _counts(page) == (0, 0, 0)
        assert "Forgotten" in page.locator(".course-progress-status").inner_text()
        page.reload()
        assert _counts(page) == (0, 0, 0)
    finally:
        context.close()
