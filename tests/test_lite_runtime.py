"""coursebuild.lite_runtime: the live site's Pyodide is the npm package ``npm ci`` installs from the committed lock.

- ``package.json`` pins the Pyodide that the installed jupyterlite-pyodide-kernel expects;
- :func:`coursebuild.lite_runtime.pyodide_package` returns ``node_modules/pyodide`` with every runtime file the
  site serves and the lock it rewrites, and refuses another version with what to change.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coursebuild import lite_runtime, vendor

ROOT = Path(__file__).resolve().parents[1]
PINNED = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["dependencies"]["pyodide"]


def test_package_json_pins_the_pyodide_the_kernel_expects() -> None:
    pytest.importorskip("jupyterlite_pyodide_kernel", reason="requirements-lite.txt is not installed")
    assert PINNED == lite_runtime.pyodide_version() == "314.0.6"


def test_pyodide_package_holds_the_runtime_and_its_lock() -> None:
    try:
        folder = lite_runtime.pyodide_package(PINNED)
    except vendor.NpmError as err:
        pytest.skip(str(err))
    assert folder == ROOT / "node_modules" / "pyodide"
    for name in (*lite_runtime.RUNTIME_FILES, "pyodide-lock.json"):
        assert (folder / name).is_file(), name
    assert json.loads((folder / "package.json").read_text(encoding="utf-8"))["version"] == PINNED
    lock = json.loads((folder / "pyodide-lock.json").read_text(encoding="utf-8"))
    assert set(lite_runtime.BOOT_ROOTS + lite_runtime.SUITE_ROOTS) <= set(lock["packages"])


def test_another_pyodide_version_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(vendor, "node_modules", lambda root: tmp_path / "node_modules")
    monkeypatch.setattr(vendor, "installed_version", lambda name, root: "0.29.0")
    with pytest.raises(RuntimeError, match=r'pins pyodide 0\.29\.0.*expects 314\.0\.6.*"pyodide": "314\.0\.6"'):
        lite_runtime.pyodide_package("314.0.6", tmp_path)
