"""Assemble the course's JupyterLite site: the input folder, its contents, and the ``jupyter lite build``.

The jobs are split by noun: :mod:`coursebuild.lite.runtime` (Pyodide, served wheels, the lock,
``jupyter-lite.json``), :mod:`coursebuild.lite.wheels` (piplite wheels, labcore's included),
:mod:`coursebuild.lite.fast_start` (the optional fast start: the kernel restored from a memory snapshot, its packages'
files from one bundle, hypothesis's Unicode tables; ``COURSE_LITE_FAST_START=0`` leaves it out),
:mod:`coursebuild.lite.service_worker` (the pages' service worker, registered before the kernel starts),
:mod:`coursebuild.lite.notebooks` (the live copy of a chapter) and :mod:`coursebuild.lite.sphinx`
(the book build's hooks). This module puts them together:

* :func:`prepare_runtime` fills the JupyterLite input folder (``lite_src``);
* :func:`stage_contents` writes the files the reader's file browser holds: each chapter's live
  copy, the own notebook of each exercise of it that needs code (:mod:`coursebuild.lite.exercises`), what the
  book build computed for it (:func:`stage_book_build`: the panels' grids and the figures, from the notebook's
  stored outputs), the ``results/`` files a chapter reads, and the lab: its notebook, the suite
  (``tests/contract`` with its conftests) and the ``lab/`` package with its skeleton;
* :func:`lite_build` runs ``jupyter lite build``.

As a command, for the browser tests or a quick look without a book build::

    python -m coursebuild.lite.site --out _build/lite_only [--notebooks book/01_*.ipynb] [--glue auto]

Glue values come from the book build's executed notebooks (``_build/jupyter_execute/book``);
without them ``--glue auto`` executes the chapters with nbclient, and ``--glue note`` leaves a
visible "see the book page" note in place of each number.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import nbclient
import nbformat

from labcore.chapters import EXERCISES
from labcore.site import BOOK_BUILD, FIGURES_DIR, LAB_NOTEBOOK, PANELS_DIR, figures_index_path, grid_path

from ..lab_download import SUITE_FILES
from . import fast_start
from . import notebooks as lite_notebooks
from . import runtime as lite_runtime
from . import service_worker as lite_service_worker
from . import wheels as lite_wheels
from .bytecode import compile_wheels
from .exercises import exercise_notebook, exercise_notebook_name
from .wheels import log

ROOT = Path(__file__).resolve().parents[2]
LITE_APPS_LINK = "notebooks/index.html"
#: the lab notebook's source (its live copy is served at the top of the files, as :data:`labcore.site.LAB_NOTEBOOK`)
LAB_NOTEBOOK_SOURCE = "lab/do_the_lab.ipynb"


def prepare_runtime(lite_dir: Path, cache: Path, root: Path = ROOT) -> dict:
    """Fill the JupyterLite input folder: Pyodide and its lock, the piplite wheels, the config files.

    The piplite wheels are compiled with Pyodide's Python like the lock's (:mod:`coursebuild.lite.bytecode`);
    labcore keeps its sources beside its bytecode.
    """
    lite_dir.mkdir(parents=True, exist_ok=True)
    summary = lite_runtime.prepare_pyodide(lite_dir, cache)
    wheels = lite_wheels.prepare_piplite(lite_dir, cache, root)
    compile_wheels(wheels, summary["npm"], cache / "bytecode", keep_source=("labcore",))
    summary["piplite"] = [whl.name for whl in wheels]
    # the kernel's own wheels and the first cell's installs, loaded with the runtime instead of one by one after it
    kernel_dir = cache / "kernel-wheels"  # copies: the installed extension's wheels stay as they are
    shutil.rmtree(kernel_dir, ignore_errors=True)
    kernel_dir.mkdir(parents=True)
    kernel = [Path(shutil.copy2(w, kernel_dir / w.name)) for w in lite_runtime.kernel_extension_wheels()]
    compile_wheels(kernel, summary["npm"], cache / "bytecode")
    first_cell = [w for w in wheels if lite_wheels.normalize(w.name.split("-")[0]) in lite_runtime.PRELOADED_PIPLITE]
    summary["preloaded"] = lite_runtime.preload_wheels(lite_dir, kernel + first_cell)
    preload = lite_runtime.PRELOAD + tuple(summary["preloaded"])
    lite_runtime.write_config(lite_dir, preload)
    summary["fast_start"] = fast_start.enabled()
    if summary["fast_start"]:  # the optional addon: a kernel restored from a snapshot, its files from one bundle
        hypothesis = [w for w in wheels if lite_wheels.normalize(w.name.split("-")[0]) == "hypothesis"]
        fast_start.prepare(lite_dir / "static" / "pyodide", preload, hypothesis, cache)
    else:
        log(f"{fast_start.FAST_START_ENV}=0: no fast start (the kernel boots as Pyodide does)")
    return summary


def execute_for_glue(path: Path, timeout_s: int = 600) -> dict:
    """Execute a book notebook with nbclient (in its own folder) and return it, for its glue values."""

    log(f"executing {path.name} for its glue values (no book build output)")
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=timeout_s, resources={"metadata": {"path": str(path.parent)}}).execute()
    return json.loads(nbformat.writes(nb))


def glue_source(path: Path, executed_dir: Path | None, mode: str) -> dict[str, str] | None:
    """Return the glue values of chapter ``path``: from ``executed_dir`` (the book build), else per ``mode``.

    The book build leaves ``NAME.glue.json`` (myst-nb's store) and the executed ``NAME.ipynb`` there.

    ``mode`` is ``"auto"`` (execute when there is no build output), ``"build"`` (build output
    required), ``"execute"`` (always execute) or ``"note"`` (None: each role becomes a note).
    """
    if mode == "note":
        return None
    if mode != "execute" and executed_dir is not None:
        store = executed_dir / f"{path.stem}.glue.json"
        if store.is_file():
            return lite_notebooks.glue_values_from_store(json.loads(store.read_text(encoding="utf-8")))
        built = executed_dir / path.name
        if built.is_file():
            return lite_notebooks.glue_values(json.loads(built.read_text(encoding="utf-8")))
    if mode == "build":
        raise FileNotFoundError(f"no executed copy of {path.name} in {executed_dir} (build the book first)")
    return lite_notebooks.glue_values(execute_for_glue(path))


def stage_contents(
    notebooks: list[Path], dest: Path, *, root: Path = ROOT, executed_dir: Path | None = None, glue: str = "auto"
) -> list[str]:
    """Write the live site's files into ``dest`` (see the module doc); return their paths, relative to ``dest``.

    Every live site holds the lab: its notebook (:data:`labcore.site.LAB_NOTEBOOK`), the contract suite and the
    ``lab`` package with the skeleton (the learner's ``lab/mine`` is made from it in the reader's browser), since
    any chapter can run on the learner's code.
    """
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    written: list[str] = []
    for path in notebooks:
        nb = json.loads(path.read_text(encoding="utf-8"))
        glued = glue_source(path, executed_dir, glue) if lite_notebooks.has_glue_roles(nb) else {}
        live = lite_notebooks.live_copy(nb, glued, path.name)
        (dest / path.name).write_text(json.dumps(live, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path.name)
        for exercise in (e for e in EXERCISES if e.page == path.stem and e.rule() is None):  # its own notebook
            name = exercise_notebook_name(exercise.label)
            ours = exercise_notebook(live, exercise, lite_notebooks.LIVE_MARKER)
            (dest / name).write_text(json.dumps(ours, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            written.append(name)
        written += stage_book_build(nb, path.stem, dest)
        for name in lite_notebooks.results_files(live):
            _copy(root / "results" / name, dest / "results" / name)
            written.append(f"results/{name}")
    lab = json.loads((root / LAB_NOTEBOOK_SOURCE).read_text(encoding="utf-8"))
    live = lite_notebooks.live_copy(lab, {}, LAB_NOTEBOOK)
    (dest / LAB_NOTEBOOK).write_text(json.dumps(live, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    written.append(LAB_NOTEBOOK)
    for pattern in SUITE_FILES:
        for src in sorted(root.glob(pattern)):
            rel = src.relative_to(root).as_posix()
            _copy(src, dest / rel)
            written.append(rel)
    return written


def stage_book_build(nb: dict, stem: str, dest: Path) -> list[str]:
    """Write what the book build computed for notebook ``nb`` (its stored outputs) under ``dest/book_build``.

    ``panels/<key>.json``: each panel's grid (:func:`coursebuild.lite.notebooks.panel_grids`);
    ``figures/<stem>.json``: the index the live kernel reads (``{"figures": {cell key: [file, ...]}}``)
    with the images in ``figures/<stem>/`` (:func:`coursebuild.lite.notebooks.book_figures`).
    Returns the paths written, relative to ``dest``.
    """
    root = dest / BOOK_BUILD
    written = []
    for key, grid in lite_notebooks.panel_grids(nb).items():
        path = Path(grid_path(str(root / PANELS_DIR), key))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(grid, separators=(",", ":"), allow_nan=False), encoding="utf-8")
        written.append(path.relative_to(dest).as_posix())
    figures = lite_notebooks.book_figures(nb)
    if figures:
        index: dict[str, list[str]] = {}
        for key, images in figures.items():
            for i, (suffix, data) in enumerate(images):
                image = root / FIGURES_DIR / stem / f"{key}-{i}{suffix}"
                image.parent.mkdir(parents=True, exist_ok=True)
                image.write_bytes(data)
                index.setdefault(key, []).append(image.relative_to(root / FIGURES_DIR).as_posix())
                written.append(image.relative_to(dest).as_posix())
        path = Path(figures_index_path(str(root), stem))
        path.write_text(json.dumps({"notebook": f"{stem}.ipynb", "figures": index}, indent=1), encoding="utf-8")
        written.append(path.relative_to(dest).as_posix())
    return sorted(set(written))


def _copy(src: Path, dst: Path) -> None:
    if not src.is_file():
        raise FileNotFoundError(f"the live site needs {src}, which is missing")
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src, dst)


def lite_build(lite_dir: Path, contents: Path, site: Path) -> None:
    """Run ``jupyter lite build`` like jupyterlite-sphinx does (its apps: the lab notebook opens a learner's module in
    ``edit``, and the notebook app opens a folder in ``tree``).

    Its task database is removed first: it would skip steps whose output was deleted since.
    """
    (lite_dir / ".jupyterlite.doit.db").unlink(missing_ok=True)
    cmd = [
        sys.executable,
        "-m",
        "jupyter",
        "lite",
        "build",
        "--lite-dir",
        str(lite_dir.resolve()),
        "--contents",
        str(contents.resolve()),
        "--output-dir",
        str(site.resolve()),
    ]
    for app in ("notebooks", "edit", "lab", "repl", "tree", "consoles"):
        cmd += ["--apps", app]
    subprocess.run(cmd, check=True, cwd=lite_dir, stdout=subprocess.DEVNULL)


#: JupyterLab extensions of this environment that the live site leaves out, and why
LEFT_OUT_EXTENSIONS = {
    "jupyterlab-rise": "RISE presents from a Jupyter server; in the live site its button opened a 404",
    # jupyterlab-rise requires jupyterlab-mathjax3 4.3.0, a JupyterLab 3 extension: in the live site it replaced
    # JupyterLab 4's own MathJax 3 typesetter, which renders the chapters' math as well (tests/browser/
    # test_room_server.py) for 19 KB less per browser on a chapter's first Live visit, and 1.3 MB less site
    "@jupyterlab/mathjax3-extension": "a JupyterLab 3 copy of the MathJax 3 that JupyterLab 4 carries itself",
}


def finish_site(site: Path) -> int:
    """Remove source maps and the :data:`LEFT_OUT_EXTENSIONS` from a built lite site, point its kernel at the
    boot module when the site has the fast start (:mod:`coursebuild.lite.fast_start`) and its pages at the
    worker-version record (:mod:`coursebuild.lite.service_worker`); return its size in bytes.

    An extension leaves its folder, the ``federated_extensions`` of ``jupyter-lite.json`` and its
    settings schemas, so the app neither loads nor lists it.
    """
    for path in site.rglob("*.map"):
        path.unlink()
    for config in site.rglob("jupyter-lite.json"):
        data = json.loads(config.read_text(encoding="utf-8"))
        extensions = data.get("jupyter-config-data", {}).get("federated_extensions")
        if extensions is not None:
            extensions[:] = [e for e in extensions if e.get("name") not in LEFT_OUT_EXTENSIONS]
            config.write_text(json.dumps(data, indent=2), encoding="utf-8")
    schemas = site / "build" / "schemas" / "all_federated.json"
    if schemas.is_file():
        kept = [
            s
            for s in json.loads(schemas.read_text(encoding="utf-8"))
            if s.get("id", "").split(":")[0] not in LEFT_OUT_EXTENSIONS
        ]
        schemas.write_text(json.dumps(kept), encoding="utf-8")
    for name in LEFT_OUT_EXTENSIONS:
        shutil.rmtree(site / "extensions" / name, ignore_errors=True)
    if (site / "static" / "pyodide" / fast_start.snapshot.BOOT_MODULE).is_file():  # built with the fast start
        fast_start.finish(site)
    lite_service_worker.record_worker_version(site)
    size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    log(f"lite site {site}: {size / 2**20:.1f} MiB (left out: {', '.join(LEFT_OUT_EXTENSIONS)})")
    return size


def build_site(
    out: Path,
    notebooks: list[Path],
    *,
    root: Path = ROOT,
    glue: str = "auto",
    executed_dir: Path | None = None,
    verbatim: Sequence[Path] = (),
) -> Path:
    """Build a stand-alone live site under ``out`` (``out/site/lite``); return the folder to serve.

    ``verbatim`` files are served as they are, beside the live copies (e.g. a test's notebook).
    """
    cache = root / "_build" / "lite_cache"
    summary = prepare_runtime(out / "lite_src", cache, root)
    files = stage_contents(
        notebooks,
        out / "lite_contents",
        root=root,
        executed_dir=executed_dir or root / "_build" / "jupyter_execute" / "book",
        glue=glue,
    )
    for path in verbatim:
        _copy(path, out / "lite_contents" / path.name)
        files.append(path.name)
    site = out / "site" / "lite"
    shutil.rmtree(site, ignore_errors=True)
    lite_build(out / "lite_src", out / "lite_contents", site)
    finish_site(site)
    log(f"piplite wheels {', '.join(summary['piplite'])}; {len(files)} files in the contents")
    return out / "site"


def main(argv: list[str] | None = None) -> int:
    """Prepare and build a stand-alone live site (no book), or refresh the book's setup cells."""
    parser = argparse.ArgumentParser(description="Build the course's JupyterLite site without the book.")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "lite_only")
    parser.add_argument("--root", type=Path, default=ROOT, help="repository with labcore/ and book/")
    parser.add_argument(
        "--notebooks", type=Path, nargs="*", default=None, help="notebooks to include (default: book/NN_*.ipynb)"
    )
    parser.add_argument(
        "--glue",
        choices=("auto", "build", "execute", "note"),
        default="auto",
        help="where the prose's glued numbers come from (default: the book build's executed "
        "notebooks, else execute the chapters)",
    )
    parser.add_argument(
        "--add-setup-cells",
        action="store_true",
        help="insert or refresh the live setup cell in the book's notebooks, then stop",
    )
    args = parser.parse_args(argv)
    root = args.root.resolve()
    notebooks = args.notebooks or sorted((root / "book").glob("[0-9][0-9]_*.ipynb"))
    if args.add_setup_cells:
        log(f"setup cell added or refreshed in: {lite_notebooks.add_setup_cells(notebooks) or 'none'}")
        return 0
    started = time.perf_counter()
    site = build_site(args.out.resolve(), [p.resolve() for p in notebooks], root=root, glue=args.glue)
    log(
        f"done in {time.perf_counter() - started:.0f} s: serve {site} "
        f"(python -m http.server --bind 127.0.0.1 --directory {site}) and open /lite/{LITE_APPS_LINK}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
