"""The Live kernel's fast start: one optional addon of the Live build, on unless ``COURSE_LITE_FAST_START=0``.

Without it the site works as JupyterLite and Pyodide make it: the kernel's worker loads ``pyodide.mjs``, which
unpacks the preloaded wheels (:data:`coursebuild.lite.runtime.PRELOAD` and the rest of
``loadPyodideOptions.packages``) and imports IPython at every start, and hypothesis builds its Unicode tables at the
first ``st.text()`` (in its default storage folder). With it, three files made at build time under Node, with the
served runtime, and a boot module in front of Pyodide:

* :mod:`.snapshot`: the kernel's memory snapshot (IPython, jedi, comm and traitlets imported, and what the lab's
  first suite run imports: pytest, hypothesis, labcore's contract runner), the preloaded
  packages' files in one bundle, and ``kernel_boot.mjs``, which the kernel's worker loads as ``pyodideUrl``
  (:func:`finish` points it there) and which restores both, booting as Pyodide does when it cannot;
* :mod:`.hypothesis`: hypothesis's Unicode tables, which the boot module writes where hypothesis looks;
* :mod:`.node`: runs each build script once per set of inputs (a content-addressed cache).

Pyodide's private ``loadPyodide`` options it needs (:data:`PRIVATE_PYODIDE_OPTIONS`) are named in one file,
``static/pyodide_private.mjs``; ``tests/test_lite_fast_start.py`` fails, naming the option, when an upgraded Pyodide
no longer declares one (build with ``COURSE_LITE_FAST_START=0`` until the addon is updated).

>>> import os; from unittest import mock
>>> with mock.patch.dict(os.environ, {FAST_START_ENV: "0"}):
...     enabled()
False
"""

from __future__ import annotations

import os
from pathlib import Path

from . import hypothesis, snapshot

__all__ = ["FAST_START_ENV", "PRIVATE_PYODIDE_OPTIONS", "enabled", "finish", "prepare"]

#: the switch: ``COURSE_LITE_FAST_START=0`` builds the Live site without the fast start
FAST_START_ENV = "COURSE_LITE_FAST_START"
#: Pyodide's private ``loadPyodide`` options the addon uses, all in ``static/pyodide_private.mjs``
PRIVATE_PYODIDE_OPTIONS = ("_makeSnapshot", "_sysExecutable", "_loadSnapshot")
#: the one file that names them
PRIVATE_MODULE = snapshot.STATIC / snapshot.PRIVATE_MODULE


def enabled() -> bool:
    """Tell whether this build adds the fast start (``COURSE_LITE_FAST_START`` is not ``0``)."""
    return os.environ.get(FAST_START_ENV, "1") != "0"


def prepare(
    pyodide_dir: Path, preload: tuple[str, ...] | list[str], hypothesis_wheels: list[Path], cache: Path
) -> None:
    """Write the snapshot, the file bundle, hypothesis's tables and the boot module into ``pyodide_dir``.

    ``preload`` is the kernel's ``loadPyodideOptions.packages`` in order; ``hypothesis_wheels`` the served
    hypothesis wheel; each output is cached under ``cache``.
    """
    snapshot.make_snapshot(pyodide_dir, preload, cache / "snapshot")
    snapshot.make_file_bundle(pyodide_dir, preload, cache / "kernel-files")
    hypothesis.make_tables(pyodide_dir, hypothesis_wheels, cache / "hypothesis")


def finish(site: Path) -> int:
    """Point the built site's kernel at the boot module; return the configs changed."""
    return snapshot.point_kernel_at_boot(site)
