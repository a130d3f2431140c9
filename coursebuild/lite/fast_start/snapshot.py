"""Start the live kernel from a memory snapshot, so it does not import IPython at every start.

Booting the kernel's worker took 7.5 s on the 2-core test machine, 2.0 s of it in ``import IPython`` and the
rest of what pyodide-kernel imports. The lab's first suite run then imported pytest, its plugins, hypothesis and
labcore's contract runner (:data:`SUITE_IMPORTS`): in the snapshot too, they took 0.7 s less of the kernel's time
to the lab's first table (0.26 s of importing labcore's runner, 0.43 s of the first run), for 3.5 MiB more of
snapshot (12.6 to 16.1 MiB gzipped, about 0.2 s more to restore).

:func:`make_snapshot` boots the served runtime once, at build time, under Node (``static/pyodide_snapshot.mjs``):
it unpacks the preloaded wheels, applies pyodide-kernel's ``sys.modules`` mocks as its package does, imports
:data:`SNAPSHOT_IMPORTS` and writes Pyodide's memory snapshot of that state, gzipped, beside the runtime.
:func:`point_kernel_at_boot` makes the kernel's worker load Pyodide through ``static/kernel_boot.mjs``, which
restores that snapshot (and boots as before when it cannot).

A snapshot holds memory, not files: the restored kernel still needs the preloaded packages' files (3,163 of
them in 21 wheels, jedi's stubs among them, before pytest and hypothesis joined them), and unpacking the
wheels again took 1.4-1.8 s of each restore in Chromium. :func:`make_file_bundle` lets Pyodide load those
packages once at build time (``static/kernel_files.mjs``) and keeps every file that loading added in one
gzipped bundle, which the boot module writes back in one pass.

What a restored kernel shares with every other: the hash seed of ``str`` (the snapshot fixes it, as
``PYTHONHASHSEED`` would) and what was in ``os.environ`` when the snapshot was made; the boot module reseeds
``random``. micropip and piplite stay out: importing them keeps JavaScript objects that a snapshot cannot hold.

Used by :func:`coursebuild.lite.site.prepare_runtime` (``make_snapshot(lite_dir / "static" / "pyodide", preload,
cache)``, ``make_file_bundle(...)``) and :func:`coursebuild.lite.site.finish_site` (``point_kernel_at_boot(site)``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ..runtime import KERNEL_PLUGIN, served_wheels
from ..wheels import log
from .node import cached_node_output

STATIC = Path(__file__).with_name("static")
#: the Node script that makes the snapshot at build time
NODE_SCRIPT = STATIC / "pyodide_snapshot.mjs"
#: the Node script that bundles the preloaded packages' files at build time
FILES_SCRIPT = STATIC / "kernel_files.mjs"
#: the kernel worker's entry point (jupyter-lite.json's ``pyodideUrl``), served beside ``pyodide.mjs``
BOOT_MODULE = "kernel_boot.mjs"
#: the module naming Pyodide's private options, which the boot module imports (served beside it)
PRIVATE_MODULE = "pyodide_private.mjs"
#: the snapshot's name beside the runtime (``kernel_boot.mjs`` asks for it by this name)
SNAPSHOT_FILE = "kernel.snapshot.gz"
#: the preloaded packages' files, bundled, beside the runtime (``kernel_boot.mjs`` asks for it by this name)
FILES_BUNDLE = "kernel_files.bin.gz"
#: what the browser's worker reports as ``sys.executable`` (Emscripten's default program name on the web);
#: under Node it would be the script's path, which the snapshot would keep
SYS_EXECUTABLE = "./this.program"
#: pytest's plugins the lab's suite loads (``_pytest.config.default_plugins`` of the served pytest, 9.0.2): imported
#: at every run's configuration, each a module import in the kernel
PYTEST_PLUGINS = (
    "mark", "main", "runner", "fixtures", "helpconfig", "python", "terminal", "debugging", "unittest", "capture",
    "skipping", "legacypath", "tmpdir", "monkeypatch", "recwarn", "pastebin", "assertion", "junitxml", "doctest",
    "cacheprovider", "setuponly", "setupplan", "stepwise", "unraisableexception", "threadexception", "warnings",
    "logging", "reports", "faulthandler", "subtests",
)  # fmt: skip
#: what the lab's first suite run imports (:mod:`labcore.contract`, pytest and its plugins, hypothesis and the
#: strategies the contract tests draw from) and ``piplite``'s ``unittest.mock``: in the kernel each new top-level
#: module is first looked for in the working directory, the reader's storage (``""`` leads ``sys.path``), one
#: message to the page per lookup, and each module's code is run; in the snapshot neither happens again.
#: Not hypothesis's pytest plugin: importing it opens hypothesis's initialization phase until a pytest run closes it
SUITE_IMPORTS = (
    "pytest",
    *(f"_pytest.{name}" for name in PYTEST_PLUGINS),
    "hypothesis",
    "hypothesis.strategies",
    "hypothesis.stateful",
    "labcore.contract",
    "labcore.workbench",
    "unittest.mock",
)
#: the modules pyodide-kernel's package imports from IPython, traitlets, comm and jedi (its ``__init__``,
#: ``interpreter``, ``display``, ``kernel``, ``comm`` and ``litetransform`` modules), and jedi (completion)
SNAPSHOT_IMPORTS = (
    "IPython",
    "IPython.core.application",
    "IPython.core.displayhook",
    "IPython.core.displaypub",
    "IPython.core.getipython",
    "IPython.core.history",
    "IPython.core.inputtransformer2",
    "IPython.core.interactiveshell",
    "IPython.core.shellapp",
    "IPython.display",
    "IPython.utils.tokenutil",
    "comm",
    "jedi",
    "traitlets",
    "traitlets.config",
    *SUITE_IMPORTS,
)


def make_snapshot(
    pyodide_dir: Path, packages: tuple[str, ...] | list[str], cache: Path, imports: tuple[str, ...] = SNAPSHOT_IMPORTS
) -> Path:
    """Write ``SNAPSHOT_FILE`` and ``BOOT_MODULE`` into ``pyodide_dir`` (the served runtime and its lock).

    The snapshot holds the wheels of ``packages`` and their lock dependencies unpacked (the ones the kernel
    preloads) and ``imports`` imported. Snapshots are cached in ``cache`` by everything that goes into them.
    Needs ``node``; fails with the reason when it is missing, or when the snapshot cannot be made (a module
    that does not import, a file still open when it would be taken).
    """
    wheels = served_wheels(pyodide_dir, packages)
    job = {"wheels": [w.name for w in wheels], "imports": list(imports), "sys_executable": SYS_EXECUTABLE}
    cached = cached_node_output(NODE_SCRIPT, pyodide_dir, job, wheels, cache, ".gz", "the kernel snapshot")
    shutil.copy2(cached, pyodide_dir / SNAPSHOT_FILE)
    for name in (BOOT_MODULE, PRIVATE_MODULE):
        shutil.copy2(STATIC / name, pyodide_dir / name)
    log(
        f"kernel snapshot: {len(wheels)} wheels unpacked, {len(imports)} modules imported, "
        f"{cached.stat().st_size / 2**20:.1f} MiB gzipped"
    )
    return pyodide_dir / SNAPSHOT_FILE


def make_file_bundle(pyodide_dir: Path, packages: tuple[str, ...] | list[str], cache: Path) -> Path:
    """Write ``FILES_BUNDLE`` into ``pyodide_dir``: every file a boot with ``packages`` preloaded adds, in one file.

    ``packages`` must be the kernel's ``loadPyodideOptions.packages``, in order (the boot module unpacks the
    packages itself when the bundle names others). Made by ``static/kernel_files.mjs`` with the served runtime
    and wheels, so the files are the ones the kernel's own loading writes; cached in ``cache``.
    """
    wheels = served_wheels(pyodide_dir, packages)
    cached = cached_node_output(
        FILES_SCRIPT, pyodide_dir, {"packages": list(packages)}, wheels, cache, ".bin.gz", "the kernel's file bundle"
    )
    shutil.copy2(cached, pyodide_dir / FILES_BUNDLE)
    log(f"kernel files: {len(wheels)} packages' files in one bundle, {cached.stat().st_size / 2**20:.1f} MiB gzipped")
    return pyodide_dir / FILES_BUNDLE


def point_kernel_at_boot(site: Path) -> int:
    """Make the built site's kernel load Pyodide through ``BOOT_MODULE``; return the configs changed.

    ``jupyter lite build`` points ``pyodideUrl`` at ``static/pyodide/pyodide.mjs``; the boot module must be
    in the site beside it.
    """
    changed = 0
    for config in site.rglob("jupyter-lite.json"):
        data = json.loads(config.read_text(encoding="utf-8"))
        settings = data.get("jupyter-config-data", {}).get("litePluginSettings", {}).get(KERNEL_PLUGIN)
        if not settings or "pyodideUrl" not in settings:
            continue
        url = settings["pyodideUrl"].rsplit("/", 1)[0] + "/" + BOOT_MODULE
        if not (config.parent / url).is_file():
            raise FileNotFoundError(f"{config}: the kernel's boot module {url} is not in the site")
        settings["pyodideUrl"] = url
        config.write_text(json.dumps(data, indent=2), encoding="utf-8")
        changed += 1
    return changed
