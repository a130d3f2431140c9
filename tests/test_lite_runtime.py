"""coursebuild.lite.runtime: the live site's Pyodide is the npm package ``npm ci`` installs from the committed lock.

- ``package.json`` pins the Pyodide that the installed jupyterlite-pyodide-kernel expects;
- :func:`coursebuild.lite.runtime.pyodide_package` returns ``node_modules/pyodide`` with every runtime file the
  site serves and the lock it rewrites, and refuses another version with what to change.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coursebuild import vendor
from coursebuild.lite import runtime as lite_runtime

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


def _wheel(folder: Path, name: str, version: str, requires: tuple[str, ...] = ()) -> Path:
    """Write a tiny pure-Python wheel of ``name`` (one module) requiring ``requires``."""
    import zipfile

    module = name.replace("-", "_")
    path = folder / f"{module}-{version}-py3-none-any.whl"
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" + "".join(
        f"Requires-Dist: {r}\n" for r in requires
    )
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(f"{module}/__init__.py", "")
        zf.writestr(f"{module}-{version}.dist-info/METADATA", meta)
    return path


def _runtime(tmp_path: Path) -> Path:
    (tmp_path / "static" / "pyodide").mkdir(parents=True)
    lock = {"info": {"python": "3.14.2"}, "packages": {"ipython": {"name": "ipython", "depends": []}}}
    (tmp_path / "static" / "pyodide" / "pyodide-lock.json").write_text(json.dumps(lock), encoding="utf-8")
    return tmp_path


def test_preloaded_wheels_are_served_beside_the_runtime_and_listed_in_its_lock(tmp_path: Path) -> None:
    out = _runtime(tmp_path / "lite")
    wheels = [
        _wheel(tmp_path, "pyodide-kernel", "0.8.6", ("comm", "ipython", 'numpy; sys_platform == "win32"')),
        _wheel(tmp_path, "comm", "0.2.3"),
    ]  # a requirement may come later in the batch
    assert lite_runtime.preload_wheels(out, wheels) == ["pyodide-kernel", "comm"]
    lock = json.loads((out / "static" / "pyodide" / "pyodide-lock.json").read_text(encoding="utf-8"))
    entry = lock["packages"]["pyodide-kernel"]
    assert entry["depends"] == ["comm", "ipython"]  # the marker that is false in Pyodide is left out
    assert (entry["file_name"], entry["imports"], entry["install_dir"]) == (wheels[0].name, ["pyodide_kernel"], "site")
    assert (out / "static" / "pyodide" / wheels[0].name).read_bytes() == wheels[0].read_bytes()
    assert entry["sha256"] == lite_runtime.sha256_of(wheels[0])


def test_ipywidgets_is_preloaded_without_its_front_end_packages(tmp_path: Path) -> None:
    """Live controls need ipywidgets in every kernel; its notebook and JupyterLab extensions are front-end files
    the kernel never imports, so its lock entry leaves them out (they need not be served either)."""
    assert "ipywidgets" in lite_runtime.PRELOADED_PIPLITE
    out = _runtime(tmp_path / "lite")
    wheel = _wheel(
        tmp_path,
        "ipywidgets",
        "8.1.9",
        ("comm>=0.1.3", "ipython>=6.1.0", "widgetsnbextension~=4.0.14", "jupyterlab_widgets~=3.0.15"),
    )
    assert lite_runtime.preload_wheels(out, [wheel, _wheel(tmp_path, "comm", "0.2.3")]) == ["ipywidgets", "comm"]
    lock = json.loads((out / "static" / "pyodide" / "pyodide-lock.json").read_text(encoding="utf-8"))
    assert lock["packages"]["ipywidgets"]["depends"] == ["comm", "ipython"]


def test_a_preloaded_wheel_whose_requirement_is_not_served_is_refused(tmp_path: Path) -> None:
    out = _runtime(tmp_path / "lite")
    before = (out / "static" / "pyodide" / "pyodide-lock.json").read_text(encoding="utf-8")
    with pytest.raises(KeyError, match=r"needs_numpy-1.0-py3-none-any.whl requires \['numpy'\], which neither"):
        lite_runtime.preload_wheels(out, [_wheel(tmp_path, "needs-numpy", "1.0", ("numpy",))])
    assert (out / "static" / "pyodide" / "pyodide-lock.json").read_text(encoding="utf-8") == before
    assert sorted(p.name for p in (out / "static" / "pyodide").iterdir()) == ["pyodide-lock.json"]


def test_the_config_preloads_the_kernels_wheels(tmp_path: Path) -> None:
    lite_runtime.write_config(tmp_path, lite_runtime.PRELOAD + ("piplite", "ipykernel"))
    settings = json.loads((tmp_path / "jupyter-lite.json").read_text(encoding="utf-8"))["jupyter-config-data"]
    packages = settings["litePluginSettings"][lite_runtime.KERNEL_PLUGIN]["loadPyodideOptions"]["packages"]
    assert packages == ["micropip", "ipython", "jedi", "pytest", "piplite", "ipykernel"]


def test_the_kernel_extension_ships_the_wheels_its_worker_would_install() -> None:
    pytest.importorskip("jupyterlite_pyodide_kernel", reason="requirements-lite.txt is not installed")
    wheels = lite_runtime.kernel_extension_wheels()
    assert [lite_runtime.normalize(w.name.split("-")[0]) for w in wheels] == list(lite_runtime.KERNEL_WHEELS)


def test_the_front_end_only_wheels_are_not_served() -> None:
    """ipywidgets' notebook and JupyterLab extensions are front-end files: no piplite wheel of theirs is served."""
    from coursebuild.lite.wheels import PIPLITE_DISTS

    served = {lite_runtime.normalize(d) for d in PIPLITE_DISTS}
    assert "ipywidgets" in served and not served & set(lite_runtime.FRONT_END_ONLY), served
