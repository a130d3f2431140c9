"""The worked example runs, is deterministic, and shows the refusal and the headline."""

import subprocess
import sys


def run():
    return subprocess.run([sys.executable, "-m", "labcore"], capture_output=True, text=True, check=True).stdout


def test_worked_example_is_deterministic_and_complete():
    first, second = run(), run()
    assert first == second
    assert "REFUSED    finance-bot@1.0.0: BaseDigestMismatchError" in first
    assert "VersionExistsError" in first
    assert "['1.9.0', '1.10.0', '2.1.0']" in first
    assert "97.5% saved" in first
