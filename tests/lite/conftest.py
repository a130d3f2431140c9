"""Fixtures of the live (JupyterLite) browser tests: one site, one server, one offline browser.

The site is built once per test process with :func:`coursebuild.lite.site.build_site` from the
chapters and a small check notebook (served as its live copy with a kernelspec no kernel matches,
so JupyterLab always asks for a kernel), served from 127.0.0.1, and opened in Debian's Chromium (Playwright) with
every request outside 127.0.0.1 aborted and recorded. The glued numbers come
from the book build's executed notebooks when ``_build/jupyter_execute`` holds them (``make test``
builds the book first; with ``BOOK_HTML`` set, the ``jupyter_execute`` folder beside it), else each
role becomes a "see the book page" note.

Needs ``pip install -r requirements-lite.txt``, ``npm`` and ``/usr/bin/chromium``; skips without them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ._pages import build_test_site, serve, tool_missing

#: a folder :func:`build_test_site` built earlier (``python -c "from tests.lite._pages import build_test_site; ..."``)
#: to serve instead of building the site again; only while developing a test (it is not rebuilt when the code changes)
SITE_ENV = "LITE_SITE"


#: the longest module of the suite: it goes first, so that under ``make test`` (xdist, ``--dist loadfile
#: --no-loadscope-reorder``) one worker starts it at once while the other takes the rest
FIRST = "tests/lite/test_lite_chapters.py"


def pytest_collection_modifyitems(config, items) -> None:
    """Move the live chapters' tests to the front of the run (their relative order kept)."""
    items[:] = sorted(items, key=lambda item: not item.nodeid.startswith(FIRST))


@pytest.fixture(scope="session")
def lite_site(tmp_path_factory) -> Path:
    """Build a stand-alone live site with every chapter and the demo notebook; return the folder to serve."""
    why = tool_missing()
    if why:
        pytest.skip(why)
    if os.environ.get(SITE_ENV):  # a site build_test_site made before: reused while developing a test
        return Path(os.environ[SITE_ENV])
    return build_test_site(tmp_path_factory.mktemp("lite"))


@pytest.fixture(scope="session")
def server(lite_site: Path):
    """Serve the site with ``python -m http.server`` on a free 127.0.0.1 port; yield its base URL."""
    proc, base = serve(lite_site)
    yield base
    proc.terminate()
    proc.wait(10)
