"""labcore.progress: entries, the merge script (run in Node against a stand-in localStorage), nothing outside a browser."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from labcore import progress
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
    out = subprocess.run(["node", "-e", NODE_HARNESS % json.dumps(PROGRESS_KEY), json.dumps(list(scripts))],
                         capture_output=True, text=True, check=True, timeout=60)
    return json.loads(out.stdout)


def test_a_newer_entry_replaces_an_older_one_and_never_the_reverse():
    old = progress.script([progress.entry("lab", "versions", {"passed": 3, "total": 29}, at_ms=100)])
    new = progress.script([progress.entry("lab", "versions", {"passed": 29, "total": 29}, at_ms=200),
                           progress.entry("lab", "cache", {"passed": 1, "total": 17}, at_ms=200)])
    result = _run_in_node(new, old)  # an older output (a reopened notebook) runs after a newer one
    assert result["stored"]["lab"] == {"versions": {"passed": 29, "total": 29, "at": 200},
                                       "cache": {"passed": 1, "total": 17, "at": 200}}
    assert result["events"] == 2  # the page is told each time (its progress line redraws)


def test_kinds_are_kept_apart():
    result = _run_in_node(progress.script([progress.entry("exercises", "grade_x()", {"ok": True}, at_ms=1)]),
                          progress.script([progress.entry("lab", "fleet", {"passed": 9, "total": 9}, at_ms=2)]))
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
