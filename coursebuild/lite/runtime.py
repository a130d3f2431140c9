"""Lay out the Pyodide runtime of the course's JupyterLite site so its kernel boots with no outside request.

:func:`prepare_pyodide` fills ``static/pyodide/`` of the JupyterLite input folder:

* the runtime files of the npm ``pyodide`` package, which ``package.json`` pins at the version
  ``jupyterlite-pyodide-kernel`` expects and ``npm ci`` installs into ``node_modules/pyodide``
  (:func:`coursebuild.vendor.node_modules`);
* the pure-Python wheels, downloaded from PyPI with pip, of two closures of Pyodide's lock: what
  the kernel loads while booting (micropip, IPython, jedi and their dependencies) and what
  chapter 7's contract suite needs (pytest and its dependencies, hypothesis's sortedcontainers);
* those wheels compiled with Pyodide's own Python (:mod:`coursebuild.lite.bytecode`), so the kernel
  imports them without compiling at every start;
* a rewritten ``pyodide-lock.json`` that lists only those served packages (with their sha256):
  every other package of Pyodide's distribution (numpy, matplotlib, ...) is left out, so the
  kernel never asks for a file the site does not have; an import of one fails at once with
  ``ImportError`` (the live copies guard numpy and matplotlib, see :mod:`coursebuild.lite.notebooks`).

:func:`preload_wheels` adds more wheels to that lock: the kernel extension's own (piplite, the ipykernel shim,
pyodide-kernel), which its worker would otherwise install one by one after the runtime has loaded, and the
wheels every live copy's first cell installs (labcore, jupyterquiz, comm). :func:`write_config` writes
``jupyter-lite.json``, which has ``loadPyodide`` load them all with the runtime in one batch and turns the PyPI
fallback off so a missing package fails at once instead of asking PyPI, and ``overrides.json`` (JupyterLab
settings).

Why this module and not jupyterlite-pyodide-kernel's own ``PyodideLockAddon`` (0.8.6, ``--pyodide-lock``), tried
on 2026-12-05 with a runtime folder as ``npm ci`` installs it and the same wheels asked for as specs:

* it needs ``pyodide-lock>=0.1.3,<0.2`` (with ``uv``), and pyodide-lock 0.1.3 requires Python >= 3.12: pip in the
  book's Python 3.11 refuses it ("Ignored the following versions that require a different python version: 0.1.3
  Requires-Python >=3.12"), so it cannot be pinned in ``requirements-lite.txt``;
* installed past that check (``--ignore-requires-python``), it imports, but its ``uv pip compile`` takes every one
  of the 350 packages of Pyodide's lock as a constraint at Pyodide's CDN, since the npm runtime ships no wheels (a
  "partial Pyodide distribution" to the addon), and fails offline: "Failed to fetch: <Pyodide's CDN>/
  sortedcontainers-2.4.0-py2.py3-none-any.whl ... dns error". The lock it would write also keeps every package the
  site does not serve, pointing at the CDN, where ours lists only what the site serves (an import of numpy fails
  at once instead of asking an outside host);
* it writes its lock while ``jupyter lite build`` runs, after the wheels would have to be compiled
  (:mod:`coursebuild.lite.bytecode`) and snapshot (:mod:`coursebuild.lite.fast_start`).

So the closure, the rewrite and the preload stay here, on PyPI's wheels fetched with pip.

>>> lock_closure({"a": {"depends": ["B"]}, "b": {"depends": []}}, ("a",))
['a', 'b']
"""

from __future__ import annotations

import email.parser
import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

from jupyter_core.paths import jupyter_path
from jupyterlite_pyodide_kernel.constants import PYODIDE_VERSION
from packaging.requirements import Requirement

from .. import vendor
from .bytecode import compile_wheels
from .wheels import find_wheel, log, normalize, pip_download, sha256_of

KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"
#: packages the kernel loads from the lock while booting (the kernel's worker: micropip first,
#: then ipykernel/comm/pyodide-kernel/jedi/ipython through piplite)
BOOT_ROOTS = ("micropip", "ipython", "jedi")
#: lock packages the contract suite imports (chapter 7 runs it in the kernel); their lock
#: ``depends`` are replaced by the served wheels' own requirements (the lock's list for pytest
#: names packages pytest no longer uses, some without a wheel on PyPI)
SUITE_ROOTS = ("pytest", "sortedcontainers")
#: preloaded by ``loadPyodide`` in parallel with the runtime (saves round trips at boot); pytest for the chapters
#: and the lab notebook that run the contract suite: their first cell's install found it in place (0.45 s less,
#: with hypothesis below), and a restored kernel writes its files from one bundle (``lite_snapshot``) in milliseconds
PRELOAD = ("micropip", "ipython", "jedi", "pytest")
#: the kernel extension's own wheels, which its worker otherwise installs one by one through micropip and piplite
#: after the runtime has loaded (it skips each one ``loadPyodideOptions.packages`` names)
KERNEL_WHEELS = ("piplite", "ipykernel", "pyodide-kernel")
#: piplite wheels that live copies install in their first cell (``comm`` is pyodide-kernel's requirement,
#: ``hypothesis`` the contract suite's): in the lock and preloaded too, so that install finds them in place; and
#: ipywidgets, which no cell installs: a panel's live controls (``labcore.panels.live_panel``) work in every kernel
#: of the site, a blank notebook's too, as pytest does
PRELOADED_PIPLITE = ("comm", "labcore", "jupyterquiz", "hypothesis", "ipywidgets")
#: requirements of a preloaded wheel that hold only a front end's files, which the kernel never imports (ipywidgets'
#: notebook and JupyterLab extensions: 9.9 MB unpacked; the site serves the widget manager itself): left out of its
#: lock entry, so the kernel does not load them, and not served (``coursebuild.lite.wheels.PIPLITE_DISTS``)
FRONT_END_ONLY = ("widgetsnbextension", "jupyterlab-widgets")
#: JupyterLab settings of the site: every cell of a chapter is laid out (not only those in view),
#: so "Run All" leaves every output on the page and the browser's find sees the whole chapter; and a
#: notebook starts the site's one kernel by itself, never asking "Select Kernel" (JupyterLab asked
#: when a notebook opened before the kernel specs arrived, a race a busy machine lost)
SETTINGS_OVERRIDES = {
    "@jupyterlab/notebook-extension:tracker": {"windowingMode": "defer", "autoStartDefaultKernel": True}
}
#: runtime files taken from the npm package (no source maps, no typings, no demo consoles)
RUNTIME_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "package.json")
#: the environment markers of Pyodide's kernel, for reading a wheel's requirements
PYODIDE_MARKERS = {
    "sys_platform": "emscripten",
    "platform_system": "Emscripten",
    "os_name": "posix",
    "platform_machine": "wasm32",
    "implementation_name": "cpython",
    "extra": "",
}


def pyodide_version() -> str:
    """Return the Pyodide version the installed ``jupyterlite-pyodide-kernel`` expects."""

    return PYODIDE_VERSION


def pyodide_package(version: str, root: Path = vendor.ROOT) -> Path:
    """Return ``node_modules/pyodide``, checked to be ``version`` (``npm ci`` runs first if it is missing or stale)."""
    folder = vendor.node_modules(root) / "pyodide"
    installed = vendor.installed_version("pyodide", root)
    if installed != version:
        raise RuntimeError(
            f"package.json pins pyodide {installed}, but jupyterlite-pyodide-kernel expects {version}: "
            f'pin "pyodide": "{version}" in package.json and run `npm install --package-lock-only`'
        )
    return folder


def lock_closure(packages: dict, roots: tuple[str, ...]) -> list[str]:
    """Return the names in the lock reachable from ``roots`` through ``depends``."""
    seen: list[str] = []
    stack = list(roots)
    while stack:
        name = normalize(stack.pop())
        if name in seen:
            continue
        if name not in packages:
            raise KeyError(f"{name!r} is not in pyodide-lock.json")
        seen.append(name)
        stack.extend(packages[name]["depends"])
    return sorted(seen)


def served_wheels(pyodide_dir: Path, roots: tuple[str, ...] | list[str]) -> list[Path]:
    """Return the wheels the served runtime folder holds for ``roots`` and their lock dependencies, by name."""
    lock = json.loads((pyodide_dir / "pyodide-lock.json").read_text(encoding="utf-8"))["packages"]
    return [pyodide_dir / lock[name]["file_name"] for name in lock_closure(lock, tuple(roots))]


