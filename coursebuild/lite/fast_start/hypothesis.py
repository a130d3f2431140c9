"""Give the live kernel hypothesis's Unicode tables, so the lab's first suite run does not build them.

``st.text()`` (the contract suite fuzzes the parsers with it) needs two tables: the Unicode category of every
code point (hypothesis's ``charmap``) and the code points UTF-8 can encode. Hypothesis builds them by walking
all 1,114,112 code points, then saves them, gzipped, in its storage folder; the live kernel's storage is
memory, so every kernel built them again: 2.8 s of the first suite run in Chromium on the 2-core test machine
(0.7 s the charmap, 2.1 s the codec). :func:`make_tables` lets hypothesis build them once, at build time, under
Node with the served runtime and the served hypothesis wheel (``static/hypothesis_tables.mjs``: the same Python,
so the same Unicode version, and hypothesis's own files byte for byte), into :data:`TABLES_FILE` beside the
kernel's boot module. ``static/kernel_boot.mjs`` writes them into :data:`KERNEL_HOME` and sets
``HYPOTHESIS_STORAGE_DIRECTORY`` to it, so hypothesis finds them where it looks.

Used by :func:`coursebuild.lite.site.prepare_runtime`
(``make_tables(lite_dir / "static" / "pyodide", [hypothesis wheel], cache)``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ..runtime import served_wheels
from ..wheels import log
from .node import cached_node_output

NODE_SCRIPT = Path(__file__).with_name("static") / "hypothesis_tables.mjs"
#: the tables' name beside the runtime (``kernel_boot.mjs`` asks for it by this name)
TABLES_FILE = "hypothesis_tables.json"
#: the live kernel's hypothesis storage folder (``kernel_boot.mjs`` writes the tables there): memory, not the
#: reader's files
KERNEL_HOME = "/tmp/hypothesis"
#: what hypothesis needs from the runtime's lock (its ``Requires-Dist`` on Python 3.11 and later)
NEEDS = ("sortedcontainers",)


def make_tables(pyodide_dir: Path, hypothesis_wheels: list[Path], cache: Path) -> Path:
    """Write :data:`TABLES_FILE` into ``pyodide_dir`` (the served runtime): the tables hypothesis saves there.

    ``hypothesis_wheels`` are the served hypothesis wheel (its dependencies :data:`NEEDS` come from the lock).
    The file is ``{"files": {path under the storage folder: base64 of hypothesis's gzipped file}}``. Cached in
    ``cache`` by the runtime, the wheels and the script. Needs ``node``; fails with the reason when it is missing
    or when hypothesis does not save both tables.
    """
    wheels = served_wheels(pyodide_dir, NEEDS) + list(hypothesis_wheels)
    job = {"wheels": [str(w.resolve()) for w in wheels]}
    cached = cached_node_output(
        NODE_SCRIPT,
        pyodide_dir,
        {"wheels": [w.name for w in wheels]},
        wheels,
        cache,
        ".json",
        "hypothesis's tables",
        run_job=job,
    )
    shutil.copy2(cached, pyodide_dir / TABLES_FILE)
    files = json.loads(cached.read_text(encoding="utf-8"))["files"]
    log(f"hypothesis tables for the live kernel: {', '.join(sorted(files))} ({cached.stat().st_size / 1024:.0f} KiB)")
    return pyodide_dir / TABLES_FILE
