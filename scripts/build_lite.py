"""Build the course's JupyterLite site so its Pyodide kernel boots with no external request.

Two ways to use this file:

* as a Sphinx extension (``sphinx: local_extensions: {build_lite: scripts/}`` in ``_config.yml``):
  before the book is read it prepares the JupyterLite input folder (``_build/lite_src``) that
  ``jupyterlite-sphinx`` then builds into ``_build/html/lite``; it adds a "Live"
  button to every chapter page, drops the web font ``jupyterlite-sphinx`` would load from
  Google on every page, and after the build removes source maps and reports the site size;
* as a command, for the browser test or a quick look without a book build::

      python scripts/build_lite.py --out _build/lite_only [--notebooks book/01_*.ipynb]
      python scripts/build_lite.py --add-setup-cells   # put the live setup cell in each chapter

What the prepared folder holds (everything fetched from a package registry at build time):

* ``static/pyodide/``: the Pyodide runtime from the npm ``pyodide`` package (the version
  ``jupyterlite-pyodide-kernel`` expects), plus the pure-Python wheels the kernel loads while
  booting (micropip, IPython, jedi and their dependencies) downloaded from PyPI with pip, next
  to a rewritten ``pyodide-lock.json``: boot packages point at the served wheels (sha256 of the
  served file), every other package (numpy, matplotlib, ...) at Pyodide's CDN distribution,
  so those load when the site is read online and fail cleanly offline;
* ``pypi/``: wheels for piplite (comm, ipywidgets, jupyterlab_widgets, ``labcore`` built from
  the working tree, and a ``myst_nb`` stand-in whose ``glue`` shows or skips a value, since
  the chapters import ``myst_nb.glue``), indexed by JupyterLite into ``pypi/all.json``;
* ``jupyter-lite.json``: turns the PyPI fallback off, so a missing package fails at once
  instead of asking pypi.org.
"""

from __future__ import annotations

import argparse
import base64
import csv
import hashlib
import importlib.metadata
import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"

#: packages the kernel loads from the Pyodide lock while booting (see the kernel's worker.js:
#: micropip first, then ipykernel/comm/pyodide-kernel/jedi/ipython through piplite)
BOOT_ROOTS = ("micropip", "ipython", "jedi")
#: preloaded by ``loadPyodide`` in parallel with the runtime (saves round trips at boot)
PRELOAD = ("micropip", "ipython", "jedi")
#: pure-Python wheels served through piplite: (distribution, version taken from this env)
PIPLITE_DISTS = ("comm", "ipywidgets", "jupyterlab_widgets")
#: runtime files taken from the npm package (no source maps, no typings, no demo consoles)
RUNTIME_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "package.json",
)
LITE_APPS_LINK = "notebooks/index.html"

#: the first code cell of every chapter notebook (tag it ``remove-cell``): under JupyterLite it
#: installs labcore (and the widget library) from the site; under a normal kernel, nbval and the
#: book build it does nothing and prints nothing.
SETUP_CELL = """\
# Live version only (JupyterLite, Python in the browser): install labcore, the widget library
# and a stand-in for myst_nb.glue into this kernel. Under a normal Python kernel it does nothing.
import sys
if sys.platform == "emscripten":
    import piplite
    await piplite.install(["ipywidgets", "labcore", "myst-nb"])"""

#: append to SETUP_CELL in chapters whose panels draw figures: numpy and matplotlib come from
#: Pyodide's CDN, so they load online and leave a one-line notice offline.
SETUP_CELL_FIGURES = """
    try:
        await piplite.install(["numpy", "matplotlib"])
        import matplotlib
    except Exception:
        print("Offline: numpy and matplotlib come from the internet, so each figure is replaced by "
              "a one-line note and the panels that draw show a message; everything else runs.")"""

#: lines of a chapter's imports cell that need numpy/matplotlib (Pyodide's CDN) and what the live
#: copy runs instead: the same import, and offline a stand-in (``plt.show()`` does nothing; the
#: ``labcore.plots.plot_*`` functions print one line in place of each figure).
MATPLOTLIB_LINES = ("%matplotlib inline", "import matplotlib.pyplot as plt")
MATPLOTLIB_GUARD = """\
try:  # live version: matplotlib comes from the internet; offline each figure becomes a one-line note
{lines}
except ImportError:
    {fallback}"""
NUMPY_LINE = "import numpy as np"
NUMPY_GUARD = """\
try:
    import numpy as np
except ImportError:  # offline: numpy comes from the internet
    np = None
    print("(numpy is not available here — the live version loads it from the internet; "
          "only the cells that compute with np need it)")"""