def _lock_python(lock: dict) -> str:
    """Return the ``major.minor`` Python version of a Pyodide lock (its wheels' markers are evaluated for it)."""
    return ".".join(lock["info"]["python"].split(".")[:2])


def _metadata(whl: Path) -> tuple[Any, list[str]]:
    """Return a wheel's ``METADATA`` headers and the top-level names it installs (its import names)."""
    with zipfile.ZipFile(whl) as zf:
        meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        headers = email.parser.Parser().parsestr(zf.read(meta).decode("utf-8"), headersonly=True)
        tops = sorted({n.split("/")[0] for n in zf.namelist() if "/" in n and ".dist-info/" not in n})
    return headers, tops


def wheel_requires(whl: Path, python: str) -> list[str]:
    """Return the distributions a wheel requires in Pyodide's kernel (markers evaluated, no extras)."""

    headers, _ = _metadata(whl)
    env = {**PYODIDE_MARKERS, "python_version": python, "python_full_version": f"{python}.0"}
    out = []
    for line in headers.get_all("Requires-Dist") or []:
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate(env):
            out.append(normalize(req.name))
    return sorted(set(out))


def _serve(packages: dict, names: list[str], cache: Path, dest: Path) -> list[str]:
    """Copy the PyPI wheels of lock entries ``names`` into ``dest``, point the lock at them; return re-hashed names."""
    pip_download([f"{packages[n]['name']}=={packages[n]['version']}" for n in names], cache)
    rehashed = []
    for name in names:
        pkg = packages[name]
        whl = find_wheel(cache, pkg["name"], pkg["version"])
        if whl is None or not whl.name.endswith("-none-any.whl"):
            raise FileNotFoundError(f"no pure-Python wheel for {name}=={pkg['version']}")
        shutil.copy2(whl, dest / whl.name)
        digest = sha256_of(whl)
        if digest != pkg["sha256"]:
            rehashed.append(name)
        pkg["file_name"], pkg["sha256"] = whl.name, digest
    return rehashed


def suite_closure(packages: dict, boot: list[str], cache: Path, python: str) -> list[str]:
    """Return the lock packages the contract suite needs beyond ``boot``, following the wheels' own requirements.

    Each one's lock ``depends`` is rewritten to those requirements, so micropip asks for nothing else.
    """
    seen: list[str] = []
    stack = list(SUITE_ROOTS)
    while stack:
        name = normalize(stack.pop())
        if name in seen or name in boot:
            continue
        if name not in packages:
            raise KeyError(f"{name!r} (needed by the contract suite) is not in pyodide-lock.json")
        pkg = packages[name]
        pip_download([f"{pkg['name']}=={pkg['version']}"], cache)
        whl = find_wheel(cache, pkg["name"], pkg["version"])
        if whl is None:
            raise FileNotFoundError(f"pip download gave no wheel for {pkg['name']}=={pkg['version']} in {cache}")
        requires = wheel_requires(whl, python)
        pkg["depends"] = requires
        seen.append(name)
        stack.extend(requires)
    return sorted(seen)


def prepare_pyodide(out: Path, cache: Path) -> dict:
    """Lay the Pyodide runtime, the served wheels and a rewritten lock into ``out/static/pyodide``."""
    version = pyodide_version()
    npm = pyodide_package(version)
    dest = out / "static" / "pyodide"
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    for name in RUNTIME_FILES:
        shutil.copy2(npm / name, dest / name)

    lock = json.loads((npm / "pyodide-lock.json").read_text(encoding="utf-8"))
    packages = lock["packages"]
    python = _lock_python(lock)
    wheel_cache = cache / "boot-wheels"
    boot = lock_closure(packages, BOOT_ROOTS)
    suite = suite_closure(packages, boot, wheel_cache, python)
    rehashed = _serve(packages, boot + suite, wheel_cache, dest)
    compile_wheels([dest / packages[n]["file_name"] for n in boot + suite], npm, cache / "bytecode")
    for name in boot + suite:
        packages[name]["sha256"] = sha256_of(dest / packages[name]["file_name"])
    left_out = len(packages) - len(boot) - len(suite)
    lock["packages"] = {name: packages[name] for name in sorted(boot + suite)}
    (dest / "pyodide-lock.json").write_text(json.dumps(lock, indent=1), encoding="utf-8")
    log(
        f"pyodide {version}: {len(boot)} boot and {len(suite)} contract-suite wheels served "
        f"({', '.join(suite)}); the lock lists only these ({left_out} packages of Pyodide's distribution "
        f"left out); re-hashed: {rehashed or 'none'}"
    )
    return {"version": version, "npm": npm, "boot": boot, "suite": suite, "rehashed": rehashed}


