"""Show the reader's progress at the top of every page: lab modules green, quizzes answered right, exercises checked.

Progress lives in the reader's browser only (:mod:`labcore.progress` writes it from quizzes and the live
kernel); this extension adds ``static/course-progress.js`` and its stylesheet to every page, with what
counts: the lab's modules (:data:`labcore.contract.LAB_MODULES`), every chapter quiz
(:data:`labcore.chapters.QUIZZES`) and every exercise check (:data:`labcore.chapters.EXERCISES`), as the
chapters' manifests declare them.
The script writes one line under the page's title ("lab: 5 of 7 modules green; quizzes: 11 of 16 ...")
and a button that forgets it all.

>>> cfg = progress_config()
>>> cfg["lab"][0], len(cfg["quizzes"]) == len(set(cfg["quizzes"])) > 0
('versions', True)
"""

from __future__ import annotations

import json
from typing import Any

from labcore.chapters import EXERCISES, QUIZZES
from labcore.contract import LAB_MODULES
from labcore.site import PROGRESS_KEY

__all__ = ["SCRIPT", "CSS", "progress_config", "setup"]

SCRIPT = "course-progress.js"  # in coursebuild/static, which coursebuild.panels_site adds to html_static_path
CSS = "course-progress.css"


def progress_config() -> dict[str, Any]:
    """Return what the page script counts: the storage key, the lab's modules, the quizzes' and exercises' keys."""
    return {
        "key": PROGRESS_KEY,
        "lab": list(LAB_MODULES),
        "quizzes": [f().name for f in QUIZZES.values()],
        "exercises": [e.key for e in EXERCISES],
    }


def _add_assets(app: Any) -> None:
    app.add_js_file(None, body=f"window.COURSE_PROGRESS = {json.dumps(progress_config())};", priority=200)
    app.add_js_file(SCRIPT, priority=700)
    app.add_css_file(CSS)


def setup(app: Any) -> dict[str, Any]:
    """Register the progress line on every page."""
    app.connect("builder-inited", _add_assets)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
