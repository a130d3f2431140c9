"""coursebuild.lite.bytecode: wheels shipped with bytecode, sourceless or beside their sources, and a cache.

:func:`add_bytecode` runs here under this CPython (the build runs it under Pyodide's, through Node; the
live kernel check in ``tests/lite`` proves the kernel imports that bytecode). A compiled wheel must
import from its bytecode alone, list every file in its RECORD with the right hash, and keep data files.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import importlib.util
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from coursebuild.lite import bytecode as lite_bytecode
from coursebuild.lite.bytecode import add_bytecode, bytecode_name, compile_wheels
from coursebuild.lite.wheels import record_text

FILES = {
    "demo_pkg/__init__.py": b"from .mod import VALUE\n",
    "demo_pkg/mod.py": b"VALUE = 'from source'\n",
    "demo_pkg/data.txt": b"not code\n",
    "demo_pkg/broken.py": b"def (:\n",  # does not compile: stays source only
}


def write_wheel(dest: Path, name: str, version: str, files: dict[str, bytes]) -> Path:
    """Write a minimal pure-Python wheel of ``files`` (archive path -> bytes) into ``dest``; return its path."""
    info = f"{name}-{version}.dist-info"
    files = {
        **files,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    files[f"{info}/RECORD"] = record_text(files, f"{info}/RECORD").encode()
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for arc, data in files.items():
            zf.writestr(zipfile.ZipInfo(arc, date_time=(2020, 1, 1, 0, 0, 0)), data)
    return path


@pytest.fixture
def wheel(tmp_path: Path) -> Path:
    return write_wheel(tmp_path / "in", "demo_pkg", "1.0", FILES)


def _unpack(whl: Path, dest: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(whl) as zf:
        zf.extractall(dest)
        return {name: zf.read(name) for name in zf.namelist()}


def _import_value(site: Path) -> str:
    """Import demo_pkg from ``site`` in a fresh interpreter that writes no bytecode; return VALUE and the file."""
    code = "import demo_pkg, demo_pkg.mod as m; print(demo_pkg.VALUE, m.__file__.rsplit('/', 1)[-1])"
    return subprocess.run(
        [sys.executable, "-B", "-c", code], cwd=site, check=True, capture_output=True, text=True
    ).stdout.strip()


def test_sourceless_wheel_imports_from_bytecode_alone(wheel: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.whl"
    assert add_bytecode(str(wheel), str(out), keep_source=False) == 2  # broken.py does not compile
    files = _unpack(out, tmp_path / "site")
    assert "demo_pkg/mod.pyc" in files and "demo_pkg/mod.py" not in files
    assert files["demo_pkg/data.txt"] == b"not code\n" and files["demo_pkg/broken.py"] == FILES["demo_pkg/broken.py"]
    assert files["demo_pkg/mod.pyc"][:4] == importlib.util.MAGIC_NUMBER
    assert _import_value(tmp_path / "site") == "from source mod.pyc"


def test_wheel_that_keeps_its_sources_imports_its_unchecked_bytecode(wheel: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.whl"
    add_bytecode(str(wheel), str(out), keep_source=True)
    site = tmp_path / "site"
    files = _unpack(out, site)
    pyc = bytecode_name("demo_pkg/mod.py", sys.implementation.cache_tag, keep_source=True)
    assert files["demo_pkg/mod.py"] == FILES["demo_pkg/mod.py"] and pyc in files
    assert int.from_bytes(files[pyc][4:8], "little") == 0b01  # hash-based, unchecked (PEP 552)
    # the source changes after unpacking: an unchecked pyc is still what the import runs
    (site / "demo_pkg" / "mod.py").write_bytes(b"VALUE = 'edited source'\n")
    assert _import_value(site) == "from source mod.py"


@pytest.mark.parametrize("keep_source", [True, False])
def test_record_lists_every_file_with_its_hash(wheel: Path, tmp_path: Path, keep_source: bool) -> None:
    out = tmp_path / "out.whl"
    add_bytecode(str(wheel), str(out), keep_source=keep_source)
    files = _unpack(out, tmp_path / "site")
    record_name = next(n for n in files if n.endswith(".dist-info/RECORD"))
    rows = {row[0]: row[1:] for row in csv.reader(files[record_name].decode().splitlines())}
    assert set(rows) == set(files)
    for name, (digest, size) in rows.items():
        if name == record_name:
            assert (digest, size) == ("", "")
            continue
        want = base64.urlsafe_b64encode(hashlib.sha256(files[name]).digest()).rstrip(b"=").decode()
        assert (digest, int(size)) == (f"sha256={want}", len(files[name])), name


def test_compile_wheels_reuses_its_cache_without_node(wheel: Path, tmp_path: Path, monkeypatch) -> None:
    pyodide = tmp_path / "pyodide"
    pyodide.mkdir()
    (pyodide / "package.json").write_text('{"version": "0.0-test"}', encoding="utf-8")
    cache = tmp_path / "cache"
    original = wheel.read_bytes()
    calls = []

    def fake_node(cmd, check):  # the compile Node would run, done here by this interpreter
        calls.append(cmd)
        import json

        for job in json.loads(Path(cmd[-1]).read_text(encoding="utf-8")):
            n = add_bytecode(job["src"], job["dst"], keep_source=job["keep_source"])
            Path(job["dst"]).with_suffix(".json").write_text(json.dumps({"compiled": n}), encoding="utf-8")

    monkeypatch.setattr(lite_bytecode.subprocess, "run", fake_node)
    monkeypatch.setattr(lite_bytecode.shutil, "which", lambda name: "/usr/bin/node")
    assert compile_wheels([wheel], pyodide, cache) == {wheel.name: 2}
    compiled = wheel.read_bytes()
    assert compiled != original and len(calls) == 1
    wheel.write_bytes(original)  # the next build writes the same input wheel again
    assert compile_wheels([wheel], pyodide, cache) == {wheel.name: 2}
    assert wheel.read_bytes() == compiled and len(calls) == 1  # served from the cache: Node not run again


def test_compile_wheels_names_node_when_it_is_missing(wheel: Path, tmp_path: Path, monkeypatch) -> None:
    pyodide = tmp_path / "pyodide"
    pyodide.mkdir()
    (pyodide / "package.json").write_text('{"version": "0.0-test"}', encoding="utf-8")
    monkeypatch.setattr(lite_bytecode.shutil, "which", lambda name: None)
    original = wheel.read_bytes()
    with pytest.raises(RuntimeError, match="node is missing"):
        compile_wheels([wheel], pyodide, tmp_path / "cache")
    assert wheel.read_bytes() == original  # left as it was
