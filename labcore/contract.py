"""Run the lab's contract suite (``tests/contract``) against any implementation, in this process, module by module.

The suite is the lab's proof: one test file per module the learner writes (``test_versions.py`` ...
``test_fleet.py``), run against whatever module ``LAB_MODULE`` names: the reference ``labcore``, the
generated ``lab.skeleton``, or a learner's ``lab.mine``. :func:`run_contract_suite` runs pytest in
the calling process (so it also works in JupyterLite's Pyodide kernel, which has no subprocesses),
imports the implementation afresh each time (a learner's edits are seen at once), and returns a
:class:`ContractRun` (a record of :mod:`labcore.contract_table`, which also draws it as the lab's table): every
test's outcome and the first line of its failure, summed per module in dependency order. Paths and addresses are taken out of the messages, so the same files give the
same run in CPython and in the browser.

>>> LAB_MODULES[0], LAB_MODULES[-1]
('versions', 'fleet')
>>> TestOutcome("tests/contract/test_cache.py::test_x", "failed", "assert 1 == 2").module
'cache'
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import re
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._validate import choice, text
from .contract_table import CONTRACT_DIR, LAB_MODULES, OUTCOMES, ContractRun, ModuleStatus, TestOutcome

__all__ = [
    "LAB_MODULES",
    "GIVEN_MODULES",
    "BEYOND_THE_LAB",
    "CONTRACT_DIR",
    "OUTCOMES",
    "TestOutcome",
    "ModuleStatus",
    "ContractRun",
    "contract_root",
    "run_contract_suite",
    "count_contract_tests",
]

#: The modules handed to the learner complete: the error types, the argument checks and the reference values.
GIVEN_MODULES: tuple[str, ...] = ("errors", "_validate", "refs")
#: Public members of the lab's modules that are not the learner's to write: speed-ups labcore uses when an
#: implementation has them (the simulator routes a slice with ``route_many``, else calls ``route`` per request).
BEYOND_THE_LAB: tuple[str, ...] = ("router.MultiLoRARouter.route_many",)
#: Longest failure line kept (a hint or an assertion's first line).
MESSAGE_CHARS = 300
#: How :func:`run_contract_suite` runs pytest: no cache folder, no ini options, captured output, Python's own
#: tracebacks (the table reads only each failure's last line: pytest's styles read and parse the source of every
#: traceback entry, two thirds of a red suite's run in CPython); and without the plugin that turns exceptions raised
#: in ``__del__`` into warnings, which the table does not show: pytest 9 collects garbage five times after every run
#: for it, 0.45 s of each suite run in the live kernel (its heap is large) and growing with it.
PYTEST_OPTIONS = (
    "-p",
    "no:cacheprovider",
    "-p",
    "no:unraisableexception",
    "-o",
    "addopts=",
    "--capture=sys",
    "--tb=native",
    "-q",
)


def contract_root(start: Any = None) -> Path:
    """Return the folder holding ``tests/contract``: ``start`` (default: the working directory) or a parent of it.

    The repository, the lab download and the live site each hold the suite at ``tests/contract``.
    """
    here = Path(start if start is not None else Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / CONTRACT_DIR).is_dir():
            return folder
    raise FileNotFoundError(
        f"no {CONTRACT_DIR} folder in {here} or above: run this inside the course repository, "
        "the unpacked lab download or the live site"
    )


class _Recorder:
    """A pytest plugin that keeps each test's outcome and first failure line, and counts what was deselected."""

    def __init__(self, clean: Any) -> None:
        self.clean = clean
        self.outcomes: dict[str, TestOutcome] = {}
        self.deselected = 0
        self.collected = 0

    def pytest_deselected(self, items: Sequence[Any]) -> None:
        self.deselected += len(items)

    def pytest_collection_finish(self, session: Any) -> None:
        self.collected = len(session.items)

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.outcomes[report.nodeid] = TestOutcome(report.nodeid, "error", self.clean(_first_line(report)))

    def pytest_runtest_logreport(self, report: Any) -> None:
        if report.when == "call" or report.outcome != "passed":
            if report.nodeid in self.outcomes and self.outcomes[report.nodeid].outcome != "passed":
                return  # a teardown error after a failure: the failure is the news
            if report.outcome == "passed":
                outcome, message = "passed", None
            elif report.outcome == "skipped":
                outcome, message = "skipped", None
            else:
                outcome = "failed" if report.when == "call" else "error"
                message = self.clean(_first_line(report))
            self.outcomes[report.nodeid] = TestOutcome(report.nodeid, outcome, message)


