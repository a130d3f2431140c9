"""What moving an adapter costs: the course's one table of transfer assumptions.

An adapter that is not on the GPU travels one or more hops before a request can use it. Each hop is
a :class:`Link`: a fixed cost per load (open the file, first byte, allocate, launch the copy) plus
bytes over a bandwidth. Every chapter that quotes a miss cost takes its link from this module and
names it, so the numbers agree across the course:

* chapters 1-7 (the lab) charge a miss the host-to-GPU copy alone, at the lab's round figure
  (:data:`LAB_HOST_TO_GPU`, 8 MiB per ms: a 16 MiB adapter in 2 ms);
* chapters 8 onwards follow an adapter from where it really lives: an object store or a local
  NVMe drive into host RAM, then over PCIe from pinned host memory (:data:`PCIE4_X16`), which is
  faster than the lab's copy from pageable memory.

:data:`TRANSFER_ASSUMPTIONS` lists them all, each with its basis and its source, and
:func:`transfer_table` prints what each costs for one adapter.

>>> [round(link.transfer_ms(16.0), 2) for link in (LAB_HOST_TO_GPU, PCIE4_X16, NVME, OBJECT_STORE)]
[2.0, 0.77, 7.59, 66.78]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._validate import instance, number, text
from .sizing import MIB

__all__ = [
    "Link",
    "LAB_HOST_TO_GPU",
    "PCIE4_X16",
    "PCIE5_X16",
    "NVME",
    "OBJECT_STORE",
    "TRANSFER_ASSUMPTIONS",
    "LINKS",
    "serial",
    "transfer_table",
]


@dataclass(frozen=True, slots=True)
class Link:
    """One hop an adapter travels: a fixed cost per load plus bytes over a bandwidth.

    ``gb_per_s`` is decimal GB/s as datasheets quote it (1 GB = 10**9 bytes); adapter sizes are
    MiB, so :attr:`mb_per_ms` converts once, here. ``hop`` says from where to where, ``basis`` why
    these numbers, ``source`` where the facts behind them come from.

    >>> Link("PCIe 4.0 x16", overhead_ms=0.1, gb_per_s=25.0).transfer_ms(16.0)
    0.77108864
    """

    name: str
    overhead_ms: float
    gb_per_s: float
    hop: str = ""
    basis: str = ""
    source: str = ""

    def __post_init__(self) -> None:
        text("link name", self.name, blank_ok=True)
        number(f"link {self.name!r}: overhead_ms", self.overhead_ms, inclusive=True)
        number(f"link {self.name!r}: gb_per_s", self.gb_per_s)
        for field in ("hop", "basis", "source"):  # optional: any string, empty included
            instance(f"link {self.name!r}: {field}", getattr(self, field), str, error=ValueError)

    @property
    def mb_per_ms(self) -> float:
        """The bandwidth in MiB per millisecond (the unit ``AdapterCache`` takes)."""
        return self.gb_per_s * 1e9 / MIB / 1000.0

    def transfer_ms(self, size_mb: float) -> float:
        """Return the time to move ``size_mb`` MiB over this link: overhead + size / bandwidth."""
        return self.overhead_ms + number("size_mb", size_mb, inclusive=True) / self.mb_per_ms


def serial(first: Link, second: Link) -> tuple[float, float]:
    """Return the overhead (ms) and bandwidth (MiB/ms) of two hops taken one after the other.

    >>> overhead_ms, mb_per_ms = serial(OBJECT_STORE, PCIE4_X16)
    >>> overhead_ms, round(overhead_ms + 16.0 / mb_per_ms, 2) == round(OBJECT_STORE.transfer_ms(16) + PCIE4_X16.transfer_ms(16), 2)
    (50.1, True)
    """
    return first.overhead_ms + second.overhead_ms, 1.0 / (1.0 / first.mb_per_ms + 1.0 / second.mb_per_ms)


_NVIDIA_TRANSFERS = 'NVIDIA Technical Blog, M. Harris, "How to Optimize Data Transfers in CUDA C/C++"'

#: The lab's figure: 8 MiB per ms, so a 16 MiB adapter loads in 2 ms (the lab brief's "~2 ms for 16 MiB at 8 GB/s").
LAB_HOST_TO_GPU = Link(
    "host RAM to GPU (the lab's figure)",
    overhead_ms=0.0,
    gb_per_s=8.0 * MIB * 1000.0 / 1e9,
    hop="host RAM → GPU",
    basis="The lab's round number, 8 MiB/ms (about 8.4 GB/s) with no fixed cost: a copy from ordinary, pageable "
    "host memory, which the driver stages through a pinned buffer, so it runs below the pinned rate of the "
    "PCIe rows. Chapters 1-7 charge a miss this copy alone.",
    source=f"The lab brief (the course's starting point); staging of pageable copies: {_NVIDIA_TRANSFERS}.",
)
#: Host-to-device over PCIe 4.0 x16 from pinned memory: ~25 GB/s in practice (about 31.5 GB/s on the wire).
PCIE4_X16 = Link(
    "PCIe 4.0 x16",
    overhead_ms=0.1,
    gb_per_s=25.0,
    hop="pinned host RAM → GPU",
    basis="16 GT/s x 16 lanes x 128/130 encoding / 8 bits = about 31.5 GB/s per direction on the wire; we assume "
    "25 GB/s (about 80%) from pinned memory, and 0.1 ms per copy (an assumption).",
    source=f"The PCIe 4.0 signalling rate and encoding; pinned memory and per-transfer overhead: {_NVIDIA_TRANSFERS}. "
    "Measure your own with NVIDIA's bandwidthTest or nvbandwidth.",
)
#: PCIe 5.0 x16 doubles it: ~50 GB/s in practice (about 63 GB/s on the wire).
PCIE5_X16 = Link(
    "PCIe 5.0 x16",
    overhead_ms=0.1,
    gb_per_s=50.0,
    hop="pinned host RAM → GPU",
    basis="32 GT/s per lane doubles PCIe 4.0's rate (about 63 GB/s on the wire); we assume 50 GB/s and 0.1 ms.",
    source="The PCIe 5.0 signalling rate; the fraction achieved is assumed as for PCIe 4.0.",
)
#: A local NVMe SSD: ~3 GB/s sequential read, ~2 ms to open the file, parse the header and allocate.
NVME = Link(
    "local NVMe",
    overhead_ms=2.0,
    gb_per_s=3.0,
    hop="local disk → host RAM",
    basis="A PCIe 3.0 x4 drive's link carries at most about 3.9 GB/s, a 4.0 x4 drive about 7.9 GB/s; we assume "
    "3 GB/s of sequential reads, plus 2 ms to open the file, parse the safetensors header and allocate "
    "(an assumption).",
    source="The PCIe 3.0 and 4.0 x4 link rates (8 and 16 GT/s per lane, 128/130 encoding).",
)
#: An object store in the same region: ~1 GB/s with parallel range reads, tens of ms to the first byte.
OBJECT_STORE = Link(
    "object store",
    overhead_ms=50.0,
    gb_per_s=1.0,
    hop="object store → host RAM",
    basis="One stream is commonly reported at 80-100 MB/s; 1 GB/s assumes ten or more concurrent byte-range reads. "
    '50 ms to the first byte is an assumption ("tens of milliseconds"): measure it.',
    source='AWS whitepaper "Best Practices Design Patterns: Optimizing Amazon S3 Performance", section "Use '
    'Byte-Range Fetches" (8-16 MB ranges, concurrent requests); the single-stream figure: GitLab runner '
    "merge request 6473.",
)

#: Every link the course uses, in the order an adapter's bytes meet them from the GPU outwards.
TRANSFER_ASSUMPTIONS: tuple[Link, ...] = (LAB_HOST_TO_GPU, PCIE4_X16, PCIE5_X16, NVME, OBJECT_STORE)
LINKS: dict[str, Link] = {link.name: link for link in TRANSFER_ASSUMPTIONS}


def transfer_table(size_mb: float = 16.0) -> list[dict[str, Any]]:
    """Return one row per link of :data:`TRANSFER_ASSUMPTIONS`: what it is and what moving ``size_mb`` MiB costs.

    >>> [(row["link"], row["load_ms"]) for row in transfer_table(16.0)][:2]
    [("host RAM to GPU (the lab's figure)", 2.0), ('PCIe 4.0 x16', 0.77)]
    """
    number("size_mb", size_mb)
    return [
        {
            "link": link.name,
            "hop": link.hop,
            "overhead_ms": link.overhead_ms,
            "gb_per_s": round(link.gb_per_s, 2),
            "mb_per_ms": round(link.mb_per_ms, 2),
            "load_ms": round(link.transfer_ms(size_mb), 2),
            "basis": link.basis,
            "source": link.source,
        }
        for link in TRANSFER_ASSUMPTIONS
    ]
