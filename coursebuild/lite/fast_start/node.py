"""Run a build step with the live site's own Python: Pyodide under Node, on the served runtime folder.

The kernel's snapshot, the bundle of its preloaded packages' files (:mod:`.snapshot`) and hypothesis's Unicode
tables (:mod:`.hypothesis`) are each made by a script in ``static/`` that boots the served runtime under Node.
:func:`cached_node_output` runs one, once per set of inputs: the output is kept in a cache folder under a key of the
runtime, the script and the job's other inputs.

>>> runtime_key([], {"packages": ["labcore"]})[:8]
'd63fbeb7'
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

#: the runtime's files every output depends on (beside the script and the job's own inputs)
RUNTIME_FILES = ("pyodide.asm.wasm", "python_stdlib.zip")
#: the modules the scripts import (in ``static/``, beside them): the one naming a script's error, and the one naming
#: Pyodide's private options (``pyodide_private.mjs``)
HELPER_MODULES = ("node_error.mjs", "pyodide_private.mjs")


def runtime_key(files: list[Path], job: dict[str, Any]) -> str:
    """Return the cache key of an output made from ``files`` (their names and bytes) and ``job`` (as JSON)."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + hashlib.sha256(path.read_bytes()).digest())
    digest.update(json.dumps(job, sort_keys=True).encode())
    return digest.hexdigest()[:20]


def cached_node_output(
    script: Path,
    pyodide_dir: Path,
    job: dict[str, Any],
    inputs: list[Path],
    cache: Path,
    suffix: str,
    what: str,
    run_job: dict[str, Any] | None = None,
) -> Path:
    """Return the cached output of ``node script <pyodide_dir> <job.json>``, running it when it is not cached.

    The script reads ``job`` (plus ``"out"``, the path it writes) and, on failure, names its error in the last
    line of its stderr: raised here as ``RuntimeError("<what> could not be made: <that line>")``. ``inputs`` are
    the files besides the runtime and the script that go into the output (wheels). ``run_job``, when given, is
    what the script reads instead of ``job`` (which then only keys the cache): a job holding paths, which the key
    leaves out so that a build in another folder finds the output.
    """
    helpers = [script.with_name(name) for name in HELPER_MODULES]
    files = [pyodide_dir / name for name in RUNTIME_FILES] + [script, *helpers, *inputs]
    cached = cache / f"{runtime_key(files, job)}{suffix}"
    if cached.is_file():
        return cached
    if shutil.which("node") is None:
        raise RuntimeError(
            f"node is missing: {what} is made by Pyodide under Node (apt-get install nodejs; npm brings it)"
        )
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:  # beside the cache: moved into place whole
        job_file, part = Path(tmp) / "job.json", Path(tmp) / f"out{suffix}"
        job_file.write_text(json.dumps({**(job if run_job is None else run_job), "out": str(part)}), encoding="utf-8")
        done = subprocess.run(
            ["node", str(script), str(pyodide_dir.resolve()), str(job_file)], capture_output=True, text=True
        )
        if done.returncode != 0:
            # the script's last line names the error; Node's own dump otherwise
            reason = (done.stderr.strip().splitlines() or ["no error output"])[-1][-500:]
            raise RuntimeError(f"{what} could not be made: {reason}")
        print(done.stdout, end="")
        os.replace(part, cached)
    return cached
