"""Obtain and write the Python wheels the course's JupyterLite site serves to its in-browser kernel.

Two kinds, both pure Python:

* wheels fetched from PyPI with the ordinary ``pip download`` client (cached between builds);
* the ``labcore`` wheel, written with the standard library from the working tree.

:func:`prepare_piplite` fills the ``pypi/`` folder that JupyterLite indexes for ``piplite``:
``comm`` (the kernel installs it while booting), ``labcore``, ``hypothesis`` (chapter 7's
contract suite has property tests) and ``jupyterquiz`` (the chapters' self-check quizzes). Packages that are
also in Pyodide's own lock (pytest and its dependencies) are served through the lock instead, by
:mod:`coursebuild.lite_runtime`.

>>> find_wheel(Path("."), "no-such-dist", "1.0") is None
True
"""

from __future__ import annotations

import base64
import csv
import hashlib
import importlib.metadata
import io
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: wheels served through piplite, at this environment's versions (``requirements.txt`` pins them): ``comm`` (the
#: kernel installs it while booting), ``jupyterquiz`` (the quizzes) and ``hypothesis`` (the contract suite)
PIPLITE_DISTS = ("comm", "jupyterquiz", "hypothesis")
#: Pyodide's Python (the version ``pip download`` picks pure-Python wheels for)
PYODIDE_PYTHON = "3.14"


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
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
         "--only-binary=:all:", "--python-version", PYODIDE_PYTHON, "--implementation", "py",
         "--abi", "none", "--platform", "any", "--dest", str(dest), *missing],
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


def write_wheel(dest: Path, name: str, version: str, files: dict[str, bytes], summary: str) -> Path:
    """Write a reproducible pure-Python wheel of ``files`` (archive path -> bytes) into ``dest``."""
    info = f"{name}-{version}.dist-info"
    files = dict(files)
    files[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: {summary}\n"
        "Requires-Python: >=3.11\n"
    ).encode()
    files[f"{info}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: coursebuild.lite_wheels\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    ).encode()
    files[f"{info}/RECORD"] = record_text(files, f"{info}/RECORD").encode()
    dest.mkdir(parents=True, exist_ok=True)
    for old in dest.glob(f"{name}-*.whl"):
        old.unlink()
    path = dest / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for arc, data in files.items():
            zi = zipfile.ZipInfo(arc, date_time=(2020, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(zi, data)
    return path


def build_labcore_wheel(dest: Path, root: Path = ROOT) -> Path:
    """Write a pure-Python wheel of the working tree's ``labcore`` package into ``dest``.

    Built with the standard library (no build backend to download) from every file under
    ``labcore/`` except caches; it lists no dependencies (labcore's core and panels are
    stdlib-only; plots import numpy and matplotlib lazily) and is reproducible.
    """
    pkg = root / "labcore"
    init = (pkg / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", init, re.M)
    files = {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(pkg.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts and path.suffix not in {".pyc", ".pyo"}
    }
    return write_wheel(dest, "labcore", match.group(1) if match else "0.0.0", files,
                       "labcore, the multi-LoRA course library (built for JupyterLite)")


def prepare_piplite(out: Path, cache: Path, root: Path = ROOT) -> list[Path]:
    """Put the piplite wheels (``PIPLITE_DISTS`` from PyPI, and labcore) in ``out/pypi``; return their paths."""
    dest = out / "pypi"
    shutil.rmtree(dest, ignore_errors=True)
    specs = [f"{d}=={importlib.metadata.version(d)}" for d in PIPLITE_DISTS]
    wheel_cache = cache / "piplite-wheels"
    pip_download(specs, wheel_cache)
    dest.mkdir(parents=True)
    for spec in specs:
        shutil.copy2(find_wheel(wheel_cache, *spec.split("==")), dest)
    build_labcore_wheel(dest, root)
    return sorted(dest.glob("*.whl"))