_ERROR_LINE = re.compile(r"^(?:E\s+)?(\w*(?:Error|Exception)\b.*)$", re.M)
_PLACE = re.compile(r'^File "(?P<file>[^"]+)", line (?P<line>\d+)')


def _first_line(report: Any) -> str:
    """Return the line a learner needs from a failure: the exception and its message (the crash line pytest keeps).

    A syntax error's crash line is only its place (``File "...", line 3``): the error is the last error line above it.
    """
    crash = getattr(report.longrepr, "reprcrash", None)
    message = (crash.message if crash is not None else str(report.longrepr)).strip()
    place = _PLACE.match(message)
    if place:
        errors = _ERROR_LINE.findall(str(report.longrepr))
        if errors:
            return f"{errors[-1].strip()} ({place['file']}, line {place['line']})"
    return message.splitlines()[0] if message else "(no message)"


def _cleaner(*roots: Path) -> Any:
    """Return a function that takes machine-specific parts (paths, addresses) out of a failure line."""
    prefixes = sorted({str(p) for root in roots for p in (root, root.resolve())}, key=len, reverse=True)
    tmp = re.compile(r"(/private)?/tmp/pytest-of-[^/\s]+/pytest-\d+/[^/\s]+")
    address = re.compile(r" at 0x[0-9a-fA-F]+")

    def clean(message: str) -> str:
        for prefix in prefixes:
            message = message.replace(prefix + os.sep, "").replace(prefix, ".")
        message = address.sub("", tmp.sub("<tmp>", message))
        return message if len(message) <= MESSAGE_CHARS else message[: MESSAGE_CHARS - 1] + "…"

    return clean


def _packages(lab_module: str) -> tuple[str, ...]:
    """Return the top-level packages a run imports from the lab folder: the suite's and the implementation's."""
    top = lab_module.split(".")[0]
    return ("tests",) if top == "labcore" else ("tests", top)


@contextlib.contextmanager
def _fresh_imports(packages: Sequence[str]) -> Any:
    """Import ``packages`` afresh inside the block (a learner's edits are read) and put the caller's modules back after.

    The caller may have its own ``tests`` package (the course's test run does): it is set aside for the run, so the
    lab folder's ``tests.contract`` is imported from the lab folder, then restored as it was.
    """

    def ours(name: str) -> bool:
        return any(name == p or name.startswith(p + ".") for p in packages)

    saved = {name: module for name, module in sys.modules.items() if ours(name)}
    for name in saved:
        del sys.modules[name]
    importlib.invalidate_caches()  # a folder made or changed since the last import (a learner's lab/mine) is found
    try:
        yield
    finally:
        for name in [m for m in sys.modules if ours(m)]:
            del sys.modules[name]
        sys.modules.update(saved)


@contextlib.contextmanager
def _working_copy(folder: Path, lab_module: str) -> Any:
    """Yield a temporary copy of the suite of ``folder`` and of the package of ``lab_module`` in it, to run pytest in.

    In the live site ``folder`` is the browser's storage, where every file lookup is a message to the page:
    pytest and its imports look up thousands of paths, and a run there took minutes where a copy in the
    kernel's own memory takes seconds. So the copy holds only what the run imports from the folder: the suite,
    and for ``lab.mine`` the ``lab`` package's ``__init__.py`` and ``lab/mine`` (not ``lab/skeleton``: the
    download has no skeleton beside ``lab/mine`` either); for ``labcore``, installed, nothing more. Each file
    read there costs about 20 ms in Chromium. Elsewhere the copy costs little and keeps every run alike.
    """

    def python_files(src: Path, dst: Path) -> None:
        for path in sorted(src.rglob("*.py")):
            if "__pycache__" not in path.parts:
                target = dst / path.relative_to(src)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(path.read_bytes())

    with tempfile.TemporaryDirectory(prefix="lab-suite-") as tmp:
        copy = Path(tmp)
        (copy / "tests").mkdir()
        init = folder / "tests" / "__init__.py"
        (copy / "tests" / "__init__.py").write_bytes(init.read_bytes() if init.is_file() else b"")
        python_files(folder / CONTRACT_DIR, copy / CONTRACT_DIR)
        parts = lab_module.split(".")
        if parts[0] in _packages(lab_module) and (folder / parts[0]).is_dir():  # not an installed labcore
            package = folder / parts[0]
            if len(parts) == 1:
                python_files(package, copy / parts[0])
            else:
                (copy / parts[0]).mkdir()
                for name in ("__init__.py", f"{parts[1]}.py"):
                    if (package / name).is_file():
                        (copy / parts[0] / name).write_bytes((package / name).read_bytes())
                if (package / parts[1]).is_dir():
                    python_files(package / parts[1], copy / parts[0] / parts[1])
        yield copy


