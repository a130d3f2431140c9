"""Every exercise can be answered on its static page, with labcore's own verdict, or opened in Live.

One browser context (one reader), offline, one load per chapter page: on each page every exercise with a rule is
answered from the keyboard with each of its tested wrong answers and then its right answer (typed and Enter, or
a choice picked with the arrow keys and Enter); the verdict shown must be exactly what labcore's check prints for
that answer, and the right answer must raise the progress line's exercise count by one. The check cell's stored
"Not answered yet" output is not shown where the form is. Each code exercise has its Live link, to its own
notebook (or, in a build without the live site, says the live site is not part of it). Then: Tab reaches an exercise's input and its Check
button, nothing typed says what to do, axe-core finds nothing serious on a chapter page with forms, and at 390 px
the page does not scroll sideways. Last, the page's script judges some 670 answers (right, wrong, odd, malformed) by
every exported rule at once, each with labcore's exact message.
"""

from __future__ import annotations

import functools
import re

import pytest
from playwright.sync_api import expect

from coursebuild.lite.exercises import exercise_notebook_name
from labcore.chapters import EXERCISES
from labcore.checks.rules import ChoiceRule, ListRule
from tests.browser import browser_site as site
from tests.browser.test_browser_pages import axe_findings

pytestmark = pytest.mark.browser
#: exercises with a rule (judged in the page) and the ones that run code (opened in Live)
IN_PAGE = [e for e in EXERCISES if e.has_rule]
CODE = [e for e in EXERCISES if not e.has_rule]
PAGES = sorted({e.page for e in EXERCISES})
_OFFLINE = re.compile(r"^(?!https?://127\.0\.0\.1[:/]|data:|blob:|about:)")


@functools.cache
def _rule(label: str):  # noqa: ANN202
    """Exercise ``label``'s rule, made once, when a test first asks (some replay a chapter's runs); its grade function
    is that rule's verdict (tests/checks/test_rules.py)."""
    return next(e for e in EXERCISES if e.label == label).rule()


def _typed(answer) -> str:  # noqa: ANN001
    """What a reader types for ``answer``: a number as Python writes it, names separated by commas."""
    return ", ".join(answer) if isinstance(answer, list) else repr(answer) if not isinstance(answer, str) else answer


def _said(exercise, answer) -> str:  # noqa: ANN001
    """What labcore's check prints for ``answer`` (its grade's verdict, the rule made once)."""
    return _rule(exercise.label).verdict(answer).message


def _exercise_count(page) -> int:  # noqa: ANN001
    return int(page.locator(".course-progress").get_attribute("data-exercises"))


def _answer(page, exercise, answer) -> str:  # noqa: ANN001
    """Give ``answer`` to ``exercise``'s form with the keyboard; return the verdict shown."""
    form = page.locator(f"form.course-exercise[data-label='{exercise.label}']")
    if isinstance(_rule(exercise.label), ChoiceRule):
        radios = form.locator("input[type=radio]")
        values = [radios.nth(i).get_attribute("value") for i in range(radios.count())]
        checked = form.locator("input[type=radio]:checked")
        if checked.count():
            checked.focus()  # where Tab puts the focus in a group with a choice made
        else:
            radios.first.focus()
            page.keyboard.press("Space")  # selects the focused first option
        current = values.index(form.locator("input[type=radio]:checked").get_attribute("value"))
        for _ in range((values.index(answer) - current) % len(values)):
            page.keyboard.press("ArrowRight")
        assert form.locator("input[type=radio]:checked").get_attribute("value") == answer
        page.keyboard.press("Enter")
    else:
        box = form.locator("input[type=text]")
        box.focus()
        page.keyboard.press("Control+A")
        page.keyboard.press("Delete")
        page.keyboard.type(_typed(answer))
        page.keyboard.press("Enter")
    return form.locator(".course-exercise-verdict")


@pytest.fixture(scope="module")
def reader(built_site, browser, base_url):  # noqa: ANN001, ANN201
    """One reader's browser context, offline; yields (context, base URL)."""
    context = browser.new_context(service_workers="block", viewport={"width": 1280, "height": 900})
    context.route(_OFFLINE, lambda route: route.abort())
    try:
        yield context, base_url
    finally:
        context.close()


def _check_live_box(page, exercise) -> None:  # noqa: ANN001
    """A code exercise's box opens its own notebook in Live, or says the live site is not part of this build."""
    box = page.locator(f"section.course-exercise-code#course-exercise-{exercise.label.replace('.', '-')}")
    assert box.count() == 1, exercise.label
    link = box.locator("a.course-exercise-live-link")
    if (site.SITE / "lite").is_dir():
        own = exercise_notebook_name(exercise.label)  # the exercise with what it needs from its chapter
        assert link.get_attribute("href") == f"../lite/notebooks/index.html?path={own}"
        assert (site.SITE / "lite" / "notebooks" / "index.html").is_file()
        assert (site.SITE / "lite" / "files" / own).is_file()
        assert f"Open exercise {exercise.label} in Live" in link.inner_text()
    else:  # a build without the live site: no link that would lead nowhere
        assert link.count() == 0
        assert "not part of this build" in box.inner_text()