def guard_optional_imports(source: str) -> str:
    """Return a code cell's source with its matplotlib/numpy import lines wrapped for offline use.

    ``%matplotlib inline`` and ``import matplotlib.pyplot as plt`` (top-level lines) become one
    ``try`` block at the place of the first of them, whose ``except ImportError`` binds ``plt``
    to ``labcore.plots.offline_pyplot()``; ``import numpy as np`` gets ``np = None`` offline.

    >>> print(guard_optional_imports("%matplotlib inline\\nimport matplotlib.pyplot as plt\\nx = 1"))
    try:  # live version: matplotlib comes from the internet; offline each figure becomes a one-line note
        %matplotlib inline
        import matplotlib.pyplot as plt
    except ImportError:
        from labcore.plots import offline_pyplot; plt = offline_pyplot()
    x = 1
    """
    lines = source.split("\n")
    found = [line for line in lines if line.rstrip() in MATPLOTLIB_LINES]
    out: list[str] = []
    for line in lines:
        if line.rstrip() in MATPLOTLIB_LINES:
            if line is found[0]:
                fallback = ("from labcore.plots import offline_pyplot; plt = offline_pyplot()"
                            if any(f.rstrip() == MATPLOTLIB_LINES[1] for f in found) else "pass")
                out.append(MATPLOTLIB_GUARD.format(
                    lines="\n".join("    " + f.rstrip() for f in found), fallback=fallback))
        elif line.rstrip() == NUMPY_LINE:
            out.append(NUMPY_GUARD)
        else:
            out.append(line)
    return "\n".join(out)


def log(msg: str) -> None:
    """Print one progress line prefixed with the tool name."""
    print(f"[build_lite] {msg}", flush=True)


def pyodide_version() -> str:
    """Return the Pyodide version the installed ``jupyterlite-pyodide-kernel`` expects."""
    from jupyterlite_pyodide_kernel.constants import PYODIDE_VERSION

    return PYODIDE_VERSION


def cdn_base(version: str) -> str:
    """Return Pyodide's CDN distribution URL (ending in a slash) for ``version``."""
    return f"https://cdn.jsdelivr.net/pyodide/v{version}/full/"


def sha256_of(path: Path) -> str:
    """Return the hex sha256 digest of a file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fetch_pyodide_npm(version: str, cache: Path) -> Path:
    """Fetch the npm ``pyodide`` package into ``cache`` once; return the unpacked folder."""
    unpacked = cache / f"pyodide-{version}" / "package"
    if (unpacked / "pyodide-lock.json").is_file():
        return unpacked
    cache.mkdir(parents=True, exist_ok=True)
    log(f"npm pack pyodide@{version}")
    out = subprocess.run(
        ["npm", "pack", f"pyodide@{version}", "--pack-destination", str(cache), "--silent"],
        check=True, capture_output=True, text=True,
    ).stdout.strip().splitlines()[-1]
    with tarfile.open(cache / out) as tar:
        tar.extractall(cache / f"pyodide-{version}", filter="data")
    return unpacked


def pip_download(specs: list[str], dest: Path) -> None:
    """Download exact pure-Python wheels (no dependencies) for Pyodide's Python into ``dest``."""
    missing = [s for s in specs if not _find_wheel(dest, *s.split("=="))]
    if not missing:
        return
    dest.mkdir(parents=True, exist_ok=True)
    log(f"pip download {' '.join(missing)}")
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
         "--only-binary=:all:", "--python-version", "3.14", "--implementation", "py",
         "--abi", "none", "--platform", "any", "--dest", str(dest), *missing],
        check=True,
    )


def _find_wheel(folder: Path, name: str, version: str) -> Path | None:
    """Return the wheel of ``name==version`` in ``folder``, if there is one."""
    norm = re.sub(r"[-_.]+", "_", name).lower()
    for whl in folder.glob("*.whl") if folder.is_dir() else []:
        parts = whl.name.split("-")
        if re.sub(r"[-_.]+", "_", parts[0]).lower() == norm and parts[1] == version:
            return whl
    return None


def lock_closure(packages: dict, roots: tuple[str, ...]) -> list[str]:
    """Return the names in the lock reachable from ``roots`` through ``depends``."""
    seen: list[str] = []
    stack = list(roots)
    while stack:
        name = re.sub(r"[-_.]+", "-", stack.pop()).lower()
        if name in seen:
            continue
        if name not in packages:
            raise KeyError(f"{name!r} is not in pyodide-lock.json")
        seen.append(name)
        stack.extend(packages[name]["depends"])
    return sorted(seen)


