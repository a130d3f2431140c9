"""The engine releases the course states its facts at, and the facts ``make engines`` read in their wheels.

``make engines`` (``scripts/engine_facts.py``) downloads each release's wheel with ``pip download
--no-deps``, reads its Python source without importing it, and writes one JSON file per release into
``labcore/data/engines``, named with the release and the date it was read
(``vllm-0.33.0-2026-12-05.json``): every CLI flag with its default and choices, the LoRA target modules
each architecture the course ships declares, the environment variables and plugins the adapters' routes
use, and the config fields the LoRA buffer shapes read. The tests check the course's engine facts and
every printed command against these files; the next release is re-checked by changing :data:`RELEASES`,
running ``make engines`` and reading the diff.

>>> RELEASES["vllm"], release_facts("vllm")["version"]
('0.33.0', '0.33.0')
>>> release_facts("sglang")["flags"]["--max-loras-per-batch"]["default"]
8
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from .._validate import choice
from .allocation import SGLANG_ENGINE, VLLM_ENGINE

__all__ = ["RELEASES", "TAGGED_RELEASES", "release_facts", "release_facts_name", "release_file", "flag_fact"]

#: The release of each engine the course's facts are stated and cited at.
RELEASES: Mapping[str, str] = {VLLM_ENGINE: "0.33.0", SGLANG_ENGINE: "0.5.23"}
#: Releases read in the engine's repository at their tag (``scripts/lorax_facts.py``: LoRAX's launcher is Rust, no
#: PyPI package holds it); v0.12.1 is LoRAX's latest release tag (lorax-0.4.0 after it tags the Helm chart).
TAGGED_RELEASES: Mapping[str, str] = {"lorax": "0.12.1"}
_DATA = "data/engines"


def release_file(engine: str, folder: str = _DATA, *, versions: Mapping[str, str] | None = None) -> Traversable:
    """Return ``engine``'s committed file at its release in ``labcore/<folder>``: the latest date read, if several.

    ``versions`` are the releases the folder holds files of (default: :data:`RELEASES` and :data:`TAGGED_RELEASES`).
    Files are named ``<engine>-<version>-<date>.json``, the date as ``YYYY-MM-DD``, so the last name sorts newest.

    >>> release_file("sglang", "data/engines/parsed", versions=RELEASES).name.startswith("sglang-0.5.23-")
    True
    """
    versions = {**RELEASES, **TAGGED_RELEASES} if versions is None else versions
    choice("engine", engine, sorted(versions))
    prefix = f"{engine}-{versions[engine]}-"
    found = resources.files("labcore").joinpath(folder)
    names = sorted(p.name for p in found.iterdir() if p.name.startswith(prefix) and p.name.endswith(".json"))
    if not names:
        raise FileNotFoundError(f"no file of {engine} {versions[engine]} in labcore/{folder}: run make engines")
    return found.joinpath(names[-1])


def release_facts_name(engine: str) -> str:
    """Return the committed facts file of ``engine``'s release (the latest date read, if several).

    >>> release_facts_name("vllm")
    'vllm-0.33.0-2026-12-05.json'
    """
    return release_file(engine).name


def release_facts(engine: str) -> dict[str, Any]:
    """Return the facts ``make engines`` read in ``engine``'s released wheel (parsed JSON)."""
    return json.loads(release_file(engine).read_text(encoding="utf-8"))


def flag_fact(engine: str, flag: str) -> dict[str, Any]:
    """Return one flag's facts at the release: its default, choices, and the file it was read in.

    >>> flag_fact("vllm", "--max-lora-rank")["choices"]
    [1, 8, 16, 32, 64, 128, 256, 320, 512]
    """
    flags = release_facts(engine)["flags"]
    if flag not in flags:
        raise KeyError(f"{engine} {RELEASES[engine]} has no flag {flag!r}")
    return flags[flag]
