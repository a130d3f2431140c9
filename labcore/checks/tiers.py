"""Check the spill-tier exercises: a host-memory hit, a cold load from storage, and where the host tier's cliff is
(chapter 9).

Exercises 9.1 and 9.2 load a Llama-3-70B adapter (r=16 on q, k, v and o) at its exact size, 125 MiB from the
model's config (:func:`labcore.model_config.exact_sizing`), not the square formula's 160 MiB. Exercise 9.3 is a
prediction, graded against the chapter's own runs (:func:`labcore.sim.scenarios.spill.spill_pair`, the panel's
states).
"""

from __future__ import annotations

import functools

from ..links import NVME, OBJECT_STORE, PCIE4_X16, Link
from ..model_config import exact_sizing
from ..sim.scenarios.spill import SPILL, SPILL_GRID, spill_pair
from ..sizing import MIB
from .exercise import Exercise
from .rules import NumberRule, graded
from .verdict import Mistake, _printer

__all__ = [
    "BIG_ADAPTER",
    "CLIFF_HOST_ADAPTERS",
    "grade_host_hit_ms",
    "grade_cold_load_ms",
    "grade_spill_cliff_tenants",
    "check_host_hit_ms",
    "check_cold_load_ms",
    "check_spill_cliff_tenants",
    "EXERCISES",
]

#: Exercises 9.1 and 9.2's adapter: Llama-3-70B at r=16 on q, k, v and o (``exact_mb`` 125, ``naive_mb`` 160).
BIG_ADAPTER = exact_sizing("llama-3-70b", 16, "q,k,v,o")
#: Exercise 9.3's host tier (adapters), smaller than the chapter's; the p99 counts as one PCIe copy under this.
CLIFF_HOST_ADAPTERS = 48
CLIFF_UNDER_MS = 50.0


def rule_host_hit_ms(
    *, size_mb: float = BIG_ADAPTER.exact_mb, pcie: Link = PCIE4_X16, naive_mb: float = BIG_ADAPTER.naive_mb
) -> NumberRule:
    """Grade the load time of a ``size_mb`` adapter found in host RAM: one copy over ``pcie`` (default 5.34 ms).

    ``naive_mb`` is the same adapter by the square formula, a size the learner may use by mistake.

    >>> grade_host_hit_ms(5.34).ok
    True
    >>> print(grade_host_hit_ms(6.81).message)
    ✗ 6.81 ms sizes the adapter by the square formula (160 MiB); its exact size is 125 MiB: Llama-3-70B's k and v projections are narrower than d (grouped-query attention).
    """
    expected = pcie.transfer_ms(size_mb)
    mb_as_decimal = size_mb / (pcie.gb_per_s * 1000) * 1000
    mistakes: list[Mistake] = [
        (
            mb_as_decimal,
            f"reads MiB as MB and drops the fixed cost: {size_mb:g} MiB is {size_mb * MIB / 1e6:.1f} MB, "
            f"and every copy pays {pcie.overhead_ms:g} ms to start.",
        ),
        (mb_as_decimal + pcie.overhead_ms, f"reads MiB as MB: {size_mb:g} MiB is {size_mb * MIB / 1e6:.1f} MB."),
        (expected - pcie.overhead_ms, f"forgets the fixed cost of {pcie.overhead_ms:g} ms per copy."),
        (expected + OBJECT_STORE.transfer_ms(size_mb), "adds a storage fetch; a host hit needs only the PCIe copy."),
    ]
    if naive_mb != size_mb:
        mistakes.append(
            (
                pcie.transfer_ms(naive_mb),
                f"sizes the adapter by the square formula ({naive_mb:g} MiB); its exact size is {size_mb:g} "
                "MiB: Llama-3-70B's k and v projections are narrower than d (grouped-query attention).",
            )
        )
    return NumberRule(
        expected,
        unit="ms",
        what="the host-hit load time",
        mistakes=mistakes,
        fallback=f"overhead + size / bandwidth: {pcie.overhead_ms:g} ms + {size_mb:g} MiB / {pcie.gb_per_s:g} GB/s.",
        rel_tol=0.01,
    )


def rule_cold_load_ms(
    *,
    size_mb: float = BIG_ADAPTER.exact_mb,
    storage: Link = NVME,
    pcie: Link = PCIE4_X16,
    naive_mb: float = BIG_ADAPTER.naive_mb,
) -> NumberRule:
    """Grade the load time of a ``size_mb`` adapter in neither tier: fetch from ``storage``, then copy (default NVMe).

    >>> print(grade_cold_load_ms(45.7).message)
    ✗ 45.7 ms is the fetch alone; the adapter must then cross PCIe to the GPU too.
    """
    expected = storage.transfer_ms(size_mb) + pcie.transfer_ms(size_mb)
    fetch = storage.transfer_ms(size_mb)
    mistakes: list[Mistake] = [
        (round(fetch, 1), "is the fetch alone; the adapter must then cross PCIe to the GPU too."),
        (fetch, "is the fetch alone; the adapter must then cross PCIe to the GPU too."),
        (pcie.transfer_ms(size_mb), "is the PCIe copy alone: a host hit. This adapter is in neither tier."),
        (expected - storage.overhead_ms - pcie.overhead_ms, "leaves out the two fixed costs (open/parse, copy start)."),
    ]
    if naive_mb != size_mb:
        mistakes.append(
            (
                storage.transfer_ms(naive_mb) + pcie.transfer_ms(naive_mb),
                f"moves the square formula's {naive_mb:g} MiB; the exact adapter is {size_mb:g} MiB.",
            )
        )
    return NumberRule(
        expected,
        unit="ms",
        what="the cold load time",
        mistakes=mistakes,
        fallback="Add both hops: storage overhead + size / storage bandwidth, then the PCIe copy.",
        rel_tol=0.01,
    )


