"""Name the GPUs a fleet plan can use, with the memory the driver reports and the spec sheet's figure.

The records are data (``labcore/data/gpus.json``), each figure with its source. Two memory figures:

* :attr:`Gpu.usable_mib` is the total the NVIDIA driver reports (``nvidia-smi``'s memory total, in
  MiB): all an engine can ever allocate from. **Plans use this one.**
* ``memory_gb`` is the vendor's figure in the vendor's unit ("GB"); :attr:`Gpu.memory_gib` reads it
  as decimal gigabytes. It is kept for the callers that still use it: it is neither the driver's
  figure nor a safe bound (an H100 "80 GB" reports 81,559 MiB, more than 80e9 bytes).

B200 is left out: its driver total could not be verified from the sources at hand.

>>> load_gpu("H100-80GB").memory_gb, load_gpu("H100-80GB").usable_mib
(80, 81559)
>>> round(load_gpu("H100-80GB").usable_gib, 2), round(load_gpu("H100-80GB").memory_gib, 1)
(79.65, 74.5)
>>> "L4-24GB" in known_gpus()
True
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ._validate import between, count, text
from .errors import LabcoreError

__all__ = ["Gpu", "UnknownGpuError", "known_gpus", "load_gpu"]

_GB = 10**9
_GIB = 1024**3
_MIB = 1024**2


class UnknownGpuError(LabcoreError, KeyError):
    """A GPU name is not among the shipped records."""

    def __str__(self) -> str:  # KeyError would repr() the message; show it as written.
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True, slots=True)
class Gpu:
    """Hold one GPU model: its name, the memory its spec sheet states, the driver's total, and the sources.

    ``usable_mib`` is None for a card whose driver total is not known; ``usable_source`` then says why.

    >>> Gpu("X-1GB", memory_gb=1, memory_type="HBM", source="a datasheet", usable_mib=990,
    ...     usable_source="a log").usable_bytes
    1038090240
    """

    name: str
    memory_gb: float
    memory_type: str
    source: str
    usable_mib: int | None = None
    usable_source: str = ""

    def __post_init__(self) -> None:
        text("a GPU's name", self.name)
        between(f"{self.name}: memory_gb", self.memory_gb, 0, 10_000, low_inclusive=False, high_inclusive=False)
        for key in ("memory_type", "source"):
            text(f"{self.name}: {key}", getattr(self, key))
        if self.usable_mib is not None:
            # the spec figure read as GiB: no driver reports more
            count(f"{self.name}: usable_mib", self.usable_mib, maximum=self.memory_gb * 1024)
        if not isinstance(self.usable_source, str) or (self.usable_mib is not None and not self.usable_source.strip()):
            raise ValueError(
                f"{self.name}: usable_source must name where the driver total was seen, got {self.usable_source!r}"
            )

    @property
    def memory_gib(self) -> float:
        """Return the spec sheet's memory in GiB, reading the vendor's "GB" as 10**9 bytes (kept for old callers)."""
        return self.memory_gb * _GB / _GIB

    @property
    def driver_mib(self) -> int:
        """Return the driver-reported total in MiB (``usable_mib``); raise if this card's total is not known."""
        if self.usable_mib is None:
            raise ValueError(
                f"{self.name}: usable_mib is missing: no driver-reported memory total is recorded "
                f"({self.usable_source})"
            )
        return self.usable_mib

    @property
    def usable_bytes(self) -> int:
        """Return the driver-reported total in bytes; raise if this card's total is not known."""
        return self.driver_mib * _MIB

    @property
    def usable_gib(self) -> float:
        """Return the driver-reported total in GiB (``usable_mib / 1024``)."""
        return self.usable_bytes / _GIB


@lru_cache(maxsize=1)
def _records() -> dict[str, Gpu]:
    data = json.loads(resources.files("labcore").joinpath("data/gpus.json").read_text(encoding="utf-8"))
    return {
        g["name"]: Gpu(
            g["name"],
            memory_gb=g["memory_gb"],
            memory_type=g["memory_type"],
            source=g["source"],
            usable_mib=g.get("usable_mib"),
            usable_source=g.get("usable_source", ""),
        )
        for g in data["gpus"]
    }


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
