"""The lab loop: the skeleton is derived from labcore, matches its signatures, and fails every contract test."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import labcore
from labcore.contract import BEYOND_THE_LAB
from scripts import make_skeleton

ROOT = Path(__file__).resolve().parents[1]

skeleton = importlib.import_module("lab.skeleton")


def test_skeleton_is_generated_from_labcore():
    files = make_skeleton.render()
    committed = {p.name: p.read_text() for p in (ROOT / "lab" / "skeleton").glob("*.py")}
    assert committed == files, "lab/skeleton is stale: run python scripts/make_skeleton.py"


def _public_members(obj):
    """The public members of a class, less those :data:`labcore.contract.BEYOND_THE_LAB` leaves out of the lab."""
    beyond = {qualname.split(".", 1)[1] for qualname in BEYOND_THE_LAB}
    return {
        name
        for name, _ in inspect.getmembers(obj)
        if not name.startswith("_") and f"{obj.__name__}.{name}" not in beyond
    }


@pytest.mark.parametrize("name", sorted(skeleton.__all__))
def test_skeleton_signatures_match_the_reference(name):
    ours, theirs = getattr(labcore, name), getattr(skeleton, name)
    if inspect.isclass(ours) and issubclass(ours, BaseException):
        assert [c.__name__ for c in ours.__mro__] == [c.__name__ for c in theirs.__mro__]
    elif inspect.isclass(ours):
        assert str(inspect.signature(ours)) == str(inspect.signature(theirs))
        assert _public_members(ours) == _public_members(theirs)
        for member in _public_members(ours):
            a, b = inspect.getattr_static(ours, member), inspect.getattr_static(theirs, member)
            if inspect.isfunction(a):
                assert str(inspect.signature(a)) == str(inspect.signature(b)), f"{name}.{member}"
        if dataclasses.is_dataclass(ours):
            assert [f.name for f in dataclasses.fields(ours)] == [f.name for f in dataclasses.fields(theirs)]
    elif callable(ours):
        assert str(inspect.signature(ours)) == str(inspect.signature(theirs))
    else:
        assert ours == theirs


def _contract_run(module: str | None, *args: str) -> subprocess.Popen:
    """Start pytest over the contract suite in a subprocess (``module`` as LAB_MODULE, None for the default)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if module is not None:
        env["LAB_MODULE"] = module
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "tests/contract",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:nbval",
            "-o",
            "addopts=",
            *args,
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_skeleton_fails_every_contract_test(tmp_path):
    junit = tmp_path / "skeleton.xml"
    collecting = _contract_run(None, "--collect-only")  # the suite as the reference collects it, counted
    running = _contract_run("lab.skeleton", f"--junitxml={junit}")  # meanwhile: the skeleton against every test
    collected = collecting.communicate(timeout=300)[0]
    running.communicate(timeout=600)
    expected = sum(1 for line in collected.splitlines() if "::" in line)
    cases = list(ET.parse(junit).getroot().iter("testcase"))
    assert expected >= 62 and len(cases) == expected
    passed = [c.get("name") for c in cases if not any(child.tag in ("failure", "error") for child in c)]
    assert passed == [], f"the skeleton passes contract tests it should fail: {passed}"
    hinted = [c for c in cases if "TODO(lab)" in ET.tostring(c, encoding="unicode")]
    assert len(hinted) == len(cases), "every failure should show the learner a TODO(lab) hint"