@functools.lru_cache(maxsize=16)  # a rule is made per verdict; these replay a chapter's runs
def _cliff(host_adapters: int, gpu_adapters: int, under_ms: float) -> int:
    """The most tenants on the panel's grid whose p99 with the host tier stays under ``under_ms`` (0 if none)."""
    fine = [
        n
        for n in SPILL_GRID["tenants"]
        if spill_pair(n, host_adapters=host_adapters, gpu_adapters=gpu_adapters)[1].p99_ms < under_ms
    ]
    return max(fine, default=0)


def rule_spill_cliff_tenants(
    *,
    host_adapters: int = CLIFF_HOST_ADAPTERS,
    gpu_adapters: int = SPILL.gpu_adapters,
    under_ms: float = CLIFF_UNDER_MS,
) -> NumberRule:
    """Grade a prediction: up to how many tenants (a value of the panel's slider) the tiered p99 stays one PCIe copy.

    The answer is read from the chapter's runs at every tenant count of the panel (default: 48, with a 48-adapter
    host tier over the 32-adapter GPU pool).

    >>> print(grade_spill_cliff_tenants(80).message)
    ✗ 80 tenants adds the two tiers (32 + 48); the host tier keeps a copy of every adapter it has loaded, the ones on the GPU too, so it alone must hold the working set.
    """
    expected = _cliff(host_adapters, gpu_adapters, under_ms)
    mistakes: list[Mistake] = [
        (
            host_adapters + gpu_adapters,
            f"adds the two tiers ({gpu_adapters} + {host_adapters}); the host tier keeps a copy of every adapter it has "
            "loaded, the ones on the GPU too, so it alone must hold the working set.",
        ),
        (
            gpu_adapters,
            f"is the GPU pool alone: past {gpu_adapters} tenants GPU misses start, but each one is a PCIe "
            f"copy while the host tier still holds the adapter.",
        ),
        (
            _cliff(SPILL.host_adapters, gpu_adapters, under_ms),
            f"is where the chapter's {SPILL.host_adapters}-adapter host tier stops helping; this one holds "
            f"{host_adapters}.",
        ),
    ]
    mistakes = [(v, h) for v, h in mistakes if v != expected]
    return NumberRule(
        expected,
        unit="tenants",
        what=f"the most tenants a host tier of {host_adapters} keeps at one PCIe copy",
        mistakes=mistakes,
        rel_tol=1e-9,
        integer=True,
        fallback=f"Set the panel's host tier to {host_adapters} and move the tenants: the p99 jumps once the "
        "working set outgrows the host tier.",
        singular=True,
    )


grade_host_hit_ms = graded(rule_host_hit_ms)
check_host_hit_ms = _printer(grade_host_hit_ms)
grade_cold_load_ms = graded(rule_cold_load_ms)
check_cold_load_ms = _printer(grade_cold_load_ms)
grade_spill_cliff_tenants = graded(rule_spill_cliff_tenants)
check_spill_cliff_tenants = _printer(grade_spill_cliff_tenants)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "9.1",
        "compute",
        grade_host_hit_ms,
        right=PCIE4_X16.transfer_ms(BIG_ADAPTER.exact_mb),
        wrong=(PCIE4_X16.transfer_ms(BIG_ADAPTER.naive_mb), PCIE4_X16.transfer_ms(BIG_ADAPTER.exact_mb) - 0.1),
        gives_away=(f"{PCIE4_X16.transfer_ms(BIG_ADAPTER.exact_mb):.2f} ms",),
    ),
    Exercise(
        "9.2",
        "compute",
        grade_cold_load_ms,
        right=NVME.transfer_ms(BIG_ADAPTER.exact_mb) + PCIE4_X16.transfer_ms(BIG_ADAPTER.exact_mb),
        wrong=(NVME.transfer_ms(BIG_ADAPTER.exact_mb), PCIE4_X16.transfer_ms(BIG_ADAPTER.exact_mb)),
        gives_away=(f"{NVME.transfer_ms(BIG_ADAPTER.exact_mb) + PCIE4_X16.transfer_ms(BIG_ADAPTER.exact_mb):.1f} ms",),
    ),
    Exercise(
        "9.3",
        "predict",
        grade_spill_cliff_tenants,
        right=48,
        wrong=(CLIFF_HOST_ADAPTERS + SPILL.gpu_adapters, SPILL.gpu_adapters),
        gives_away=(f"48 tenants; GPU pool {SPILL.gpu_adapters}, host tier {CLIFF_HOST_ADAPTERS} adapters",),
        tool="spill_panel",
    ),
)
