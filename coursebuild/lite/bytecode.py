"""Ship the live kernel's wheels with the bytecode of Pyodide's own Python, so a kernel imports without compiling.

Pyodide writes no bytecode (``sys.dont_write_bytecode``), so every live kernel compiled the source of
what it imports at each start: IPython, jedi and prompt_toolkit while booting, labcore in every
chapter, pytest and hypothesis in chapter 7. :func:`compile_wheels` compiles them once, at build
time, with the same interpreter: Pyodide's CPython, run under Node from the npm ``pyodide``
package the site serves (a ``.pyc`` only loads in the Python version that wrote it). Under Node it
runs :func:`add_bytecode` of this module, which is standard library only, on every wheel:

* a third-party wheel becomes sourceless, as Pyodide's own packages are: each ``x.py`` is replaced by
  its ``x.pyc`` (about the same size);
* a wheel named in ``keep_source`` (labcore: learners read its tracebacks and its source) keeps each
  ``x.py`` and gains ``__pycache__/x.<cache tag>.pyc`` beside it.

Each ``.pyc`` is an unchecked hash-based pyc (PEP 552), so the import system takes it without
comparing timestamps, which unpacking a wheel does not keep. The wheel's ``RECORD`` is rewritten.
Compiled wheels are cached by the input wheel's sha256, this module's own and the interpreter's cache tag.

Why under Node and not with Pyodide's own CLI (``pyodide py-compile``, from pyodide-build): that command compiles
with the host's Python, and a ``.pyc`` loads only in the Python version that wrote it; the browser's is 3.14, the
book's venv 3.11. Pyodide's own CPython under Node is the one interpreter here that writes 3.14 bytecode.

>>> bytecode_name("pkg/mod.py", "cpython-314", keep_source=True)
'pkg/__pycache__/mod.cpython-314.pyc'
>>> bytecode_name("pkg/mod.py", "cpython-314", keep_source=False)
'pkg/mod.pyc'
"""

from __future__ import annotations

import importlib.util
import json
import marshal
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any

from .wheels import record_text, sha256_of

#: the Node script that runs :func:`add_bytecode` in Pyodide (beside this module)
NODE_SCRIPT = Path(__file__).with_name("static") / "pyodide_compile.mjs"


def bytecode_name(source: str, cache_tag: str, *, keep_source: bool) -> str:
    """Return the archive path of the bytecode of ``source`` (a ``.py`` path inside a wheel)."""
    path = PurePosixPath(source)
    if keep_source:
        return str(path.parent / "__pycache__" / f"{path.stem}.{cache_tag}.pyc")
    return str(path.with_suffix(".pyc"))


def add_bytecode(src: str, dst: str, *, keep_source: bool) -> int:
    """Write wheel ``dst``: wheel ``src`` with each ``.py`` compiled by this interpreter; return how many.

    The code objects name the file where this interpreter installs it (its ``purelib``, in Pyodide
    ``/lib/python3.14/site-packages``), so tracebacks point there. A module that does not compile stays
    source only, as it would have failed at import anyway.
    """

    # Pyodide's prefix is "/", so its purelib reads "//lib/python3.14/site-packages": POSIX keeps a leading "//" as a
    # root of its own, and a code object naming "//lib/..." made pytest and hypothesis fail to relate it to "/"
    site_packages = "/" + sysconfig.get_paths()["purelib"].lstrip("/")

    tag = sys.implementation.cache_tag
    compiled = 0
    with zipfile.ZipFile(src) as zin:
        infos = zin.infolist()
        record_name = next(i.filename for i in infos if i.filename.endswith(".dist-info/RECORD"))
        files: dict[str, tuple[zipfile.ZipInfo, bytes]] = {}
        for info in infos:
            data = zin.read(info)
            if info.filename == record_name or info.is_dir():
                continue
            if info.filename.endswith(".py"):
                try:
                    code = compile(data, f"{site_packages}/{info.filename}", "exec", dont_inherit=True)
                except SyntaxError:
                    files[info.filename] = (info, data)
                    continue
                # an unchecked hash-based .pyc as PEP 552 lays it out: magic, flags 0b01, the source hash, the code
                flags = (0b01).to_bytes(4, "little")
                pyc = importlib.util.MAGIC_NUMBER + flags + importlib.util.source_hash(data) + marshal.dumps(code)
                name = bytecode_name(info.filename, tag, keep_source=keep_source)
                files[name] = (zipfile.ZipInfo(name, date_time=info.date_time), pyc)
                compiled += 1
                if not keep_source:
                    continue
            files[info.filename] = (info, data)
    record = record_text({name: data for name, (_info, data) in files.items()}, record_name)
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info, data in files.values():
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = info.external_attr or 0o644 << 16
            zout.writestr(info, data)
        zout.writestr(zipfile.ZipInfo(record_name, date_time=(2020, 1, 1, 0, 0, 0)), record)
    return compiled


def compile_wheels(wheels: list[Path], pyodide_dir: Path, cache: Path, *, keep_source: tuple[str, ...] = ()) -> dict:
    """Replace each wheel in ``wheels`` by its compiled copy (cached); return ``{wheel name: modules compiled}``.

    ``pyodide_dir`` is the unpacked npm ``pyodide`` package; wheels whose distribution name is in
    ``keep_source`` keep their sources. Needs ``node``; fails with the reason when it is missing.
    """
    version = json.loads((pyodide_dir / "package.json").read_text(encoding="utf-8"))["version"]
    compiled_copy = {}
    for whl in wheels:
        keep = whl.name.split("-")[0] in keep_source
        # the key also holds this module's own digest: a change to how wheels are compiled recompiles them
        key = f"{sha256_of(whl)[:16]}-{sha256_of(Path(__file__))[:8]}{'-with-source' if keep else ''}"
        compiled_copy[whl] = (cache / f"pyodide-{version}" / key / whl.name, keep)
    jobs: list[dict[str, Any]] = [
        {"src": str(whl.resolve()), "dst": str(out.resolve()), "keep_source": keep}
        for whl, (out, keep) in compiled_copy.items()
        if not out.with_suffix(".json").is_file()
    ]
    if jobs:
        if shutil.which("node") is None:
            raise RuntimeError(
                "node is missing: the live site's bytecode is compiled by Pyodide under Node "
                "(apt-get install nodejs; npm brings it)"
            )
        cache.mkdir(parents=True, exist_ok=True)
        # written beside the cache, then moved into place whole (the marker .json last): a build compiling the same
        # wheels at once (the Live tests' two workers) never reads a wheel still being written
        with tempfile.TemporaryDirectory(dir=cache) as tmp:
            staged = [{**job, "dst": str(Path(tmp) / str(i) / Path(job["dst"]).name)} for i, job in enumerate(jobs)]
            for job in staged:
                Path(job["dst"]).parent.mkdir(parents=True)
            spec = Path(tmp) / "jobs.json"
            spec.write_text(json.dumps(staged), encoding="utf-8")
            subprocess.run(
                [
                    "node",
                    str(NODE_SCRIPT),
                    str(pyodide_dir.resolve()),
                    str(Path(__file__).resolve().parents[2]),
                    str(spec),
                ],
                check=True,
            )
            for job, final in zip(staged, jobs, strict=True):
                dst = Path(final["dst"])
                dst.parent.mkdir(parents=True, exist_ok=True)
                os.replace(job["dst"], dst)
                os.replace(Path(job["dst"]).with_suffix(".json"), dst.with_suffix(".json"))
    done = {}
    for whl, (out, _keep) in compiled_copy.items():
        done[whl.name] = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))["compiled"]
        shutil.copyfile(out, whl)
    return done
