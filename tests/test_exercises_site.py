"""coursebuild.exercises_site: each exercise's box carries its labcore rule and progress key, or a way to Live."""

from __future__ import annotations

import html
import json
import re

import pytest

from coursebuild.exercises_site import exercise_data, exercise_html, exercise_live_href, live_href
from labcore.chapters import EXERCISES
from labcore.checks.rules import rule_from_json
from labcore.site import PROGRESS_KEY

_DATA = re.compile(r'<script type="application/json" class="course-exercise-data">(.*?)</script>', re.S)


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.label)
def test_a_box_carries_the_rule_of_its_check_or_leads_to_live(exercise):
    href = live_href(exercise.page, f"book/{exercise.page}")
    box = exercise_html(exercise, live_href=href)
    exported = exercise_data(exercise.label)["rule"]  # made once per exercise, as in a build
    if exported is None:
        assert exercise.kind in ("code", "predict") and callable(exercise.right) or isinstance(exercise.right, dict)
        assert "<form" not in box and f'href="{html.escape(href)}"' in box
        assert f"Exercise {exercise.label}" in box
        assert "not part of this build" in exercise_html(exercise, live_href=None)
        return
    data = json.loads(_DATA.search(box)[1].replace("<\\/", "</"))
    assert data["key"] == exercise.key and data["storage"] == PROGRESS_KEY and data["label"] == exercise.label
    rule = rule_from_json(data["rule"])
    assert rule.verdict(exercise.right).ok and not any(rule.verdict(w).ok for w in exercise.wrong)
    assert 'role="status"' in box and "Check</button>" in box
    if data["rule"]["kind"] == "choice":
        assert re.findall(r'type="radio" name="[^"]+" value="([^"]+)"', box) == list(rule.options)
    else:
        ident = "course-exercise-" + exercise.label.replace(".", "-") + "-answer"
        assert f'<label class="course-exercise-label" for="{ident}">' in box and f'id="{ident}"' in box


def test_a_code_exercise_s_box_opens_its_own_notebook():
    href = exercise_live_href("7.2", "book/07_do_the_lab")
    assert href == "../lite/notebooks/index.html?path=exercise_7_2.ipynb"
    box = exercise_html(next(e for e in EXERCISES if e.label == "7.2"), live_href=href)
    assert f'<a class="course-exercise-live-link" href="{href}">Open exercise 7.2 in Live</a>' in box


def test_the_live_address_is_relative_to_the_page():
    assert live_href("04_the_cache", "book/04_the_cache") == "../lite/notebooks/index.html?path=04_the_cache.ipynb"
    assert live_href("04_the_cache", "index") == "lite/notebooks/index.html?path=04_the_cache.ipynb"
