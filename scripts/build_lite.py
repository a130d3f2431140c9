"""Build the course's live (JupyterLite) site: the command, and the Sphinx extension ``_config.yml`` names.

The work is done in ``coursebuild`` (one module per job: ``lite_runtime``, ``lite_wheels``,
``lite_notebooks``, ``lite_site``, ``lite_sphinx``); this file keeps the two entry points that
existed here:

* ``sphinx: local_extensions: {build_lite: scripts/}`` loads :func:`setup` from
  :mod:`coursebuild.lite_sphinx` (``extra_extensions: [coursebuild.lite_sphinx]`` does the same);
* ``python scripts/build_lite.py --out _build/lite_only`` builds the site without the book
  (``--help`` lists the options; same as ``python -m coursebuild.lite_site``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from coursebuild.lite_site import main  # noqa: E402
from coursebuild.lite_sphinx import setup  # noqa: E402

__all__ = ["main", "setup"]

if __name__ == "__main__":
    sys.exit(main())
