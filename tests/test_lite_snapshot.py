"""coursebuild.lite.fast_start.snapshot: a kernel restored from the site's snapshot is the kernel a plain boot gives.

The runtime folder is the one the book build's site serves (``lite_site.prepare_runtime``, with its preloaded
wheels and snapshot; the tests skip without a book build). Under Node, the same worker options boot it twice:
through Pyodide's ``pyodide.mjs`` (as before the snapshot) and through the site's ``kernel_boot.mjs`` (from the
snapshot). After pyodide-kernel's own import and the lab suite's (``snapshot.SUITE_IMPORTS``, which the snapshot
holds already), both hold the same modules, paths and environment; a module the snapshot did not import is found
(the wheels are unpacked after the restore); two restored kernels draw different random numbers. The browser's kernel
is checked in ``tests/lite/test_lite_kernel.py`` (it says it restored the snapshot, and runs the check notebook).
A snapshot is refused, with the reason, when a file is still open as it would be taken (its descriptor would be
stale in every restored kernel) or when a module does not import.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from coursebuild.lite import runtime as lite_runtime
from coursebuild.lite.fast_start import hypothesis as lite_hypothesis
from coursebuild.lite.fast_start import snapshot as lite_snapshot

ROOT = Path(__file__).resolve().parents[1]

#: boots the runtime folder in argv[2] through argv[3] (pyodide.mjs or kernel_boot.mjs) with the worker's
#: options, imports pyodide-kernel as the worker does, and prints what the kernel holds
HARNESS = r"""
import { pathToFileURL, fileURLToPath } from "node:url";
import fs from "node:fs";
const [dir, entry, packages, extra, suite] = process.argv.slice(2);
const nodeFetch = globalThis.fetch;  // kernel_boot.mjs fetches its files beside it: files here
globalThis.fetch = async (url) => String(url).startsWith("file:")
  ? new Response(fs.readFileSync(fileURLToPath(url))) : nodeFetch(url);
const logs = [];
const log = console.log;
console.log = (...args) => logs.push(args.join(" "));
console.warn = (...args) => logs.push(args.join(" "));
const { loadPyodide } = await import(pathToFileURL(`${dir}/${entry}`).href);
const pyodide = await loadPyodide({ indexURL: `${dir}/`, packages: JSON.parse(packages),
                                    _sysExecutable: "./this.program" });
const loaded = Object.keys(pyodide.loadedPackages).sort();
const wheels = JSON.parse(extra || "[]");
if (wheels.length) await pyodide.loadPackage(wheels, { messageCallback: () => {} });
pyodide.globals.set("SUITE_IMPORTS", suite || "[]");
const state = pyodide.runPython(`
import hashlib, importlib, json, os, random, sys
import pyodide_kernel
for name in json.loads(SUITE_IMPORTS):  # what the lab's first suite run imports: in the snapshot already
    importlib.import_module(name)
import labcore.quizzes  # not imported by the snapshot: its files must be in site-packages
files = {}
for top in ("/lib", "/share"):
    for root, _, names in os.walk(top):
        for name in names:
            with open(os.path.join(root, name), "rb") as f:
                files[os.path.join(root, name)] = hashlib.sha256(f.read()).hexdigest()[:16]
json.dumps({"modules": sorted(sys.modules), "path": sys.path, "executable": sys.executable,
            "environ": dict(os.environ), "cwd": os.getcwd(), "random": random.random(),
            "kernel": type(pyodide_kernel.kernel_instance).__name__, "files": files})
`);
const tables = wheels.length ? pyodide.runPython(`
from hypothesis.internal import charmap
read = (charmap.charmap_file().is_file(), charmap.charmap(), charmap.intervals_from_codec("utf-8").intervals)
import shutil
shutil.rmtree(charmap.charmap_file().parent)
charmap._charmap = None  # build both again, as a kernel without the site's tables would
built = (charmap.charmap(), charmap.intervals_from_codec("utf-8").intervals)
json.dumps({"found": read[0], "same": [read[1] == built[0], read[2] == built[1]]})
`) : "null";
log(JSON.stringify({ state: JSON.parse(state), loaded, tables: JSON.parse(tables),
                     logs: logs.filter((l) => l.startsWith("kernel:")) }));