def _pytest(args: list[str], root: Path, lab_module: str, recorder: _Recorder) -> None:
    """Run pytest with ``args`` in this process on a copy of ``root`` (:func:`_working_copy`), with ``LAB_MODULE``
    set; restore the working directory, ``sys.path`` and the environment after."""
    import pytest  # here: only the lab needs pytest, and labcore runs without it (the book's pages, the panels)

    cwd, path, env, bytecode = os.getcwd(), list(sys.path), os.environ.get("LAB_MODULE"), sys.dont_write_bytecode
    with _working_copy(root, lab_module) as copy:
        recorder.clean = _cleaner(root, copy)
        printed = io.StringIO()
        try:
            os.chdir(copy)
            # the copy first; the original folder (and "" for it) out of the way, so imports never look there
            sys.path[:] = [str(copy)] + [p for p in path if p not in ("", ".", str(root), cwd)]
            os.environ["LAB_MODULE"] = lab_module
            sys.dont_write_bytecode = True  # an edit within the same second must not meet a stale .pyc
            with (
                _fresh_imports(_packages(lab_module)),
                contextlib.redirect_stdout(printed),
                contextlib.redirect_stderr(printed),
            ):
                code = pytest.main([*args, *PYTEST_OPTIONS], plugins=[recorder])
        finally:
            os.chdir(cwd)
            sys.path[:] = path
            sys.dont_write_bytecode = bytecode
            if env is None:
                os.environ.pop("LAB_MODULE", None)
            else:
                os.environ["LAB_MODULE"] = env
    if code in (pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.INTERRUPTED):
        tail = "\n".join(printed.getvalue().strip().splitlines()[-12:])
        raise RuntimeError(
            f"pytest stopped before the end of the suite ({pytest.ExitCode(code).name}), so no table is shown: "
            f"{len(recorder.outcomes)} of {recorder.collected} tests had run. It said:\n{tail}"
        )


def _targets(modules: Sequence[str] | None) -> list[str]:
    if modules is None:
        return [CONTRACT_DIR]
    if isinstance(modules, str):
        modules = (modules,)
    return [f"{CONTRACT_DIR}/test_{choice('module', m, LAB_MODULES)}.py" for m in modules]


def run_contract_suite(
    lab_module: str = "labcore",
    *,
    select: str | None = None,
    modules: Sequence[str] | str | None = None,
    root: Any = None,
) -> ContractRun:
    """Run the contract suite against ``lab_module`` and return every test's outcome (see :class:`ContractRun`).

    ``modules`` runs only those modules' test files (``"versions"`` or ``("versions", "sizing")``); ``select``
    is a pytest ``-k`` expression; ``root`` is the folder holding ``tests/contract`` (default: found from the
    working directory, :func:`contract_root`).

    >>> run = run_contract_suite("labcore", modules="versions", select="orders")
    >>> (run.passed, run.failed, [m.module for m in run.modules])
    (1, 0, ['versions'])
    """
    text("lab_module", lab_module)
    if select is not None:
        text("select", select)
    folder = contract_root(root)
    args = _targets(modules) + (["-k", select] if select else [])
    recorder = _Recorder(_cleaner(folder))  # the run adds its copy's path
    _pytest(args, folder, lab_module, recorder)
    return ContractRun(
        lab_module=lab_module, select=select, outcomes=tuple(recorder.outcomes.values()), deselected=recorder.deselected
    )


def count_contract_tests(*, root: Any = None) -> int:
    """Return how many tests the contract suite collects (without running them), in this process.

    >>> count_contract_tests() > 100
    True
    """
    folder = contract_root(root)
    recorder = _Recorder(_cleaner(folder))  # the run adds its copy's path
    _pytest([CONTRACT_DIR, "--collect-only"], folder, "labcore", recorder)
    return recorder.collected
