"""The lab's table: what one run of the contract suite found, and how it shows.

The records: each test's :class:`TestOutcome`, each lab module's line (:class:`ModuleStatus`, in the dependency
order of :data:`LAB_MODULES`) and the whole :class:`ContractRun`; :mod:`labcore.contract` runs the suite and
returns one. A red module's line says which tests fail and how many (the first :data:`NAMES_SHOWN` by name), the
first failure's message, and the one line that runs only that module: in a notebook and in a terminal. As text
(:func:`table_text`), as HTML (:func:`table_html`, a run's display in a notebook or on a page), and as the
live lab's display, :class:`FreshTable`, which shows the table only in the page that ran it: JupyterLab saves
the lab notebook with its outputs, and a table read back from storage would show files as they were then.

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
from dataclasses import dataclass

from ._validate import choice, text

__all__ = [
    "LAB_MODULES",
    "CONTRACT_DIR",
    "OUTCOMES",
    "TestOutcome",
    "ModuleStatus",
    "ContractRun",
    "NAMES_SHOWN",
    "STALE_MESSAGE",
    "failing_line",
    "table_text",
    "table_html",
    "FreshTable",
]

#: The modules the learner writes, in the order they depend on each other (each has ``tests/contract/test_<name>.py``).
LAB_MODULES: tuple[str, ...] = ("versions", "sizing", "adapter", "registry", "cache", "router", "fleet")
#: Where the suite lives, relative to the folder that holds it (the repository, the download, the live site).
CONTRACT_DIR = "tests/contract"
OUTCOMES: tuple[str, ...] = ("passed", "failed", "error", "skipped")

#: how many failing tests a red line names (then "and N more")
NAMES_SHOWN = 8
#: what the live lab shows in place of a table made before the page was opened (or not trusted to run)
STALE_MESSAGE = "Run this cell to see where your modules stand."
_CELL = 'style="text-align:left;overflow-wrap:anywhere"'


@dataclass(frozen=True, slots=True)
class TestOutcome:
    """One contract test's result: its id, ``passed``/``failed``/``error``/``skipped``, and the first failure line."""

    __test__ = False  # a record, not a test class for pytest to collect

    nodeid: str
    outcome: str
    message: str | None = None

    def __post_init__(self) -> None:
        text("nodeid", self.nodeid)
        choice("outcome", self.outcome, OUTCOMES)

    @property
    def name(self) -> str:
        """Return the test's name within its file (``test_x`` or ``test_x[case]``)."""
        return self.nodeid.split("::", 1)[-1]

    @property
    def module(self) -> str:
        """Return the lab module this test belongs to (``test_<module>.py``), or ``""`` for a file outside the map."""
        name = self.nodeid.split("::", 1)[0].rsplit("/", 1)[-1]
        module = name.removeprefix("test_").removesuffix(".py")
        return module if module in LAB_MODULES else ""


@dataclass(frozen=True, slots=True)
class ModuleStatus:
    """One module's line of the lab table: tests passed of tests run, the failing tests' names, the first failure.

    >>> line = ModuleStatus("registry", 12, 14, "assert 1 == 2", ("test_a", "test_b"), "lab.mine")
    >>> line.notebook_command
    'run_contract_suite("lab.mine", modules="registry")'
    >>> line.shell_command
    'LAB_MODULE=lab.mine pytest tests/contract/test_registry.py'
    """

    module: str
    passed: int
    total: int
    first_failure: str | None
    #: the failing (or erroring) tests' names, in suite order (``test_x`` or ``test_x[case]``)
    failing: tuple[str, ...] = ()
    #: the implementation the run tested, for the commands that run this module alone
    lab_module: str = "labcore"

    @property
    def green(self) -> bool:
        """Tell whether every selected test of the module passed (a module with no selected test is not green)."""
        return self.total > 0 and self.passed == self.total

    @property
    def notebook_command(self) -> str:
        """Return the line that runs only this module's tests in a notebook (the live lab's kernel, any kernel)."""
        return f'run_contract_suite("{self.lab_module}", modules="{self.module}")'

    @property
    def shell_command(self) -> str:
        """Return the line that runs only this module's tests in a terminal (the download, a clone)."""
        return f"LAB_MODULE={self.lab_module} pytest {CONTRACT_DIR}/test_{self.module}.py"


@dataclass(frozen=True, slots=True)
class ContractRun:
    """The outcome of one run of the contract suite against ``lab_module``, test by test.

    ``str(run)`` is the one-line summary; displayed in a notebook it is the table of the seven modules.
    """

    lab_module: str
    select: str | None
    outcomes: tuple[TestOutcome, ...]
    deselected: int = 0

    def _count(self, outcome: str) -> int:
        return sum(o.outcome == outcome for o in self.outcomes)

    @property
    def passed(self) -> int:
        """Return how many tests passed."""
        return self._count("passed")

    @property
    def failed(self) -> int:
        """Return how many tests failed."""
        return self._count("failed")

    @property
    def errors(self) -> int:
        """Return how many tests errored (in a fixture, or the implementation did not import)."""
        return self._count("error")

    @property
    def first_failure(self) -> str | None:
        """Return the first failing test's message, in suite order (None when nothing failed)."""
        return next((o.message for o in self.outcomes if o.outcome in ("failed", "error")), None)

    @property
    def modules(self) -> tuple[ModuleStatus, ...]:
        """Return one :class:`ModuleStatus` per lab module that had a selected test, in dependency order."""
        rows = []
        for module in LAB_MODULES:
            mine = [o for o in self.outcomes if o.module == module]
            if mine:
                red = [o for o in mine if o.outcome in ("failed", "error")]
                rows.append(
                    ModuleStatus(
                        module=module,
                        passed=sum(o.outcome == "passed" for o in mine),
                        total=len(mine),
                        first_failure=red[0].message if red else None,
                        failing=tuple(o.name for o in red),
                        lab_module=self.lab_module,
                    )
                )
        return tuple(rows)

    def __str__(self) -> str:
        counts = f"{self.passed} passed, {self.failed} failed"
        if self.errors:
            counts += f", {self.errors} errors"
        where = f" (-k {self.select})" if self.select else ""
        return f"LAB_MODULE={self.lab_module}{where}: {counts}"

    def table(self) -> str:
        """Return the lab table as plain text (:func:`table_text`).

        >>> print(ContractRun("lab.mine", None, (TestOutcome("tests/contract/test_versions.py::t", "passed"),)).table())
        versions  green  1/1
        """
        return table_text(self)

    def _repr_html_(self) -> str:
        return table_html(self)


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
