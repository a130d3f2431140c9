"""The optional real stack (torch, peft, transformers), imported by the first test that uses it, not at collection.

Every xdist worker collects every test module, so a module-level import of torch, peft and transformers cost
each worker about 4.5 s before its first test. A name from here imports its package on first use, or skips the
test that asked, with the line that installs the extra.

A module of tests that needs the stack calls :func:`skip_without_real_stack` first: it looks the packages up
without importing them, so the module is still skipped whole on a machine without the extra.

>>> json = LazyModule("json")   # any module: nothing is imported until an attribute is read
>>> json.dumps([1])
'[1]'
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # before huggingface_hub is imported: hubs are unreachable
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

REASON = "the real stack is optional: pip install -r requirements-real.txt"
PACKAGES = ("torch", "peft", "transformers", "safetensors")


def skip_without_real_stack() -> None:
    """Skip the calling test module when a package of the real stack is not installed (none is imported)."""
    missing = [name for name in PACKAGES if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"{REASON} (missing: {', '.join(missing)})", allow_module_level=True)


class LazyModule:
    """A module imported when one of its attributes is first read; the reading test is skipped if it is missing."""

    def __init__(self, module: str) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # doctest's collection asks every global for __wrapped__: that imports nothing
            raise AttributeError(name)
        return getattr(pytest.importorskip(self._module, reason=REASON), name)


torch = LazyModule("torch")
peft = LazyModule("peft")
transformers = LazyModule("transformers")
safetensors_torch = LazyModule("safetensors.torch")
lora_tuners = LazyModule("peft.tuners.lora")