def prepare_pyodide(out: Path, cache: Path) -> dict:
    """Lay the Pyodide runtime, the boot wheels and a rewritten lock into ``out/static/pyodide``."""
    version = pyodide_version()
    npm = fetch_pyodide_npm(version, cache / "npm")
    dest = out / "static" / "pyodide"
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    for name in RUNTIME_FILES:
        shutil.copy2(npm / name, dest / name)

    lock = json.loads((npm / "pyodide-lock.json").read_text(encoding="utf-8"))
    packages = lock["packages"]
    boot = lock_closure(packages, BOOT_ROOTS)
    wheel_cache = cache / "boot-wheels"
    pip_download([f"{packages[n]['name']}=={packages[n]['version']}" for n in boot], wheel_cache)

    rehashed = []
    for name in boot:
        pkg = packages[name]
        whl = _find_wheel(wheel_cache, pkg["name"], pkg["version"])
        if whl is None or not whl.name.endswith("-none-any.whl"):
            raise FileNotFoundError(f"no pure-Python wheel for {name}=={pkg['version']}")
        shutil.copy2(whl, dest / whl.name)
        digest = sha256_of(whl)
        if digest != pkg["sha256"]:
            rehashed.append(name)
        pkg["file_name"], pkg["sha256"] = whl.name, digest
    cdn = cdn_base(version)
    for name, pkg in packages.items():
        if name not in boot:
            pkg["file_name"] = cdn + pkg["file_name"]
    (dest / "pyodide-lock.json").write_text(json.dumps(lock, indent=1), encoding="utf-8")
    log(f"pyodide {version}: {len(boot)} boot wheels served, "
        f"{len(packages) - len(boot)} packages left on {cdn}; re-hashed: {rehashed or 'none'}")
    return {"version": version, "boot": boot, "rehashed": rehashed}


