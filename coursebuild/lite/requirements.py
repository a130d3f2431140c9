"""Tell whether this build makes the live (JupyterLite) site: its requirements installed, and not ``COURSE_LITE=0``.

Both the live site's extension (:mod:`coursebuild.lite.sphinx`) and the lab's links (:mod:`coursebuild.lab_links`,
which write a Live link only where there is a live site) ask the same question here.

>>> from unittest import mock
>>> with mock.patch.dict("os.environ", {"COURSE_LITE": "0"}):
...     missing_requirement()
'COURSE_LITE=0 is set'
"""

from __future__ import annotations

import importlib.util
import os

__all__ = ["LITE_MODULES", "missing_requirement"]

#: what ``requirements-lite.txt`` installs that the live site's build imports
LITE_MODULES = ("jupyterlite_sphinx", "jupyterlite_core", "jupyterlite_pyodide_kernel")


def missing_requirement() -> str | None:
    """Return why the Lite site is not built (a requirement not installed, or ``COURSE_LITE=0``), or None."""

    if os.environ.get("COURSE_LITE", "1") == "0":
        return "COURSE_LITE=0 is set"
    missing = next((m for m in LITE_MODULES if importlib.util.find_spec(m) is None), None)
    return f"{missing} is not installed" if missing else None
