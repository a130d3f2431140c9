"""Show a contract run as the lab's table: each module green or red, and for a red one what to do next.

A red module's line says which tests fail and how many (the first :data:`NAMES_SHOWN` by name), the first
failure's message, and the one line that runs only that module: in a notebook and in a terminal. As text
(:func:`table_text`), as HTML (:func:`table_html`, a run's display in a notebook or on a page), and as the
live lab's display, :class:`FreshTable`, which shows the table only in the page that ran it: JupyterLab saves
the lab notebook with its outputs, and a table read back from storage would show files as they were then.

>>> from labcore.contract import ContractRun, TestOutcome
>>> failed = TestOutcome("tests/contract/test_cache.py::test_b", "failed", "assert 1 == 2")
>>> run = ContractRun("lab.mine", None, (failed,))
>>> print(table_text(run))
cache  red    0/1  assert 1 == 2
       1 failing: test_b
       run only this module: run_contract_suite("lab.mine", modules="cache")
                         or: LAB_MODULE=lab.mine pytest tests/contract/test_cache.py
"""

from __future__ import annotations

import html
import json
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a cycle: contract displays its runs with this module
    from .contract import ContractRun, ModuleStatus

__all__ = ["NAMES_SHOWN", "STALE_MESSAGE", "failing_line", "table_text", "table_html", "FreshTable"]

#: how many failing tests a red line names (then "and N more")
NAMES_SHOWN = 8
#: what the live lab shows in place of a table made before the page was opened (or not trusted to run)
STALE_MESSAGE = "Run this cell to see where your modules stand."
_CELL = 'style="text-align:left;overflow-wrap:anywhere"'


def failing_line(status: ModuleStatus) -> str:
    """Return how many tests of a module fail and the first :data:`NAMES_SHOWN` names ("" for a green module)."""
    if not status.failing:
        return ""
    names = ", ".join(status.failing[:NAMES_SHOWN])
    more = len(status.failing) - NAMES_SHOWN
    return f"{len(status.failing)} failing: {names}" + (f" and {more} more" if more > 0 else "")


def table_text(run: ContractRun) -> str:
    """Return the table as plain text: one line per module, and three more under a red one."""
    width = max((len(m.module) for m in run.modules), default=0)
    lines = []
    for m in run.modules:
        line = f"{m.module:<{width}}  {'green' if m.green else 'red  '}  {m.passed}/{m.total}"
        lines.append(line + (f"  {m.first_failure}" if m.first_failure else ""))
        if not m.green:
            pad = " " * (width + 2)
            lines += [
                pad + failing_line(m),
                f"{pad}run only this module: {m.notebook_command}",
                f"{pad}                  or: {m.shell_command}",
            ]
    return "\n".join(line.rstrip() for line in lines)


def _detail(m: ModuleStatus) -> str:
    """Return the HTML of a red module's second row: failing tests, first failure, the commands."""
    parts = []
    if m.failing:
        parts.append(f"<strong>{html.escape(failing_line(m))}</strong>")
    if m.first_failure:
        parts.append(f"First failure: <code>{html.escape(m.first_failure)}</code>")
    parts.append(
        f"Run only this module: <code>{html.escape(m.notebook_command)}</code> in a notebook, "
        f"<code>{html.escape(m.shell_command)}</code> in a terminal"
    )
    return f'<tr class="lab-detail"><td colspan="3" {_CELL}>' + "<br>".join(parts) + "</td></tr>"


def table_html(run: ContractRun) -> str:
    """Return the table as HTML: module, status, passed/total; under a red module, a row with what to do next.

    Three narrow columns and a full-width row for the long text, so it reads on a 390 px phone.
    """
    rows = []
    for m in run.modules:
        status = "✓ green" if m.green else "✗ red"
        colour = "#1a7f37" if m.green else "#b42318"
        rows.append(
            f'<tr class="lab-module"><td><code>{m.module}.py</code></td>'
            f'<td style="color:{colour};font-weight:bold">{status}</td><td>{m.passed}/{m.total}</td></tr>'
        )
        if not m.green:
            rows.append(_detail(m))
    caption = html.escape(str(run))
    return (
        '<table class="lab-status" style="max-width:100%"><caption>' + caption + "</caption><thead><tr>"
        '<th scope="col">module</th><th scope="col">status</th><th scope="col">passed</th></tr></thead>'
        "<tbody>" + "".join(rows) + "</tbody></table>"
    )


class FreshTable:
    """A run's table for the live lab notebook: shown in the page that ran it, :data:`STALE_MESSAGE` anywhere else.

    The display is a script (``application/javascript``) that writes the table only if the kernel made it after
    the page was opened (the kernel and the page read the same clock), and a plain-text fallback, the message,
    which JupyterLab shows for an output it does not trust (one read back from a saved notebook).

    >>> from labcore.contract import ContractRun
    >>> bundle = FreshTable(ContractRun("lab.mine", None, ()), made_ms=0)._repr_mimebundle_()
    >>> bundle["text/plain"] == STALE_MESSAGE, "performance.timeOrigin" in bundle["application/javascript"]
    (True, True)
    >>> sorted(bundle)  # no text/html: JupyterLab would show that, sanitized, even where it does not trust the output
    ['application/javascript', 'text/plain']
    """

    def __init__(self, run: ContractRun, *, made_ms: float | None = None) -> None:
        self.run = run
        self.made_ms = time.time() * 1000 if made_ms is None else made_ms

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, str]:
        script = (
            "(function (el) {\n"
            f"  var madeMs = {self.made_ms:.0f};  // when the kernel made this table\n"
            "  if (madeMs < performance.timeOrigin) {  // before this page was opened: a saved, stale table\n"
            f"    el.textContent = {json.dumps(STALE_MESSAGE)};\n"
            "    return;\n"
            "  }\n"
            f"  el.innerHTML = {json.dumps(table_html(self.run), ensure_ascii=False)};\n"
            "})(element);\n"
        )
        return {"application/javascript": script, "text/plain": STALE_MESSAGE}

    def __repr__(self) -> str:
        return f"FreshTable({self.run})"
