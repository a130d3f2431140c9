"""Pack the lab for the reader who has neither the live site nor a clone: one ``.zip`` the site serves.

The download holds what the live site's lab holds, laid out to run on its own (``pytest`` in its top
folder tests ``lab/mine``):

* ``README.md``, ``conftest.py`` (``LAB_MODULE`` defaults to ``lab.mine``) and ``pytest.ini``, from ``lab/download/``;
* ``requirements.txt``: pytest and hypothesis at the versions the course tests with (:func:`requirements_text`);
* the contract suite (``tests/contract``, with hypothesis's settings in its conftest);
* the ``lab`` package: ``lab/skeleton/`` (untouched) and ``lab/mine/`` (the learner's copy, the skeleton to start).

Every entry has a fixed time stamp, so the same tree gives the same bytes. As a Sphinx extension it
writes :data:`labcore.site.LAB_DOWNLOAD` into the built site.

>>> sorted(lab_files(ROOT))[:2]
['README.md', 'conftest.py']
"""

from __future__ import annotations

import importlib.metadata
import zipfile
from pathlib import Path

from labcore.site import LAB_DOWNLOAD, LAB_MINE, LAB_SKELETON

ROOT = Path(__file__).resolve().parent.parent
#: the folder at the top of the archive
TOP = "multi-lora-lab"
#: the contract suite and the lab package, as the live site stages them too (paths relative to the repository)
SUITE_FILES = ("tests/__init__.py", "tests/contract/*.py", "lab/__init__.py", f"{LAB_SKELETON}/*.py")
#: what the download's requirements pin
PINNED = ("pytest", "hypothesis")
_DATE = (2026, 1, 1, 0, 0, 0)


def requirements_text() -> str:
    """Return the download's ``requirements.txt``: pytest and hypothesis at the versions this build runs.

    ``requirements.txt`` pins both (pytest at the version of Pyodide's lock, which the live site serves), so the
    download, the live site and the course's own test run all test with the same versions.

    >>> requirements_text().splitlines()[1].startswith("pytest==")
    True
    """
    pins = "".join(f"{name}=={importlib.metadata.version(name)}\n" for name in PINNED)
    return "# The lab's only requirements, at the versions the course tests with.\n" + pins


def lab_files(root: Path = ROOT) -> dict[str, bytes]:
    """Return the download's files, path in the archive (below :data:`TOP`) to bytes."""
    files: dict[str, bytes] = {}
    for src in sorted((root / "lab" / "download").iterdir()):
        if src.is_file():
            files[src.name] = src.read_bytes()
    files["requirements.txt"] = requirements_text().encode("utf-8")
    for pattern in SUITE_FILES:
        for src in sorted(root.glob(pattern)):
            rel = src.relative_to(root).as_posix()
            files[rel] = src.read_bytes()
            if rel.startswith(LAB_SKELETON + "/"):
                files[LAB_MINE + rel[len(LAB_SKELETON) :]] = src.read_bytes()
    return files


def write_download(site: Path, root: Path = ROOT) -> Path:
    """Write the lab's ``.zip`` into the built site ``site``; return its path."""
    path = site / LAB_DOWNLOAD
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in sorted(lab_files(root).items()):
            info = zipfile.ZipInfo(f"{TOP}/{name}", date_time=_DATE)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return path


def _on_build_finished(app, exception) -> None:
    if exception is None and app.builder.format == "html":
        write_download(Path(app.outdir), Path(app.srcdir))


def setup(app):
    """Register the extension: write the lab's download when the HTML build finishes."""
    app.connect("build-finished", _on_build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