"""


@pytest.fixture(scope="module")
def runtime() -> tuple[Path, list[str]]:
    """The runtime folder the book build served (``_build/lite_src``) and the packages its kernel preloads.

    The book build's, not one built here: building one would build labcore's wheel in this tree while
    ``tests/lite`` builds its site in the other worker.
    """
    lite_dir = ROOT / "_build" / "lite_src"
    if shutil.which("node") is None or not (lite_dir / "static" / "pyodide" / lite_snapshot.BOOT_MODULE).is_file():
        pytest.skip("needs node and the live runtime of a book build (make book)")
    config = json.loads((lite_dir / "jupyter-lite.json").read_text(encoding="utf-8"))
    settings = config["jupyter-config-data"]["litePluginSettings"][lite_runtime.KERNEL_PLUGIN]
    return lite_dir / "static" / "pyodide", settings["loadPyodideOptions"]["packages"]


def _boot(
    runtime: tuple[Path, list[str]],
    entry: str,
    tmp_path: Path,
    packages: list[str] | None = None,
    wheels: list[str] = (),
) -> dict:
    """Boot the runtime through ``entry`` with the worker's options (``packages``: the site's preload), load
    ``wheels`` after, and return what the kernel holds (with :data:`HARNESS`)."""
    folder, preload = runtime
    script = tmp_path / "harness.mjs"
    script.write_text(HARNESS, encoding="utf-8")
    packages = preload if packages is None else packages
    done = subprocess.run(
        [
            "node",
            str(script),
            str(folder),
            entry,
            json.dumps(packages),
            json.dumps(list(wheels)),
            json.dumps(lite_snapshot.SUITE_IMPORTS),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_site_serves_the_snapshot_and_the_boot_module(runtime) -> None:
    folder, _ = runtime
    for name in (lite_snapshot.BOOT_MODULE, lite_snapshot.PRIVATE_MODULE):  # served as they are
        assert (folder / name).read_bytes() == (lite_snapshot.STATIC / name).read_bytes(), name
    for name in (lite_snapshot.SNAPSHOT_FILE, lite_snapshot.FILES_BUNDLE):
        assert (folder / name).read_bytes()[:2] == b"\x1f\x8b", name  # gzipped
    assert (folder / lite_hypothesis.TABLES_FILE).is_file()


@pytest.mark.slow  # left out of make test-quick; make test runs it
def test_a_restored_kernel_holds_what_a_plain_boot_holds(runtime, tmp_path: Path) -> None:
    plain = _boot(runtime, "pyodide.mjs", tmp_path)
    restored = _boot(runtime, lite_snapshot.BOOT_MODULE, tmp_path)
    again = _boot(runtime, lite_snapshot.BOOT_MODULE, tmp_path)
    assert plain["logs"] == [], plain["logs"]
    assert re.fullmatch(
        r"kernel: restored from the snapshot in \d+ ms \(3\d{3} package files written, "
        r"2 hypothesis tables\)",
        restored["logs"][0],
    ), restored["logs"]
    a, b = plain["state"], restored["state"]
    assert b["kernel"] == a["kernel"] == "PyodideKernel"
    # one module fewer: Pyodide's loader imports tarfile to unpack wheels, and the bundle is written without it
    assert set(a["modules"]) - set(b["modules"]) == {"tarfile"}, set(b["modules"]) ^ set(a["modules"])
    assert set(b["modules"]) <= set(a["modules"])
    assert set(lite_snapshot.SNAPSHOT_IMPORTS) <= set(b["modules"])
    for key in ("path", "executable", "cwd"):
        assert b[key] == a[key], key
    # the same files, byte for byte, as Pyodide's own loading of the preloaded packages writes; the same packages
    # recorded as loaded (a later install does not unpack them again)
    assert b["files"] == a["files"], sorted(set(b["files"].items()) ^ set(a["files"].items()))[:5]
    assert restored["loaded"] == plain["loaded"], set(restored["loaded"]) ^ set(plain["loaded"])
    # the one difference: hypothesis's storage is the folder the boot module wrote its tables into
    assert b["environ"].pop("HYPOTHESIS_STORAGE_DIRECTORY") == lite_hypothesis.KERNEL_HOME
    assert b["environ"] == a["environ"]
    assert again["state"]["random"] != b["random"]  # reseeded after each restore


@pytest.mark.slow  # boots Pyodide under Node (about 2.5 s): make test runs it, make test-quick does not
def test_a_bundle_made_for_other_packages_is_not_used(runtime, tmp_path: Path) -> None:
    fewer = [name for name in runtime[1] if name != "jupyterquiz"]
    booted = _boot(runtime, lite_snapshot.BOOT_MODULE, tmp_path, packages=fewer)
    assert booted["logs"][0].startswith("kernel: unpacking the preloaded packages (the bundle holds "), booted["logs"]
    assert "(packages unpacked, 2 hypothesis tables)" in booted["logs"][1]
    assert booted["state"]["kernel"] == "PyodideKernel"


@pytest.mark.slow  # boots Pyodide under Node (about 2.5 s): make test runs it, make test-quick does not
def test_hypothesis_in_a_restored_kernel_reads_the_tables_it_would_build(runtime, tmp_path: Path) -> None:
    hypothesis = sorted((runtime[0].parents[1] / "pypi").glob("hypothesis-*.whl"))
    sortedcontainers = sorted(runtime[0].glob("sortedcontainers-*.whl"))
    assert hypothesis and sortedcontainers
    booted = _boot(runtime, lite_snapshot.BOOT_MODULE, tmp_path, wheels=[str(p) for p in sortedcontainers + hypothesis])
    assert booted["tables"] == {"found": True, "same": [True, True]}


@pytest.mark.slow  # boots Pyodide under Node (about 2.5 s): make test runs it, make test-quick does not
def test_tables_without_hypothesis_are_refused(runtime, tmp_path: Path) -> None:
    # the served runtime lists hypothesis (the kernel preloads it): Pyodide's message goes on for four more lines
    # (how to install it, a link), and the error's own line is the one kept
    with pytest.raises(
        RuntimeError,
        match=r"hypothesis's tables could not be made: ModuleNotFoundError: "
        r"No module named 'hypothesis'$",
    ):
        lite_hypothesis.make_tables(runtime[0], [], tmp_path / "cache")
    assert not list((tmp_path / "cache").glob("*"))


def test_the_config_is_pointed_at_the_boot_module(tmp_path: Path) -> None:
    (tmp_path / "static" / "pyodide").mkdir(parents=True)
    config = tmp_path / "jupyter-lite.json"
    config.write_text(
        json.dumps(
            {
                "jupyter-config-data": {
                    "litePluginSettings": {lite_runtime.KERNEL_PLUGIN: {"pyodideUrl": "./static/pyodide/pyodide.mjs"}}
                }
            }
        ),
        encoding="utf-8",
    )
    with pytest.raises(FileNotFoundError, match=r"boot module \./static/pyodide/kernel_boot\.mjs is not in the site"):
        lite_snapshot.point_kernel_at_boot(tmp_path)
    assert "pyodide.mjs" in config.read_text(encoding="utf-8")  # left as it was
    (tmp_path / "static" / "pyodide" / lite_snapshot.BOOT_MODULE).write_text("", encoding="utf-8")
    assert lite_snapshot.point_kernel_at_boot(tmp_path) == 1
    settings = json.loads(config.read_text(encoding="utf-8"))["jupyter-config-data"]["litePluginSettings"]
    assert settings[lite_runtime.KERNEL_PLUGIN]["pyodideUrl"] == "./static/pyodide/kernel_boot.mjs"


@pytest.fixture()
def runtime_copy(runtime, tmp_path: Path) -> Path:
    """A copy of the served runtime without its snapshot, serving one more wheel: ``opener``, whose module
    keeps its own file open."""
    import zipfile

    folder = tmp_path / "static" / "pyodide"
    shutil.copytree(runtime[0], folder)
    (folder / lite_snapshot.SNAPSHOT_FILE).unlink()
    wheel = tmp_path / "opener-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("opener/__init__.py", "HELD = open(__file__)\n")
        zf.writestr("opener-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: opener\nVersion: 1.0\n")
    lite_runtime.preload_wheels(tmp_path, [wheel])
    return folder


@pytest.mark.slow  # left out of make test-quick; make test runs it
def test_a_snapshot_with_a_file_still_open_is_refused(runtime_copy: Path, tmp_path: Path) -> None:
    with pytest.raises(
        RuntimeError,
        match=r"snapshot could not be made: Error: files still open when the snapshot "
        r"would be taken: /lib/python3\.14/site-packages/opener/__init__\.py",
    ):
        lite_snapshot.make_snapshot(runtime_copy, ["pyodide-kernel", "opener"], tmp_path / "cache", imports=("opener",))
    assert not (runtime_copy / lite_snapshot.SNAPSHOT_FILE).exists() and not list((tmp_path / "cache").glob("*"))


@pytest.mark.slow  # boots Pyodide under Node (about 2.5 s): make test runs it, make test-quick does not
def test_a_snapshot_of_a_module_that_does_not_import_is_refused(runtime_copy: Path, tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match=r"ModuleNotFoundError: No module named 'no_such_module'"):
        lite_snapshot.make_snapshot(runtime_copy, ["pyodide-kernel"], tmp_path / "cache", imports=("no_such_module",))
    assert not (runtime_copy / lite_snapshot.SNAPSHOT_FILE).exists()
