"""Repository-wide pytest setup (applies to tests/ and to nbval over book/).

nbval starts each notebook's kernel with this process's environment.  An exported
``MPLBACKEND=Agg`` would make figures vanish from re-executed outputs (the kernel's
inline backend is replaced), so it is cleared here; in-process tests fall back to Agg
on their own when there is no display.  The Hugging Face variables keep the
real-PEFT chapter from contacting a hub that is unreachable here.
"""

from __future__ import annotations

import os

import pytest

os.environ.pop("MPLBACKEND", None)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")


@pytest.hookimpl(tryfirst=True)  # before tests/lite/conftest.py, which then moves the live chapters to the front
def pytest_collection_modifyitems(items: list) -> None:
    """Start the chapters first, and let nbval skip SVG figures as it skips PNGs.

    Each notebook is one long unit for one worker (``--dist loadfile``: a kernel per notebook, 1-14 s); started
    first, the run ends on short unit tests, so neither worker waits long for the other's last notebook.

    SVG bytes depend on the font and renderer versions. The numbers behind every figure are still compared (they
    are glued or printed), and the panels' Vega-Lite specs, which hold every number a panel shows, are compared
    in full.
    """
    items[:] = sorted(items, key=lambda item: not item.nodeid.startswith("book/"))
    for item in items:
        notebook = getattr(item, "parent", None)
        skip = getattr(notebook, "skip_compare", None)
        if skip is not None and "image/svg+xml" not in skip:
            notebook.skip_compare = (*skip, "image/svg+xml")