def test_every_exercise_gives_labcore_s_verdict_and_counts_when_right_or_opens_in_live(reader) -> None:  # noqa: ANN001

    context, base_url = reader
    page = context.new_page()
    answered = 0
    for name in PAGES:
        page.goto(f"{base_url}book/{name}.html")
        page.wait_for_selector(".course-progress")
        for exercise in (e for e in CODE if e.page == name):
            _check_live_box(page, exercise)
        ours = [e for e in IN_PAGE if e.page == name]
        assert page.locator("form.course-exercise").count() == len(ours), name
        for exercise in ours:
            form = page.locator(f"form.course-exercise[data-label='{exercise.label}']")
            cell = form.locator("xpath=preceding-sibling::div[contains(@class, 'cell')][1]")
            assert "course-exercise-cell" in cell.get_attribute("class"), exercise.label
            assert not cell.locator(".cell_output").is_visible(), f"{exercise.label}: the stored output shows"
            for wrong in exercise.wrong:
                expect(_answer(page, exercise, wrong)).to_have_text(_said(exercise, wrong))
            before = _exercise_count(page)
            expect(_answer(page, exercise, exercise.right)).to_have_text(_said(exercise, exercise.right))
            answered += 1
            page.wait_for_function(
                f"() => document.querySelector('.course-progress').dataset.exercises === '{before + 1}'"
            )
    assert answered == len(IN_PAGE) == _exercise_count(page)
    page.close()


def test_an_exercise_with_the_keyboard_alone_on_a_phone_and_for_a_screen_reader(reader) -> None:  # noqa: ANN001
    context, base_url = reader
    page = context.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{base_url}book/04_the_cache.html")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    exercise = next(e for e in IN_PAGE if e.label == "4.2")
    form = page.locator("form.course-exercise[data-label='4.2']")
    form.locator("xpath=preceding-sibling::p[1]").evaluate("p => { p.tabIndex = -1; p.focus(); }")
    for _ in range(10):  # from the exercise's paragraph, Tab until the answer box has the focus
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.id") == "course-exercise-4-2-answer":
            break
    box = form.get_by_role("textbox", name=re.compile(r"the load time of one miss \(ms\)"))
    assert box.evaluate("b => b === document.activeElement"), "Tab never reached the answer box"
    page.keyboard.press("Enter")
    verdict = form.get_by_role("status")
    assert verdict.inner_text() == "✗ Not answered yet: type your answer, the load time of one miss (ms)."
    page.keyboard.type(_typed(exercise.right))
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.textContent") == "Check"
    assert page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle") != "none"
    page.keyboard.press("Enter")
    assert verdict.inner_text() == _said(exercise, exercise.right)
    right = form.bounding_box()
    assert right["x"] >= 0 and right["x"] + right["width"] <= 390, right
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    page.set_viewport_size({"width": 1280, "height": 900})
    assert axe_findings(page) == {"light": [], "dark": []}
    page.close()


def _probes(exercise) -> list[tuple[str, object]]:  # noqa: ANN001
    """(what a reader types, the Python value a check cell would get) for many answers, right and wrong."""
    rule = _rule(exercise.label)
    if isinstance(rule, ChoiceRule):
        words = [*rule.options, "nothing", "none", "HOT", " Hold ", "xyz", "held", "'hold'", "cold@1.0.0", "it's"]
        return [(w, w) for w in words]
    if isinstance(rule, ListRule):
        lists = [exercise.right, *exercise.wrong, ["c", "a", "b"], ["x"], ["x", "y", "z"], ["b@1.0.0", "a", "c"]]
        return [(", ".join(names), names) for names in lists] + [("['b', 'a', 'c']", ["b", "a", "c"])]
    r = exercise.right
    numbers = [
        r,
        *exercise.wrong,
        1,
        0,
        -3,
        1234567,
        0.0001,
        1e7,
        1e-5,
        r * 1.5,
        r + 0.5,
        r * 1.003,
        r * 0.997,
        r * 1000,
        r / 1000,
    ]
    return [(repr(v), v) for v in numbers] + [("abc", "abc"), (f"5 {rule.unit}", 5), ("1,234", 1234)]


def test_the_page_judges_many_answers_as_labcore_does(reader) -> None:  # noqa: ANN001
    """The page's script, given each exported rule, judges right, wrong, odd and malformed answers with labcore's
    exact message (numbers as Python formats them, names as Python quotes them, "1 request" in the singular)."""
    context, base_url = reader
    page = context.new_page()
    page.goto(f"{base_url}book/04_the_cache.html")
    cases = [
        (e.label, _rule(e.label).to_json(), text, _rule(e.label).verdict(value).message)
        for e in IN_PAGE
        for text, value in _probes(e)
    ]
    shown = page.evaluate("cases => cases.map(c => window.courseExercises.judgeText(c[1], c[2]).message)", cases)
    differ = [(label, text, want, got) for (label, _, text, want), got in zip(cases, shown, strict=True) if got != want]
    assert not differ, f"{len(differ)} of {len(cases)} verdicts differ from labcore's: {differ[:5]}"
    assert len(cases) > 500
    page.close()
