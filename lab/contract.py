"""Run the shared contract suite (``tests/contract``) against any implementation of the lab, in this process.

Chapter 7 calls these through ``labcore.checks`` (which re-exports them): ``run_contract_suite``
runs ``pytest tests/contract`` with ``LAB_MODULE`` set to the implementation under test (``labcore``,
``lab.skeleton`` or a learner's ``lab.mine``) and returns a ``ContractRun`` summary that is the same
on every machine; ``count_contract_tests`` counts the suite's tests without running them.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["ContractRun", "run_contract_suite", "count_contract_tests"]


@dataclass(frozen=True, slots=True)
class ContractRun:
    """The summary of one run of the contract suite: counts, and the first failure's ``TODO(lab)`` hint."""

    lab_module: str
    select: str | None
    passed: int
    failed: int
    errors: int
    deselected: int
    first_failure: str | None

    def __str__(self) -> str:
        counts = f"{self.passed} passed, {self.failed} failed"
        if self.errors:
            counts += f", {self.errors} errors"
        where = f" (-k {self.select})" if self.select else ""
        return f"LAB_MODULE={self.lab_module}{where}: {counts}"


def _repo_root(start: Any = None) -> Any:
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "tests" / "contract").is_dir():
            return folder
    raise FileNotFoundError(f"no tests/contract folder in {here} or above: run this from inside the course repository")


def _run_pytest(args: list[str], root: Any, lab_module: str | None = None) -> str:
    """Run ``pytest args`` in this process from ``root`` and return what it printed.

    In-process, so it also works where there are no subprocesses (JupyterLite's Pyodide kernel).
    The contract modules and the lab module under test are imported afresh on every run, so a second
    run sees the ``LAB_MODULE`` it is given and a learner's edits to ``lab/mine``; the working
    directory, ``sys.path`` and ``LAB_MODULE`` are restored afterwards.

    >>> "no tests collected" in _run_pytest(["tests/contract", "--collect-only", "-q", "-k", "no_such_test"],
    ...                                     _repo_root())
    True
    """
    import pytest  # here, not at the top: labcore.checks re-exports this module without needing pytest

    def forget() -> None:
        fresh = ("tests.contract", *([lab_module] if lab_module and lab_module != "labcore" else []))
        for name in [m for m in sys.modules if any(m == f or m.startswith(f + ".") for f in fresh)]:
            del sys.modules[name]

    saved_cwd, saved_path, saved_env = os.getcwd(), list(sys.path), os.environ.get("LAB_MODULE")
    out = io.StringIO()
    forget()
    try:
        os.chdir(root)
        sys.path.insert(0, str(root))
        if lab_module is not None:
            os.environ["LAB_MODULE"] = lab_module
        with contextlib.redirect_stdout(out):
            pytest.main([*args, "-p", "no:cacheprovider", "-o", "addopts=", "--capture=sys"])
    finally:
        os.chdir(saved_cwd)
        sys.path[:] = saved_path
        if saved_env is None:
            os.environ.pop("LAB_MODULE", None)
        else:
            os.environ["LAB_MODULE"] = saved_env
        forget()
    return out.getvalue()


def run_contract_suite(lab_module: str = "labcore", *, select: str | None = None, root: Any = None,
                       timeout_s: float | None = None) -> ContractRun:
    """Run ``pytest tests/contract`` against ``lab_module`` (the ``LAB_MODULE`` switch) and summarise it.

    ``select`` is a pytest ``-k`` expression. Only counts and the first failure's hint line are kept
    (no timings, no absolute paths), so the summary is the same on every machine. The suite runs in
    this process (see :func:`_run_pytest`); ``timeout_s`` is accepted for older callers and unused.

    >>> run_contract_suite("labcore", select="no_such_test").passed
    0
    """
    args = ["tests/contract", "-q", "--tb=line", "-p", "no:randomly"]
    if select:
        args += ["-k", select]
    out = _run_pytest(args, _repo_root(root), lab_module)
    counts = {k: 0 for k in ("passed", "failed", "error", "deselected")}
    summary = [line for line in out.splitlines() if re.search(r"\d+ (passed|failed|deselected|error)", line)]
    for n, word in re.findall(r"(\d+) (passed|failed|deselected|errors?)", summary[-1] if summary else ""):
        counts["error" if word.startswith("error") else word] = int(n)
    hint = None
    for line in out.splitlines():
        found = re.search(r":\d+: (\w+(?:Error|Exception)): (.*)$", line)
        if found:
            hint = f"{found[1]}: {found[2]}"
            break
    return ContractRun(lab_module, select, counts["passed"], counts["failed"], counts["error"], counts["deselected"],
                       hint)


def count_contract_tests(*, root: Any = None, timeout_s: float | None = None) -> int:
    """Return how many tests ``pytest tests/contract`` collects (without running them), in this process.

    >>> count_contract_tests() > 0
    True
    """
    out = _run_pytest(["tests/contract", "--collect-only", "-q"], _repo_root(root))
    return sum(1 for line in out.splitlines() if line.startswith("tests/contract/") and "::" in line)
