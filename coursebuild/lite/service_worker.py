"""Keep a JupyterLite page's service worker registered before its kernel starts (so the kernel gets ``/drive``).

JupyterLite 0.8.6's service-worker manager unregisters every worker when it finds one in control without
a recorded version, and only records the version in that case, never after it registered the first worker
itself. A second tab (or the first reload) thus re-registers while its kernel may already be created; a
kernel created with no registered worker runs in ``/home/pyodide`` and cannot read the site's files (the
chapters' figures, the learner's lab). :func:`record_worker_version` puts a small script in every app page
of a built site (``static/service_worker_version.js``) that records the version for the worker the page
registers, as JupyterLite would; the setup cell of each live copy still refuses to go on without the
files (:data:`coursebuild.lite.notebooks.DRIVE_MISSING`).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

SCRIPT = Path(__file__).with_name("static") / "service_worker_version.js"
#: where the script is served in the lite site
SERVED = Path("static") / SCRIPT.name
#: the element the script tag goes before in each page (JupyterLite's page configuration)
ANCHOR = '<script id="jupyter-config-data"'


def record_worker_version(site: Path) -> list[Path]:
    """Serve :data:`SCRIPT` in ``site`` and load it from every page that starts JupyterLite; return those pages.

    >>> import tempfile; site = Path(tempfile.mkdtemp())
    >>> _ = (site / "jupyter-lite.json").write_text('{"jupyter-config-data": {"appVersion": "0.8.6"}}')
    >>> (site / "lab").mkdir(); _ = (site / "lab" / "index.html").write_text(ANCHOR + ">{}</script>")
    >>> [p.relative_to(site).as_posix() for p in record_worker_version(site)]
    ['lab/index.html']
    >>> (site / "lab" / "index.html").read_text().split(ANCHOR)[0]
    '<script src="../static/service_worker_version.js" data-version="0.8.6"></script>\\n    '
    """
    config = json.loads((site / "jupyter-lite.json").read_text(encoding="utf-8"))
    version = config["jupyter-config-data"]["appVersion"]
    (site / SERVED).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(SCRIPT, site / SERVED)
    pages = []
    for page in sorted(site.glob("*.html")) + sorted(site.glob("*/index.html")):
        html = page.read_text(encoding="utf-8")
        if ANCHOR not in html or SCRIPT.name in html:
            continue
        src = Path(os.path.relpath(site / SERVED, page.parent)).as_posix()
        tag = f'<script src="{src}" data-version="{version}"></script>\n    '
        page.write_text(html.replace(ANCHOR, tag + ANCHOR, 1), encoding="utf-8")
        pages.append(page)
    if not pages:
        raise RuntimeError(
            f"no JupyterLite page in {site} holds {ANCHOR!r}: the service worker's version is not recorded"
        )
    return pages
