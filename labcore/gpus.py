"""Name the GPUs a fleet plan can use, with the memory each one's spec sheet states.

The records are data (``labcore/data/gpus.json``), each with its source. ``memory_gb`` is the
vendor's figure in the vendor's unit ("GB"); :attr:`Gpu.memory_gib` reads it as decimal gigabytes,
the conservative reading, so a plan never counts memory a card may not have. B200 is left out:
its usable memory could not be verified from the sources at hand.

>>> load_gpu("H100-80GB").memory_gb
80
>>> round(load_gpu("H100-80GB").memory_gib, 1)
74.5
>>> "L4-24GB" in known_gpus()
True
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from .errors import LabcoreError

__all__ = ["Gpu", "UnknownGpuError", "known_gpus", "load_gpu"]

_GB = 10**9
_GIB = 1024**3


class UnknownGpuError(LabcoreError, KeyError):
    """A GPU name is not among the shipped records."""

    def __str__(self) -> str:  # KeyError would repr() the message; show it as written.
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True, slots=True)
class Gpu:
    """Hold one GPU model: its name, the memory its spec sheet states, and where that is stated.

    >>> Gpu("X-1GB", memory_gb=1, memory_type="HBM", source="a datasheet").memory_gib < 1
    True
    """

    name: str
    memory_gb: float
    memory_type: str
    source: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"a GPU needs a name, got {self.name!r}")
        ok = isinstance(self.memory_gb, (int, float)) and not isinstance(self.memory_gb, bool)
        if not ok or not 0 < self.memory_gb < 10_000:
            raise ValueError(f"{self.name}: memory_gb must be a number of GB in (0, 10000), got {self.memory_gb!r}")
        for key in ("memory_type", "source"):
            if not isinstance(getattr(self, key), str) or not getattr(self, key).strip():
                raise ValueError(f"{self.name}: {key} must be a non-empty string, got {getattr(self, key)!r}")

    @property
    def memory_gib(self) -> float:
        """Return the stated memory in GiB, reading the vendor's "GB" as 10**9 bytes."""
        return self.memory_gb * _GB / _GIB


@lru_cache(maxsize=1)
def _records() -> dict[str, Gpu]:
    data = json.loads(resources.files("labcore").joinpath("data/gpus.json").read_text(encoding="utf-8"))
    return {g["name"]: Gpu(g["name"], memory_gb=g["memory_gb"], memory_type=g["memory_type"], source=g["source"])
            for g in data["gpus"]}


def known_gpus() -> tuple[str, ...]:
    """Return the names of the shipped GPU records, smallest memory first.

    >>> known_gpus()[:2]
    ('A10G-24GB', 'L4-24GB')
    """
    return tuple(sorted(_records(), key=lambda n: (_records()[n].memory_gb, n)))


def load_gpu(name: str) -> Gpu:
    """Return the record of one shipped GPU by name (``'H100-80GB'``).

    >>> load_gpu("H200-141GB").memory_type
    'HBM3e'
    """
    try:
        return _records()[name]
    except (KeyError, TypeError):
        raise UnknownGpuError(f"unknown GPU {name!r}; valid: {list(known_gpus())}") from None
