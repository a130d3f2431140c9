"""Obtain and write the Python wheels the course's JupyterLite site serves to its in-browser kernel.

Two kinds, both pure Python:

* wheels fetched from PyPI with the ordinary ``pip download`` client (cached between builds);
* the ``labcore`` wheel, built from the working tree by the standard build frontend (``python -m build``)
  from the root ``pyproject.toml``, whose distribution is labcore alone.

:func:`prepare_piplite` fills the ``pypi/`` folder that JupyterLite indexes for ``piplite``:
``comm`` (the kernel installs it while booting), ``labcore``, ``hypothesis`` (chapter 7's
contract suite has property tests) and ``jupyterquiz`` (the chapters' self-check quizzes). Packages that are
also in Pyodide's own lock (pytest and its dependencies) are served through the lock instead, by
:mod:`coursebuild.lite.runtime`.

>>> find_wheel(Path("."), "no-such-dist", "1.0") is None
True
"""

from __future__ import annotations

import base64
import csv
import fcntl
import hashlib
import importlib.metadata
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: wheels served through piplite, at this environment's versions (``requirements.txt`` pins them): ``comm`` (the
#: kernel installs it while booting), ``jupyterquiz`` (the quizzes), ``hypothesis`` (the contract suite) and
#: ipywidgets (a panel's live controls, ``labcore.panels.live_panel``); not the two front-end packages ipywidgets
#: requires (``coursebuild.lite.runtime.FRONT_END_ONLY``, 2.4 MB of wheels): the kernel never installs them
PIPLITE_DISTS = ("comm", "jupyterquiz", "hypothesis", "ipywidgets")
#: Pyodide's Python (the version ``pip download`` picks pure-Python wheels for)
PYODIDE_PYTHON = "3.14"
#: the date a built wheel's files carry (``SOURCE_DATE_EPOCH``, 2020-01-01) instead of their mtimes: an unchanged
#: labcore gives a byte-identical wheel, whose compiled copy then comes from the cache
#: (:mod:`coursebuild.lite.bytecode`)
WHEEL_EPOCH = "1577836800"


def log(msg: str) -> None:
    """Print one progress line prefixed with the tool name."""
    print(f"[build_lite] {msg}", flush=True)


def normalize(name: str) -> str:
    """Return a distribution name in PEP 503 form.

    >>> normalize("Prompt_Toolkit")
    'prompt-toolkit'
    """
    return re.sub(r"[-_.]+", "-", name).lower()


def find_wheel(folder: Path, name: str, version: str) -> Path | None:
    """Return the wheel of ``name==version`` in ``folder``, if there is one."""
    for whl in folder.glob("*.whl") if folder.is_dir() else []:
        parts = whl.name.split("-")
        if normalize(parts[0]) == normalize(name) and parts[1] == version:
            return whl
    return None


def pip_download(specs: list[str], dest: Path) -> None:
    """Download exact pure-Python wheels (``name==version``, no dependencies) into ``dest`` once."""
    missing = [s for s in specs if not find_wheel(dest, *s.split("=="))]
    if not missing:
        return
    dest.mkdir(parents=True, exist_ok=True)
    log(f"pip download {' '.join(missing)}")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--only-binary=:all:",
            "--python-version",
            PYODIDE_PYTHON,
            "--implementation",
            "py",
            "--abi",
            "none",
            "--platform",
            "any",
            "--dest",
            str(dest),
            *missing,
        ],
        check=True,
    )


def sha256_of(path: Path) -> str:
    """Return the hex sha256 digest of a file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def record_text(files: dict[str, bytes], record_name: str) -> str:
    """Return a wheel's ``RECORD``: each file (archive path -> bytes) with its sha256 and size, then itself.

    >>> record_text({"a.py": b""}, "a-1.dist-info/RECORD").splitlines()[1]
    'a-1.dist-info/RECORD,,'
    """
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for arc, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        writer.writerow([arc, f"sha256={digest}", len(data)])
    writer.writerow([record_name, "", ""])
    return record.getvalue()


def build_wheel(project: Path, outdir: Path) -> Path:
    """Build the wheel of the Python project at ``project`` with ``python -m build`` into ``outdir``; return it.

    ``outdir`` is emptied first. The frontend's default run: the sdist, then the wheel from the unpacked sdist
    (a wheel built straight from the tree, ``--wheel``, would also carry any module deleted since an earlier
    build, which setuptools leaves in ``build/lib``). ``--no-isolation``: with this environment's setuptools
    (``requirements.txt``), so nothing is downloaded at build time. Reproducible (:data:`WHEEL_EPOCH`).
    """
    shutil.rmtree(outdir, ignore_errors=True)
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(outdir), str(project)],
        capture_output=True,
        text=True,
        env={**os.environ, "SOURCE_DATE_EPOCH": WHEEL_EPOCH},
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"`python -m build` failed for {project} (exit {done.returncode}):\n"
            f"{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )
    wheels = sorted(outdir.glob("*.whl"))
    if len(wheels) != 1:
        raise RuntimeError(f"`python -m build` left {len(wheels)} wheels in {outdir}, expected one")
    return wheels[0]


def build_labcore_wheel(outdir: Path, root: Path = ROOT) -> Path:
    """Build labcore's wheel from ``root`` (its ``pyproject.toml``: labcore and its data files) into ``outdir``.

    Pure Python with no dependencies (labcore's core and panels are stdlib-only; plots import numpy and
    matplotlib lazily, and ask for them only through the ``plots`` extra).
    """
    log(f"python -m build {root} (labcore's wheel)")
    return build_wheel(root, outdir)


def prepare_piplite(out: Path, cache: Path, root: Path = ROOT) -> list[Path]:
    """Put the piplite wheels (``PIPLITE_DISTS`` from PyPI, and labcore's, built in ``cache``) in ``out/pypi``.

    Returns their paths.
    """
    dest = out / "pypi"
    shutil.rmtree(dest, ignore_errors=True)
    specs = [f"{d}=={importlib.metadata.version(d)}" for d in PIPLITE_DISTS]
    wheel_cache = cache / "piplite-wheels"
    pip_download(specs, wheel_cache)
    dest.mkdir(parents=True)
    for spec in specs:
        whl = find_wheel(wheel_cache, *spec.split("=="))
        if whl is None:
            raise FileNotFoundError(f"pip download gave no wheel for {spec} in {wheel_cache}")
        shutil.copy2(whl, dest)
    cache.mkdir(parents=True, exist_ok=True)
    # one build at a time (the Live tests' two workers start at once): setuptools makes its sdist in the tree, and
    # both would empty and fill the same cache folder
    with open(cache / "labcore-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        shutil.copy2(build_labcore_wheel(cache / "labcore-build", root), dest)
    return sorted(dest.glob("*.whl"))
