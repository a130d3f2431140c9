"""The learner's copy of the lab: made once, never overwritten, and what changed in it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from labcore.contract import contract_root
from labcore.site import LAB_MINE, LAB_SKELETON
from labcore.workbench import Workbench


@pytest.fixture()
def bench(tmp_path: Path) -> Workbench:
    shutil.copytree(contract_root() / LAB_SKELETON, tmp_path / LAB_SKELETON)
    shutil.copytree(contract_root() / "tests" / "contract", tmp_path / "tests" / "contract")
    return Workbench(tmp_path)


def test_start_copies_the_skeleton_once_and_puts_back_only_a_missing_file(bench: Workbench) -> None:
    first = bench.start()
    assert sorted(first) == [f"{LAB_MINE}/{name}" for name in bench.files()]
    (bench.mine / "versions.py").write_text("# mine\n", encoding="utf-8")
    (bench.mine / "cache.py").unlink()
    assert bench.start() == [f"{LAB_MINE}/cache.py"]
    assert (bench.mine / "versions.py").read_text(encoding="utf-8") == "# mine\n"


def test_changed_lists_the_modules_that_differ_from_the_skeleton(bench: Workbench) -> None:
    bench.start()
    assert bench.changed() == []
    (bench.mine / "router.py").write_text("# mine\n", encoding="utf-8")
    (bench.mine / "versions.py").write_bytes((bench.skeleton / "versions.py").read_bytes() + b"\n")
    (bench.mine / "fleet.py").unlink()  # a missing module is not a changed one
    assert bench.changed() == ["versions", "router"]
