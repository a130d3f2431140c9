"""labcore.progress: entries, the merge script (run in Node against a stand-in localStorage), nothing outside a browser;
only a check of the learner's own answer stores an exercise (a placeholder or a solution's grade stores nothing)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time

import pytest

from labcore import progress
from labcore.chapters import EXERCISES
from labcore.checks import check_lru_evictions, grade_lru_evictions
from labcore.checks.verdict import UNANSWERED
from labcore.contract import ContractRun, TestOutcome
from labcore.site import PROGRESS_KEY

NODE_HARNESS = """
const store = {};
global.window = {
  localStorage: { getItem: k => (k in store ? store[k] : null), setItem: (k, v) => { store[k] = String(v); } },
  dispatchEvent: () => { window.events = (window.events || 0) + 1; },
};
global.CustomEvent = class { constructor(name) { this.name = name; } };
for (const script of JSON.parse(process.argv[1])) { eval(script); }
console.log(JSON.stringify({ stored: JSON.parse(store[%s] || "{}"), events: window.events || 0 }));
"""


def _run_in_node(*scripts: str) -> dict:
    if shutil.which("node") is None:
        pytest.skip("node is missing")
    out = subprocess.run(
        ["node", "-e", NODE_HARNESS % json.dumps(PROGRESS_KEY), json.dumps(list(scripts))],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return json.loads(out.stdout)


def _ms_ago(ms: int) -> int:
    return int(time.time() * 1000) - ms


def test_a_newer_entry_replaces_an_older_one_and_never_the_reverse():
    older, newer = _ms_ago(2000), _ms_ago(1000)
    old = progress.script([progress.entry("lab", "versions", {"passed": 3, "total": 29}, at_ms=older)])
    new = progress.script(
        [
            progress.entry("lab", "versions", {"passed": 29, "total": 29}, at_ms=newer),
            progress.entry("lab", "cache", {"passed": 1, "total": 17}, at_ms=newer),
        ]
    )
    result = _run_in_node(new, old)  # an older output runs after a newer one
    assert result["stored"]["lab"] == {
        "versions": {"passed": 29, "total": 29, "at": newer},
        "cache": {"passed": 1, "total": 17, "at": newer},
    }
    assert result["events"] == 2  # the page is told each time (its progress line redraws)


def test_an_output_from_an_earlier_session_stores_nothing():
    stale = progress.script(
        [progress.entry("exercises", "grade_x()", {"ok": True}, at_ms=_ms_ago(progress.FRESH_MS + 1000))]
    )
    fresh = progress.script([progress.entry("lab", "fleet", {"passed": 9, "total": 9}, at_ms=_ms_ago(10))])
    result = _run_in_node(stale, fresh)  # a reopened notebook shows its stored script again, then a new run
    assert result["stored"] == {
        "lab": {"fleet": {"passed": 9, "total": 9, "at": result["stored"]["lab"]["fleet"]["at"]}}
    }
    assert result["events"] == 1


def test_kinds_are_kept_apart():
    result = _run_in_node(
        progress.script([progress.entry("exercises", "grade_x()", {"ok": True}, at_ms=_ms_ago(2))]),
        progress.script([progress.entry("lab", "fleet", {"passed": 9, "total": 9}, at_ms=_ms_ago(1))]),
    )
    assert set(result["stored"]) == {"exercises", "lab"}


def test_outside_the_browser_nothing_is_displayed():
    run = ContractRun("lab.mine", None, (TestOutcome("tests/contract/test_fleet.py::t", "passed"),))
    assert progress.in_browser_kernel() is False
    assert progress.record_lab(run) is False and progress.record_exercise("grade_x", {}, True) is False


@pytest.mark.parametrize("kind, key", [("lab ", "versions"), ("quiz", "x"), ("lab", ""), ("lab", None)])
def test_bad_entries_are_refused_naming_the_value(kind, key):
    with pytest.raises(ValueError) as info:
        progress.entry(kind, key, {})
    assert repr(kind if kind not in progress.KINDS else key) in str(info.value)


def test_exercise_keys_do_not_depend_on_argument_order():
    assert progress.exercise_key("g", {"b": 1, "a": 2}) == progress.exercise_key("g", {"a": 2, "b": 1}) == "g(a=2, b=1)"


def test_the_quiz_hook_names_its_quiz_and_container():
    hook = progress.quiz_hook("abcdefghijkl", "cache", 6)
    assert '"abcdefghijkl"' in hook and '"cache"' in hook and hook.rstrip().endswith(", 6);")
    with pytest.raises(ValueError):
        progress.quiz_hook("abc", "cache", 0)


@pytest.fixture
def live_kernel(monkeypatch):
    """What labcore.progress displays, as if this were the live site's kernel: the list of scripts shown."""
    shown = []
    monkeypatch.setattr(progress, "in_browser_kernel", lambda: True)
    monkeypatch.setattr("IPython.display.display", shown.append)
    return shown


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.label)
def test_a_placeholder_is_not_an_answer_and_every_answer_is(exercise):
    assert not exercise.verdict(None).answered and not exercise.verdict(None).ok
    assert all(exercise.verdict(a).answered for a in (exercise.right, *exercise.wrong))


def test_only_the_check_of_an_answer_stores_it_grading_stores_nothing(live_kernel, capsys):
    check_lru_evictions(None)  # the exercise cell as the page gives it
    print(grade_lru_evictions(["b", "a", "c"]))  # a solution cell
    assert live_kernel == []
    check_lru_evictions(["a", "b"])  # the learner's answer, wrong, then right
    check_lru_evictions(["b", "a", "c"])
    stored = [json.loads(re.search(r"\}\)\((\[.*\])\);\s*\Z", s.data, re.S)[1]) for s in live_kernel]
    assert [(e["key"], e["value"]) for (e,) in stored] == [
        ("grade_lru_evictions()", {"ok": False}),
        ("grade_lru_evictions()", {"ok": True}),
    ]
    printed = capsys.readouterr().out.splitlines()
    assert (
        printed[0].startswith(UNANSWERED) and printed[1] == printed[3] == grade_lru_evictions(["b", "a", "c"]).message
    )
