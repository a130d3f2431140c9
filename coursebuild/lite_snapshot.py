"""Start the live kernel from a memory snapshot, so it does not import IPython at every start.

Booting the kernel's worker took 7.5 s on the 2-core test machine, 2.0 s of it in ``import IPython`` and the
rest of what pyodide-kernel imports. :func:`make_snapshot` boots the served runtime once, at build time, under
Node (``static/pyodide_snapshot.mjs``): it unpacks the preloaded wheels, applies pyodide-kernel's
``sys.modules`` mocks as its package does, imports :data:`SNAPSHOT_IMPORTS` and writes Pyodide's memory
snapshot of that state, gzipped, beside the runtime. :func:`point_kernel_at_boot` makes the kernel's worker load
Pyodide through ``static/kernel_boot.mjs``, which restores that snapshot (and boots as before when it cannot).

What a restored kernel shares with every other: the hash seed of ``str`` (the snapshot fixes it, as
``PYTHONHASHSEED`` would) and what was in ``os.environ`` when the snapshot was made; the boot module reseeds
``random``. micropip and piplite stay out: importing them keeps JavaScript objects that a snapshot cannot hold.

Used by :func:`coursebuild.lite_site.prepare_runtime` (``make_snapshot(lite_dir / "static" / "pyodide", preload,
cache)``) and :func:`coursebuild.lite_site.finish_site` (``point_kernel_at_boot(site)``).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from .lite_runtime import KERNEL_PLUGIN, lock_closure
from .lite_wheels import log

STATIC = Path(__file__).with_name("static")
#: the Node script that makes the snapshot at build time
NODE_SCRIPT = STATIC / "pyodide_snapshot.mjs"
#: the kernel worker's entry point (jupyter-lite.json's ``pyodideUrl``), served beside ``pyodide.mjs``
BOOT_MODULE = "kernel_boot.mjs"
#: the snapshot's name beside the runtime (``kernel_boot.mjs`` asks for it by this name)
SNAPSHOT_FILE = "kernel.snapshot.gz"
#: what the browser's worker reports as ``sys.executable`` (Emscripten's default program name on the web);
#: under Node it would be the script's path, which the snapshot would keep
SYS_EXECUTABLE = "./this.program"
#: the modules pyodide-kernel's package imports from IPython, traitlets, comm and jedi (its ``__init__``,
#: ``interpreter``, ``display``, ``kernel``, ``comm`` and ``litetransform`` modules), and jedi (completion)
SNAPSHOT_IMPORTS = (
    "IPython", "IPython.core.application", "IPython.core.displayhook", "IPython.core.displaypub",
    "IPython.core.getipython", "IPython.core.history", "IPython.core.inputtransformer2",
    "IPython.core.interactiveshell", "IPython.core.shellapp", "IPython.display", "IPython.utils.tokenutil",
    "comm", "jedi", "traitlets", "traitlets.config",
)


def _key(pyodide_dir: Path, wheels: list[str], lock: dict, imports: tuple[str, ...]) -> str:
    """Return the cache key of a snapshot: the runtime, the wheels, the imports and the script that made it."""
    digest = hashlib.sha256()
    digest.update((pyodide_dir / "pyodide.asm.wasm").read_bytes())
    digest.update((pyodide_dir / "python_stdlib.zip").read_bytes())
    digest.update(json.dumps([[lock[n]["file_name"], lock[n]["sha256"]] for n in wheels]).encode())
    digest.update(json.dumps([list(imports), SYS_EXECUTABLE]).encode())
    digest.update(NODE_SCRIPT.read_bytes())
    return digest.hexdigest()[:20]


def make_snapshot(pyodide_dir: Path, packages: tuple[str, ...] | list[str], cache: Path,
                  imports: tuple[str, ...] = SNAPSHOT_IMPORTS) -> Path:
    """Write ``SNAPSHOT_FILE`` and ``BOOT_MODULE`` into ``pyodide_dir`` (the served runtime and its lock).

    The snapshot holds the wheels of ``packages`` and their lock dependencies unpacked (the ones the kernel
    preloads) and ``imports`` imported. Snapshots are cached in ``cache`` by everything that goes into them.
    Needs ``node``; fails with the reason when it is missing, or when the snapshot cannot be made (a module
    that does not import, a file still open when it would be taken).
    """
    lock = json.loads((pyodide_dir / "pyodide-lock.json").read_text(encoding="utf-8"))["packages"]
    wheels = lock_closure(lock, tuple(packages))
    cached = cache / f"{_key(pyodide_dir, wheels, lock, imports)}.gz"
    if not cached.is_file():
        if shutil.which("node") is None:
            raise RuntimeError("node is missing: the live kernel's snapshot is made by Pyodide under Node "
                               "(apt-get install nodejs; npm brings it)")
        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            job = Path(tmp) / "job.json"
            part = Path(tmp) / "snapshot.gz"
            job.write_text(json.dumps({"wheels": [lock[n]["file_name"] for n in wheels], "imports": list(imports),
                                       "out": str(part), "sys_executable": SYS_EXECUTABLE}), encoding="utf-8")
            done = subprocess.run(["node", str(NODE_SCRIPT), str(pyodide_dir.resolve()), str(job)],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                # the script's last line names the error (see its header); Node's own dump otherwise
                reason = (done.stderr.strip().splitlines() or ["no error output"])[-1][-500:]
                raise RuntimeError(f"the kernel snapshot could not be made: {reason}")
            print(done.stdout, end="")
            shutil.move(part, cached)
    shutil.copy2(cached, pyodide_dir / SNAPSHOT_FILE)
    shutil.copy2(STATIC / BOOT_MODULE, pyodide_dir / BOOT_MODULE)
    log(f"kernel snapshot: {len(wheels)} wheels unpacked, {len(imports)} modules imported, "
        f"{cached.stat().st_size / 2**20:.1f} MiB gzipped")
    return pyodide_dir / SNAPSHOT_FILE


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