def write_wheel(dest: Path, name: str, version: str, files: dict[str, bytes], summary: str) -> Path:
    """Write a reproducible pure-Python wheel of ``files`` (archive path -> bytes) into ``dest``."""
    info = f"{name}-{version}.dist-info"
    files = dict(files)
    files[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: {summary}\n"
        "Requires-Python: >=3.11\n"
    ).encode()
    files[f"{info}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: build_lite\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    ).encode()
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for arc, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        writer.writerow([arc, f"sha256={digest}", len(data)])
    writer.writerow([f"{info}/RECORD", "", ""])
    files[f"{info}/RECORD"] = record.getvalue().encode()
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
    ``labcore/`` except caches; it lists no dependencies (labcore's core is stdlib-only;
    plots/widgets import numpy, matplotlib and ipywidgets lazily) and is reproducible.
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


#: ``myst_nb.glue`` for the live site, where myst-nb (a Sphinx extension) cannot be installed
MYST_NB_SHIM = '''"""Stand in for myst_nb in the live (JupyterLite) course: ``glue`` shows or skips a value."""


def glue(name, variable, display=True):
    """Show ``variable`` as myst_nb.glue does (only when ``display`` is true); ``name`` is unused."""
    if display:
        from IPython.display import display as show

        show(variable)
'''


def build_myst_nb_shim(dest: Path) -> Path:
    """Write the ``myst_nb`` stand-in wheel (only ``glue``) into ``dest``."""
    return write_wheel(dest, "myst_nb", "0.0.0+lite", {"myst_nb/__init__.py": MYST_NB_SHIM.encode()},
                       "myst_nb.glue stand-in for the course's JupyterLite site")


def prepare_piplite(out: Path, cache: Path, root: Path = ROOT) -> list[str]:
    """Put the piplite wheels (comm, ipywidgets, jupyterlab_widgets, labcore) in ``out/pypi``."""
    dest = out / "pypi"
    shutil.rmtree(dest, ignore_errors=True)
    specs = [f"{d}=={importlib.metadata.version(d)}" for d in PIPLITE_DISTS]
    wheel_cache = cache / "piplite-wheels"
    pip_download(specs, wheel_cache)
    dest.mkdir(parents=True)
    for spec in specs:
        shutil.copy2(_find_wheel(wheel_cache, *spec.split("==")), dest)
    build_labcore_wheel(dest, root)
    build_myst_nb_shim(dest)
    return sorted(p.name for p in dest.glob("*.whl"))


def write_config(out: Path) -> None:
    """Write the lite folder's ``jupyter-lite.json`` and ``jupyter_lite_config.json``."""
    settings = {
        "disablePyPIFallback": True,
        "loadPyodideOptions": {"packages": list(PRELOAD)},
    }
    (out / "jupyter-lite.json").write_text(json.dumps({
        "jupyter-lite-schema-version": 0,
        "jupyter-config-data": {
            "appName": "multi-LoRA course (live)",
            "litePluginSettings": {KERNEL_PLUGIN: settings},
        },
    }, indent=2), encoding="utf-8")
    (out / "jupyter_lite_config.json").write_text(json.dumps({
        "LiteBuildConfig": {"no_sourcemaps": True, "no_unused_shared_packages": True},
    }, indent=2), encoding="utf-8")


PYODIDE_KERNELSPEC = {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}


def stage_notebooks(notebooks: list[Path], dest: Path) -> list[str]:
    """Copy notebooks into ``dest`` as the live site shows them; return their names.

    Each copy names JupyterLite's kernel (``python``) so no kernel-choice dialog opens, has its
    outputs and widget state cleared (those widgets lived in another kernel), drops the hidden
    ``remove-cell`` check cells (book-build tests, not reading; they would fail where a panel
    is unavailable offline) but keeps the setup cell (refreshed to the current one), wraps the
    matplotlib/numpy imports so the chapter runs offline (:func:`guard_optional_imports`), and
    collapses ``hide-*`` cells the way the book does.
    """
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    for path in notebooks:
        nb = json.loads(path.read_text(encoding="utf-8"))
        nb.setdefault("metadata", {})["kernelspec"] = dict(PYODIDE_KERNELSPEC)
        nb["metadata"].pop("widgets", None)
        cells = []
        code_sources = ["".join(c.get("source", [])) for c in nb.get("cells", []) if c.get("cell_type") == "code"]
        for cell in nb.get("cells", []):
            tags = cell.get("metadata", {}).get("tags", [])
            source = "".join(cell.get("source", []))
            if "remove-cell" in tags and not source.startswith(SETUP_CELL):
                continue
            if cell.get("cell_type") == "code":
                cell["outputs"], cell["execution_count"] = [], None
                if source.startswith(SETUP_CELL):
                    cell["source"] = setup_cell_for(code_sources)
                else:
                    cell["source"] = guard_optional_imports(source)
                if {"hide-cell", "hide-input", "remove-input"} & set(tags):
                    cell["metadata"].setdefault("jupyter", {})["source_hidden"] = True
            cells.append(cell)
        nb["cells"] = cells
        (dest / path.name).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return sorted(p.name for p in notebooks)


def prepare(out: Path, notebooks: list[Path], cache: Path | None = None, root: Path = ROOT) -> dict:
    """Prepare the JupyterLite input folder ``out`` (see the module docstring); return a summary."""
    cache = cache or out.parent / "lite_cache"
    out.mkdir(parents=True, exist_ok=True)
    summary = prepare_pyodide(out, cache)
    summary["piplite"] = prepare_piplite(out, cache, root)
    summary["notebooks"] = stage_notebooks(notebooks, out / "files")
    write_config(out)
    log(f"prepared {out}: {len(notebooks)} notebooks, piplite wheels {', '.join(summary['piplite'])}")
    return summary


FIGURE_HINTS = ("matplotlib", "numpy", "labcore.plots", "labcore.widgets", "_panel(")


def setup_cell_for(sources: list[str]) -> str:
    """Return the setup cell for a notebook whose code cells are ``sources``."""
    needs_figures = any(hint in src for src in sources for hint in FIGURE_HINTS)
    return SETUP_CELL + (SETUP_CELL_FIGURES if needs_figures else "")


def add_setup_cells(notebooks: list[Path]) -> list[str]:
    """Insert (or refresh) the tagged setup cell as the first code cell of each notebook.

    Idempotent: a notebook whose first code cell already starts with ``SETUP_CELL`` gets that
    cell's source refreshed; returns the names of the notebooks that changed.
    """
    import nbformat

    changed = []
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        source = setup_cell_for([c.source for c in code])
        first = code[0] if code else None
        if first is not None and first.source.startswith(SETUP_CELL):
            if first.source == source and "remove-cell" in first.metadata.get("tags", []):
                continue
            first.source = source
            first.metadata["tags"] = sorted({*first.metadata.get("tags", []), "remove-cell"})
        else:
            cell = nbformat.v4.new_code_cell(source, metadata={"tags": ["remove-cell"]})
            cell.id = "live-setup"
            at = nb.cells.index(first) if first is not None else len(nb.cells)
            nb.cells.insert(at, cell)
        nbformat.write(nb, path)
        changed.append(path.name)
    return changed


def prune_and_measure(site: Path) -> int:
    """Remove source maps left in a built lite site; return its size in bytes."""
    for path in site.rglob("*.map"):
        path.unlink()
    size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    log(f"lite site {site}: {size / 2**20:.1f} MiB")
    return size


def lite_build(lite_dir: Path, site: Path) -> None:
    """Run ``jupyter lite build`` like jupyterlite-sphinx does (contents: ``lite_dir/files``)."""
    cmd = [sys.executable, "-m", "jupyter", "lite", "build", "--lite-dir", str(lite_dir),
           "--output-dir", str(site)]
    for app in ("notebooks", "lab"):
        cmd += ["--apps", app]
    subprocess.run(cmd, check=True, cwd=lite_dir)


# --------------------------------------------------------------------------- Sphinx extension
def _on_config_inited(app, config) -> None:
    """Prepare the lite folder and drop jupyterlite-sphinx's remote web font."""
    srcdir = Path(app.srcdir)
    lite_dir = Path(config.jupyterlite_dir)
    if not lite_dir.is_absolute():
        lite_dir = srcdir / lite_dir
    notebooks = sorted(p for pattern in config.lite_notebooks for p in srcdir.glob(pattern))
    prepare(lite_dir, notebooks, cache=srcdir / "_build" / "lite_cache", root=srcdir)
    if not config.jupyterlite_contents:
        config.jupyterlite_contents = [str(lite_dir / "files" / "*.ipynb")]
    app.registry.css_files[:] = [
        (name, attrs) for name, attrs in app.registry.css_files if not str(name).startswith("http")
    ]


def _on_page_context(app, pagename, templatename, context, doctree) -> None:
    """Add a "Live (in browser)" button to the header of every page built from a notebook."""
    path = app.env.doc2path(pagename, base=False) if pagename in app.env.all_docs else ""
    if not str(path).endswith(".ipynb"):
        return
    depth = pagename.count("/")
    href = "../" * depth + f"lite/{LITE_APPS_LINK}?path={Path(path).name}"
    buttons = context.setdefault("header_buttons", [])
    buttons.insert(0, {
        "type": "link",
        "url": href,
        "tooltip": "Open this chapter in a live Python kernel in your browser (JupyterLite)",
        "icon": "fas fa-play",
        "label": "live-lite-button",
        "text": "Live",
    })


def _on_build_finished(app, exception) -> None:
    """Remove source maps from the built lite site and report its size."""
    site = Path(app.outdir) / "lite"
    if exception is None and site.is_dir():
        prune_and_measure(site)


def setup(app):
    """Register the extension (after ``jupyterlite_sphinx``)."""
    app.setup_extension("jupyterlite_sphinx")
    app.add_config_value("lite_notebooks", ["book/[0-9][0-9]_*.ipynb"], "html")
    app.connect("config-inited", _on_config_inited, priority=900)
    app.connect("html-page-context", _on_page_context, priority=600)
    app.connect("build-finished", _on_build_finished, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def main(argv: list[str] | None = None) -> int:
    """Prepare and build a stand-alone lite site (no book) for tests and quick looks."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "lite_only")
    parser.add_argument("--root", type=Path, default=ROOT, help="repo with labcore/")
    parser.add_argument("--notebooks", type=Path, nargs="*", default=None,
                        help="notebooks to include (default: book/NN_*.ipynb)")
    parser.add_argument("--add-setup-cells", action="store_true",
                        help="insert the live setup cell into the notebooks, then stop")
    args = parser.parse_args(argv)
    notebooks = args.notebooks
    if notebooks is None:
        notebooks = sorted((args.root / "book").glob("[0-9][0-9]_*.ipynb"))
    if args.add_setup_cells:
        log(f"setup cell added or refreshed in: {add_setup_cells(notebooks) or 'none'}")
        return 0
    started = time.perf_counter()
    lite_dir = args.out / "lite_src"
    prepare(lite_dir, notebooks, cache=args.root / "_build" / "lite_cache", root=args.root)
    site = args.out / "site" / "lite"
    shutil.rmtree(site, ignore_errors=True)
    lite_build(lite_dir, site)
    prune_and_measure(site)
    log(f"done in {time.perf_counter() - started:.0f} s: {site}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
