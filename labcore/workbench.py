"""Keep a learner's own copy of the lab (``lab/mine``), run the contract suite on it, and reset a module on request.

The lab notebook (the live site's and the download's ``do_the_lab.ipynb``) is a few calls on one
:class:`Workbench`: :meth:`~Workbench.start` makes ``lab/mine`` from the skeleton the first time
(later it only adds a file that went missing, and never overwrites yours), :meth:`~Workbench.run`
runs the suite against ``lab.mine`` (:meth:`~Workbench.show` shows its table of the seven modules), and
:meth:`~Workbench.reset` puts one module back to the skeleton, but only when asked twice (the
first call says what would be lost). In the live site the files live in the browser's storage,
so they survive a reload and a later visit; a run's module table is also kept there
(:mod:`labcore.progress`) for the progress line on the course's pages.

>>> import tempfile, shutil
>>> root = tempfile.mkdtemp()
>>> _ = shutil.copytree(contract_root() / "lab" / "skeleton", f"{root}/lab/skeleton")
>>> _ = shutil.copytree(contract_root() / "tests" / "contract", f"{root}/tests/contract")
>>> bench = Workbench(root)
>>> len(bench.start()) > 0, bench.start(), bench.changed()
(True, [], [])
"""

from __future__ import annotations

import filecmp
import os
import shutil
from typing import Any

from . import progress
from ._validate import choice, flag
from .contract import GIVEN_MODULES, LAB_MODULES, ContractRun, contract_root, run_contract_suite
from .contract_table import FreshTable
from .site import LAB_MINE, LAB_SKELETON

__all__ = ["Workbench"]


class Workbench:
    """The learner's copy of the lab under ``root`` (the folder holding ``tests/contract`` and ``lab/``).

    ``root`` defaults to the working directory or the nearest parent holding the suite.
    """

    def __init__(self, root: Any = None) -> None:
        self.root = contract_root(root)
        self.skeleton = self.root / LAB_SKELETON
        self.mine = self.root / LAB_MINE
        if not (self.skeleton / "__init__.py").is_file():
            raise FileNotFoundError(f"no skeleton at {self.skeleton}: the lab needs {LAB_SKELETON}/ beside tests/")
        self.lab_module = LAB_MINE.replace("/", ".")

    def files(self) -> list[str]:
        """Return the skeleton's file names (the package files a learner's copy holds)."""
        return sorted(name for name in os.listdir(self.skeleton) if name.endswith(".py"))  # one listing, no stats

    def start(self) -> list[str]:
        """Make ``lab/mine`` from the skeleton where it is missing; return the files copied (none on a later visit).

        A file already in ``lab/mine`` is never overwritten: that is the learner's work.
        """
        present = self._mine_names()
        if not present:  # made only when missing: each call to the storage costs (see _mine_names)
            self.mine.mkdir(parents=True, exist_ok=True)
        copied = []
        for name in self.files():
            if name not in present:
                # bytes read and written, not shutil.copyfile: it also stats both files twice, and in the live site
                # each stat is a message to the page (the first visit's copy of 11 files)
                (self.mine / name).write_bytes((self.skeleton / name).read_bytes())
                copied.append(f"{LAB_MINE}/{name}")
        return copied

    def _mine_names(self) -> set[str]:
        """Return the names in ``lab/mine``, listed once: in the live site every file lookup there is a message to
        the page (about 20 ms in Chromium), and one listing replaces a lookup per file."""
        try:
            return set(os.listdir(self.mine))
        except FileNotFoundError:
            return set()

    def changed(self) -> list[str]:
        """Return the modules of ``lab/mine`` that differ from the skeleton (what a learner has written so far)."""
        present = self._mine_names()
        return [
            m
            for m in (*GIVEN_MODULES, *LAB_MODULES)
            if f"{m}.py" in present and (self.mine / f"{m}.py").read_bytes() != (self.skeleton / f"{m}.py").read_bytes()
        ]

    def run(self, modules: Any = None, *, select: str | None = None) -> ContractRun:
        """Run the contract suite against ``lab.mine`` (all seven modules, or ``modules``) and return the run.

        Displayed in the notebook, the run is the table of the modules; its module lines are also kept in
        the browser's storage when this runs in the live site.
        """
        self.start()
        run = run_contract_suite(self.lab_module, modules=modules, select=select, root=self.root)
        if select is None:
            progress.record_lab(run)
        return run

    def show(self, modules: Any = None) -> FreshTable:
        """Run the suite (:meth:`run`) and return its table for the lab notebook, shown only in the page that ran it.

        The lab notebook is saved with its outputs; reopened, a saved table says to run the cell again
        (:class:`labcore.contract_table.FreshTable`) instead of showing files as they were.
        """
        return FreshTable(self.run(modules))

    def reset(self, module: str, *, confirm: bool = False) -> str:
        """Put ``lab/mine/<module>.py`` back to the skeleton, only with ``confirm=True``; return what was (or would be) done.

        Without ``confirm`` nothing changes: the message says what would be lost and how to confirm.
        """
        choice("module", module, (*LAB_MODULES, *GIVEN_MODULES))
        flag("confirm", confirm)
        mine, skeleton = self.mine / f"{module}.py", self.skeleton / f"{module}.py"
        if mine.is_file() and filecmp.cmp(mine, skeleton, shallow=False):
            return f"{LAB_MINE}/{module}.py is already the skeleton's: nothing to reset."
        if not confirm:
            lines = len(mine.read_text(encoding="utf-8").splitlines()) if mine.is_file() else 0
            return (
                f"This would replace {LAB_MINE}/{module}.py ({lines} lines, with your changes) by the skeleton's "
                f"copy, and your changes would be lost. To do it, run reset({module!r}, confirm=True)."
            )
        self.mine.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(skeleton, mine)
        return f"{LAB_MINE}/{module}.py is the skeleton's copy again."

    def __repr__(self) -> str:
        return f"Workbench({str(self.root)!r}: {LAB_MINE}, changed {self.changed()})"
