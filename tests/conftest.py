"""Shared test setup: every test runs with the lab suite's hypothesis profile (derandomized, no deadline, no database).

The profile is defined once, in ``tests/contract/conftest.py``, which the lab's live site and download carry on their
own; importing it here loads it for the whole run.
"""

from pathlib import Path

import pytest

from coursebuild.lab_download import lab_files
from tests.contract.conftest import HYPOTHESIS_PROFILE  # noqa: F401 - registers and loads the profile


@pytest.fixture
def lab_folder(tmp_path: Path) -> Path:
    """An unpacked lab download (the suite, ``lab/skeleton`` and a learner's ``lab/mine`` = the skeleton)."""
    for name, data in lab_files().items():
        path = tmp_path / "lab-download" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return tmp_path / "lab-download"


#: labcore's version of each lab module, for writing a learner's copy that is (partly) right
LABCORE = Path(__file__).resolve().parents[1] / "labcore"
