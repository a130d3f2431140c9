"""The lab as one download, taken from the built site: unpacked on a fresh Python, red with hints, then green.

The reader's route without the live site and without a clone: the site serves ``downloads/multi-lora-lab.zip``
(linked from the landing page and chapter 7). Unpacked into an empty folder and a fresh virtual environment,
``pip install -r requirements.txt`` (pytest and hypothesis from PyPI) then ``pytest`` in its top folder must show
every contract test failing, each with its ``TODO(lab)`` hint; with labcore's modules of the same names copied over
the learner's files, every test must pass. The count is the suite's, as the course collects it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

from labcore.contract import LAB_MODULES, count_contract_tests
from labcore.site import LAB_DOWNLOAD

LABCORE = Path(__file__).resolve().parents[2] / "labcore"


def _pytest(folder: Path, python: Path, name: str) -> list[ET.Element]:
    """Run ``pytest`` in ``folder`` as a reader would (no options), with a JUnit report; return its test cases."""
    report = folder.parent / f"{name}.xml"
    subprocess.run(
        [str(python), "-m", "pytest", f"--junitxml={report}", "-p", "no:cacheprovider"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=900,
        env={"PATH": f"{python.parent}:/usr/bin:/bin"},
    )
    return list(ET.parse(report).getroot().iter("testcase"))


@pytest.fixture(scope="module")
def unpacked(built_site: Path, tmp_path_factory) -> tuple[Path, Path]:
    """Unpack the site's download into an empty folder and install its requirements into a fresh venv."""
    work = tmp_path_factory.mktemp("download")
    with zipfile.ZipFile(built_site / LAB_DOWNLOAD) as archive:
        archive.extractall(work)
    (folder,) = [p for p in work.iterdir() if p.is_dir()]
    subprocess.run([sys.executable, "-m", "venv", str(work / "venv")], check=True, timeout=300)
    python = work / "venv" / "bin" / "python"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", "requirements.txt"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert install.returncode == 0, install.stderr[-2000:]
    return folder, python


def test_the_download_holds_the_lab_and_its_loop(unpacked):
    folder, _ = unpacked
    assert (folder / "requirements.txt").read_text().count("==") == 2
    assert "pytest" in (folder / "README.md").read_text() and "lab/mine" in (folder / "README.md").read_text()
    for module in (*LAB_MODULES, "errors", "_validate"):
        assert (folder / "lab" / "mine" / f"{module}.py").read_bytes() == (
            folder / "lab" / "skeleton" / f"{module}.py"
        ).read_bytes()


def test_unpacked_it_runs_red_with_hints_then_green_with_the_reference(unpacked):
    folder, python = unpacked
    red = _pytest(folder, python, "red")
    total = count_contract_tests()
    assert len(red) == total, f"{len(red)} tests in the download, {total} in the course"
    failing = [c for c in red if any(child.tag in ("failure", "error") for child in c)]
    assert len(failing) == total, "every test must fail against the untouched skeleton"
    assert all("TODO(lab): implement" in ET.tostring(c, encoding="unicode") for c in failing)
    for module in LAB_MODULES:
        shutil.copyfile(LABCORE / f"{module}.py", folder / "lab" / "mine" / f"{module}.py")
    green = _pytest(folder, python, "green")
    broken = [c.get("name") for c in green if any(child.tag in ("failure", "error") for child in c)]
    assert len(green) == total and broken == [], broken[:5]
    assert re.fullmatch(
        r"pytest==[\d.]+\nhypothesis==[\d.]+",
        "\n".join(line for line in (folder / "requirements.txt").read_text().splitlines() if not line.startswith("#")),
    )
