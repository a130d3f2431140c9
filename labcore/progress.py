"""Remember a reader's progress in their browser: lab modules green, quizzes answered, exercises checked.

There is no server and no account: progress is one JSON object in the site's ``localStorage``
(under :data:`labcore.site.PROGRESS_KEY`), which the course's pages read to show "lab: 5 of 7
modules green; quizzes: 11 of 16" and forget with one button. The live site's kernel writes it by
displaying a small script (:func:`record`), which runs in the page that shows the notebook, the
same origin as the book's pages. Under any other kernel (JupyterLab, nbval) nothing is displayed,
so the book's stored outputs do not change.

Only what the learner did is stored: an exercise when ``check_<thing>`` checks an answer that is not
the exercise's placeholder (a solution cell prints ``grade_<thing>(...)``, which stores nothing, so
Run All stores no exercise), a lab module when the suite runs on the learner's ``lab/mine``
(:meth:`labcore.workbench.Workbench.run`; chapter 7's runs of the reference and the skeleton store
nothing), a quiz question when the learner's answer to it turns its feedback "correct"
(:func:`quiz_hook`).

Each entry carries the time it was made, and a script only replaces an older entry, and stores nothing
when it runs more than :data:`FRESH_MS` after its entries were made: reopening a notebook whose outputs
hold an earlier run neither undoes a later one nor stores it again.

>>> entry("lab", "versions", {"passed": 29, "total": 29}, at_ms=1)
{'kind': 'lab', 'key': 'versions', 'value': {'passed': 29, 'total': 29}, 'at': 1}
>>> "localStorage" in script([entry("lab", "versions", {"passed": 29, "total": 29}, at_ms=1)])
True
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

from ._validate import choice, count, text
from .site import PROGRESS_KEY

__all__ = [
    "KINDS",
    "FRESH_MS",
    "entry",
    "script",
    "record",
    "record_lab",
    "record_exercise",
    "exercise_key",
    "quiz_hook",
    "in_browser_kernel",
]

#: What progress holds: lab modules (``{"passed", "total"}``), quizzes (``{"correct": [...], "total"}``),
#: exercises (``{"ok": bool}``).
KINDS: tuple[str, ...] = ("lab", "quizzes", "exercises")

#: How soon after its entries were made a script stores them (ms): JupyterLab shows a reopened notebook's trusted
#: outputs again, and an output left from an earlier session must not store its entries a second time.
FRESH_MS = 120_000

#: Merge fresh entries into the stored object, keeping the newer of two entries for the same key; then tell the page.
_MERGE_JS = """(function (entries) {
  var key = %s, stored = {};
  if (!entries.every(function (e) { return Date.now() - e.at < %d; })) { return; }
  try { stored = JSON.parse(window.localStorage.getItem(key) || "{}") || {}; } catch (e) { stored = {}; }
  entries.forEach(function (e) {
    var kind = stored[e.kind] = stored[e.kind] || {};
    if (!kind[e.key] || !(kind[e.key].at > e.at)) { kind[e.key] = Object.assign({}, e.value, {at: e.at}); }
  });
  try { window.localStorage.setItem(key, JSON.stringify(stored)); } catch (e) { return; }
  window.dispatchEvent(new CustomEvent("course-progress"));
})(%s);"""


def in_browser_kernel() -> bool:
    """Tell whether this Python runs in the browser (the live site's Pyodide kernel)."""
    return sys.platform == "emscripten"


def entry(kind: str, key: str, value: Mapping[str, Any], *, at_ms: int | None = None) -> dict[str, Any]:
    """Return one progress entry: its kind, key, value and the time it was made (ms since the epoch)."""
    choice("kind", kind, KINDS)
    text("key", key)
    return {
        "kind": kind,
        "key": key,
        "value": dict(value),
        "at": int(time.time() * 1000) if at_ms is None else at_ms,
    }  # ordering only, never a measurement


def script(entries: Sequence[Mapping[str, Any]]) -> str:
    """Return the JavaScript that merges ``entries`` into the page's stored progress."""
    return _MERGE_JS % (json.dumps(PROGRESS_KEY), FRESH_MS, json.dumps(list(entries), separators=(",", ":")))


def record(entries: Sequence[Mapping[str, Any]]) -> bool:
    """Store ``entries`` in the browser when this is the live site's kernel; return whether a script was displayed."""
    if not entries or not in_browser_kernel():
        return False
    from IPython.display import Javascript, display  # IPython: only in a kernel, which the live site always has

    display(Javascript(script(entries)))
    return True


def record_lab(run: Any) -> bool:
    """Store each module line of a contract run (``passed`` of ``total``) as lab progress; see :func:`record`."""
    return record([entry("lab", m.module, {"passed": m.passed, "total": m.total}) for m in run.modules])


def exercise_key(check: str, kwargs: Mapping[str, Any]) -> str:
    """Return the key an exercise's check is stored under: the check's name and its arguments beyond the answer.

    >>> exercise_key("grade_fleet_gpus", {"tenants": 200, "tenant_qps": 0.3})
    'grade_fleet_gpus(tenant_qps=0.3, tenants=200)'
    """
    text("check", check)
    return f"{check}({', '.join(f'{k}={v!r}' for k, v in sorted(kwargs.items()))})"


def record_exercise(check: str, kwargs: Mapping[str, Any], ok: bool) -> bool:
    """Store whether an exercise's answer was right (see :func:`exercise_key`, :func:`record`)."""
    return record([entry("exercises", exercise_key(check, kwargs), {"ok": bool(ok)})])


#: Watch one quiz on the page: each question whose feedback turns "correct" is added to the stored set (never removed).
_QUIZ_JS = """(function (quizId, name, total) {
  var key = %s;
  var box = document.getElementById(quizId);
  if (!box || !window.MutationObserver) { return; }
  function save() {
    var right = [];
    box.querySelectorAll(".Feedback.correct").forEach(function (fb) {
      var wrap = fb.closest("[data-qnum]");
      if (wrap) { right.push(Number(wrap.dataset.qnum)); }
    });
    if (!right.length) { return; }
    var stored = {};
    try { stored = JSON.parse(window.localStorage.getItem(key) || "{}") || {}; } catch (e) { stored = {}; }
    var quizzes = stored.quizzes = stored.quizzes || {};
    var before = (quizzes[name] && quizzes[name].correct) || [];
    var all = before.concat(right).filter(function (q, i, a) { return a.indexOf(q) === i; })
      .sort(function (a, b) { return a - b; });
    if (all.length === before.length) { return; }
    quizzes[name] = {correct: all, total: total, at: Date.now()};
    try { window.localStorage.setItem(key, JSON.stringify(stored)); } catch (e) { return; }
    window.dispatchEvent(new CustomEvent("course-progress"));
  }
  new MutationObserver(save).observe(box, {subtree: true, attributes: true, attributeFilter: ["class"]});
})(%s, %s, %d);"""


def quiz_hook(container_id: str, name: str, total: int) -> str:
    """Return the JavaScript that stores which questions of quiz ``name`` (in element ``container_id``) were answered right.

    It runs wherever the quiz does (the book's page, a deck, the live site) and needs no kernel.
    """
    text("container_id", container_id)
    text("name", name)
    return _QUIZ_JS % (json.dumps(PROGRESS_KEY), json.dumps(container_id), json.dumps(name), count("total", total))