def kernel_extension_wheels() -> list[Path]:
    """Return the wheels of :data:`KERNEL_WHEELS` the installed pyodide-kernel extension ships (its ``wheelDir``)."""

    for root in jupyter_path("labextensions"):
        package = Path(root) / "@jupyterlite" / "pyodide-kernel-extension" / "package.json"
        if package.is_file():
            folder = package.parent / json.loads(package.read_text(encoding="utf-8"))["piplite"]["wheelDir"]
            found = {normalize(w.name.split("-")[0]): w for w in folder.glob("*-none-any.whl")}
            missing = [n for n in KERNEL_WHEELS if n not in found]
            if missing:
                raise FileNotFoundError(f"the pyodide-kernel extension at {folder} has no wheel of {missing}")
            return [found[n] for n in KERNEL_WHEELS]
    raise FileNotFoundError("no @jupyterlite/pyodide-kernel-extension in the Jupyter paths (requirements-lite.txt)")


def preload_wheels(out: Path, wheels: list[Path]) -> list[str]:
    """Serve ``wheels`` beside the runtime and list them in its lock; return their lock names (to preload).

    Each entry's ``depends`` are the wheel's own requirements but :data:`FRONT_END_ONLY`, which the lock or
    ``wheels`` must serve.
    """
    dest = out / "static" / "pyodide"
    lock_path = dest / "pyodide-lock.json"
    lock = json.loads(lock_path.read_text(encoding="utf-8"))
    python = _lock_python(lock)
    entries = {}
    for whl in wheels:
        headers, imports = _metadata(whl)
        depends = [d for d in wheel_requires(whl, python) if d not in FRONT_END_ONLY]
        entries[normalize(headers["Name"])] = (
            whl,
            {
                "name": headers["Name"],
                "version": headers["Version"],
                "file_name": whl.name,
                "install_dir": "site",
                "package_type": "package",
                "sha256": sha256_of(whl),
                "imports": imports,
                "depends": depends,
                "unvendored_tests": False,
            },
        )
    for whl, entry in entries.values():  # checked before anything is written: the folder and its lock stay as they were
        unknown = [d for d in entry["depends"] if d not in lock["packages"] and d not in entries]
        if unknown:
            raise KeyError(f"{whl.name} requires {unknown}, which neither the lock nor these wheels serve")
    for name, (whl, entry) in entries.items():
        shutil.copy2(whl, dest / whl.name)
        lock["packages"][name] = entry
    lock_path.write_text(json.dumps(lock, indent=1), encoding="utf-8")
    return list(entries)


def write_config(out: Path, preload: tuple[str, ...] | list[str] = PRELOAD) -> None:
    """Write the lite folder's ``jupyter-lite.json`` (no PyPI fallback, ``preload`` loaded with the runtime),
    ``overrides.json`` and build config."""
    settings = {"disablePyPIFallback": True, "loadPyodideOptions": {"packages": list(preload)}}
    (out / "jupyter-lite.json").write_text(
        json.dumps(
            {
                "jupyter-lite-schema-version": 0,
                "jupyter-config-data": {
                    "appName": "multi-LoRA course (live)",
                    "litePluginSettings": {KERNEL_PLUGIN: settings},
                },
            },
            indent=2,
        ),
        encoding="utf-8",
    )
    (out / "overrides.json").write_text(json.dumps(SETTINGS_OVERRIDES, indent=2), encoding="utf-8")
    (out / "jupyter_lite_config.json").write_text(
        json.dumps(
            {
                "LiteBuildConfig": {"no_sourcemaps": True, "no_unused_shared_packages": True},
            },
            indent=2,
        ),
        encoding="utf-8",
    )
