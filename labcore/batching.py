"""Price a batch honestly: the LoRA overhead grows with the distinct adapters in the batch and their rank.

The core router charges every dynamic request a flat ``dynamic_overhead``, the course's one
:data:`labcore.capacity.DYNAMIC_OVERHEAD` (5%), and every chapter but chapter 12 keeps it. Batched LoRA
kernels do not work like that. Punica's SGMV kernel (Chen et al., *Punica: Multi-Tenant LoRA Serving*,
MLSys 2024; the arXiv preprint, 2310.18547, is from 2023) computes every request's
LoRA add-on grouped by adapter, in two launches: a *shrink* (``x·A``, down to rank r) then an
*expand* (through ``B``); requests that share an adapter share the weight reads, so the kernel's
time depends on how many *distinct* adapters the batch holds and on their rank, not on the batch
size. The model is for decode steps (one new token per request); prefill is not modelled.

**What is measured (cited) and what is assumed.** From Punica, Figure 9 (SGMV latency vs batch
size for LoRA ranks 8, 16, 32, 64 on an A100; figures as reported in the paper and read from it):

* one request costs about 42 µs whatever the rank, and in the "Identical" (one adapter), "Uniform"
  (about √n equal groups) and "Skewed" (Zipf-1.5 group sizes) workloads, which hold few distinct
  adapters, the latency stays at about 42-45 µs up to a batch of 64 (the paper's Figure 8 reads
  about 37 µs for the one-adapter case: its two figures disagree on the baseline);
* when all 64 requests use different adapters ("Distinct") it rises to about 72, 75, 89 and
  118 µs for ranks 8, 16, 32 and 64.

So the shape is: a fixed cost for having any LoRA at all, plus a cost per *extra distinct adapter*
that is linear in rank (each distinct adapter is another A and B to read, r·(h_in + h_out)
numbers). :func:`fit_sgmv` fits ``extra_us(64 distinct) = a + b·r`` to those four points by
least squares and spreads it over the 63 extra adapters. vLLM's LoRA config caps the distinct
adapters in one batch (``max_loras``, "Max number of LoRAs in a single batch"), which
:class:`BatchCostModel` takes as ``max_loras``.

**The one assumption.** The kernel time is microseconds per layer; turning it into a fraction of a
decode step needs the number of LoRA'd projections and the step time of a real deployment, which
Punica's figure does not give. We therefore *assume* that a batch whose requests all use one
adapter costs the course's flat ``single_adapter_overhead`` (5%), and scale the overhead in
proportion to the kernel time: ``overhead(d, r) = 5% × kernel_us(d, r) / kernel_us(1, r)``.
Punica's Figure 11 (end-to-end text generation throughput) is nearly flat across the workloads, so
it cannot calibrate a per-distinct-adapter cost and is not used here.

>>> m = fit_sgmv()
>>> round(m.kernel_us(1, 16), 1), round(m.kernel_us(64, 16), 1), round(m.kernel_us(64, 64), 1)
(42.0, 76.7, 117.3)
>>> round(m.overhead_fraction(1, 16), 4), round(m.overhead_fraction(64, 64), 4)
(0.05, 0.1396)
>>> round(break_even_utilisation(0.05), 4)       # a merged GPU must be 95% busy to beat the flat 5%
0.9524
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ._validate import count, number
from .capacity import DYNAMIC_OVERHEAD
from .popularity import zipf_weights

__all__ = [
    "PUNICA_FIG8_SINGLE_US",
    "PUNICA_FIG9_SINGLE_US",
    "PUNICA_FIG9_DISTINCT_US",
    "PUNICA_FIG9_BATCH",
    "PUNICA_FIG9_FEW_DISTINCT_US",
    "FLAT_OVERHEAD",
    "BatchCostModel",
    "fit_sgmv",
    "expected_distinct",
    "MergeChoice",
    "merged_vs_dynamic",
    "break_even_utilisation",
    "BreakEvenPoint",
    "break_even_curve",
    "traffic_overhead",
    "BreakEvenView",
    "break_even_view",
]

#: Punica (Chen et al., MLSys 2024), Fig. 9: SGMV latency for one request, about the same for r = 8..64 (µs).
PUNICA_FIG9_SINGLE_US = 42.0
#: Punica, Fig. 8: the same one-adapter case reads about 37 µs there; the paper's two figures disagree.
PUNICA_FIG8_SINGLE_US = 37.0
#: Punica, Fig. 9, "Distinct" workload at batch size 64 (every request a different adapter), µs by rank.
PUNICA_FIG9_DISTINCT_US: Mapping[int, float] = {8: 72.0, 16: 75.0, 32: 89.0, 64: 118.0}
#: The batch size (= distinct adapters) of those "Distinct" points.
PUNICA_FIG9_BATCH = 64
#: Punica, Fig. 9, the "Identical", "Uniform" and "Skewed" workloads (few distinct adapters): the time stays in this
#: range (µs) up to a batch of 64.
PUNICA_FIG9_FEW_DISTINCT_US: tuple[float, float] = (42.0, 45.0)
#: The course's flat dynamic overhead (:data:`labcore.capacity.DYNAMIC_OVERHEAD`, used by every other chapter),
#: kept here as the assumed cost of a one-adapter batch.
FLAT_OVERHEAD = DYNAMIC_OVERHEAD


@dataclass(frozen=True, slots=True)
class BatchCostModel:
    """Cost one decode batch's LoRA work from its distinct adapters and their rank.

    ``kernel_us(d, r) = single_us + (d - 1) × (extra_us_intercept + extra_us_per_rank × r) / (reference_batch - 1)``
    and ``overhead_fraction(d, r) = single_adapter_overhead × kernel_us(d, r) / single_us``.
    Beyond ``reference_batch`` distinct adapters the line is extrapolated. ``max_loras`` (vLLM's
    cap on adapters per batch) makes larger ``d`` an error instead.
    """

    single_us: float = PUNICA_FIG9_SINGLE_US
    extra_us_intercept: float = 0.0
    extra_us_per_rank: float = 0.0
    reference_batch: int = PUNICA_FIG9_BATCH
    single_adapter_overhead: float = FLAT_OVERHEAD
    max_loras: int | None = None

    def __post_init__(self) -> None:
        number("single_us", self.single_us, minimum=1e-9, inclusive=True)
        number("extra_us_per_rank", self.extra_us_per_rank, inclusive=True)
        number("extra_us_intercept", self.extra_us_intercept, minimum=None)
        count("reference_batch", self.reference_batch, minimum=2)
        number("single_adapter_overhead", self.single_adapter_overhead, inclusive=True)
        if self.max_loras is not None:
            count("max_loras", self.max_loras)

    def extra_us_per_adapter(self, rank: float) -> float:
        """Return the kernel time one more distinct adapter of ``rank`` adds to a batch (µs)."""
        number("rank", rank, minimum=1, inclusive=True)
        return max(0.0, (self.extra_us_intercept + self.extra_us_per_rank * rank) / (self.reference_batch - 1))

    def kernel_us(self, distinct: int, rank: float) -> float:
        """Return the LoRA kernel time of a batch with ``distinct`` adapters of (mean) ``rank`` (µs)."""
        count("distinct adapters", distinct)
        if self.max_loras is not None and distinct > self.max_loras:
            raise ValueError(
                f"a batch cannot hold {distinct} distinct adapters: max_loras is {self.max_loras} "
                "(the rest wait for a later batch)"
            )
        return self.single_us + (distinct - 1) * self.extra_us_per_adapter(rank)

    def overhead_fraction(self, distinct: int, rank: float) -> float:
        """Return the batch's LoRA overhead as a fraction of the base model's step time."""
        return self.single_adapter_overhead * self.kernel_us(distinct, rank) / self.single_us

    def batch_latency_ms(self, base_latency_ms: float, distinct: int, rank: float) -> float:
        """Return a request's latency in a batch: ``base_latency_ms × (1 + overhead_fraction)``."""
        return number("base_latency_ms", base_latency_ms, inclusive=True) * (
            1.0 + self.overhead_fraction(distinct, rank)
        )

    def batch_overhead(self, ranks_by_adapter: Mapping[str, int]) -> float:
        """Return the overhead of a batch given ``{adapter key: rank}`` of the adapters it holds.

        >>> round(fit_sgmv().batch_overhead({"a@1.0.0": 16, "b@1.0.0": 64}), 4)
        0.051
        """
        if not ranks_by_adapter:
            return 0.0  # a base-only batch runs no LoRA kernel
        ranks = list(ranks_by_adapter.values())
        return self.overhead_fraction(len(ranks), sum(ranks) / len(ranks))


def fit_sgmv(
    points: Mapping[int, float] = PUNICA_FIG9_DISTINCT_US,
    *,
    single_us: float = PUNICA_FIG9_SINGLE_US,
    reference_batch: int = PUNICA_FIG9_BATCH,
    single_adapter_overhead: float = FLAT_OVERHEAD,
    max_loras: int | None = None,
) -> BatchCostModel:
    """Fit the per-distinct-adapter cost line ``a + b·rank`` to ``{rank: µs at reference_batch distinct}``.

    Least squares on ``points[r] - single_us``; the defaults are Punica's Figure 9 readings.

    >>> m = fit_sgmv()
    >>> round(m.extra_us_intercept, 2), round(m.extra_us_per_rank, 3)
    (21.13, 0.846)
    """
    if len(points) < 2:
        raise ValueError(f"need at least two (rank, µs) points to fit a line, got {dict(points)!r}")
    xs = [float(count("rank", r)) for r in points]
    ys = [number(f"µs at rank {r}", v, inclusive=True) - single_us for r, v in points.items()]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        raise ValueError(f"the points need at least two distinct ranks, got {sorted(points)}")
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    return BatchCostModel(
        single_us=single_us,
        extra_us_intercept=my - slope * mx,
        extra_us_per_rank=slope,
        reference_batch=reference_batch,
        single_adapter_overhead=single_adapter_overhead,
        max_loras=max_loras,
    )


def expected_distinct(batch_size: int, popularity: Sequence[float]) -> float:
    """Return the expected number of distinct adapters in a batch of independent requests.

    ``popularity`` holds each adapter's share of the traffic; an adapter is absent from a batch of
    B requests with probability ``(1 - p)^B``, so E[distinct] = Σ (1 - (1 - p_i)^B).

    >>> expected_distinct(1, [0.5, 0.5]), expected_distinct(2, [0.5, 0.5])
    (1.0, 1.5)
    """
    count("batch_size", batch_size)
    if not popularity:
        raise ValueError("popularity needs at least one adapter share")
    total = math.fsum(number("each popularity share", p, minimum=0, inclusive=True) for p in popularity)
    if not total > 0:
        raise ValueError(f"popularity shares need a positive sum, got {list(popularity)[:5]!r}...")
    return math.fsum(1.0 - (1.0 - p / total) ** batch_size for p in popularity)


def traffic_overhead(
    model: BatchCostModel, *, tenants: int, zipf_s: float, batch_size: int, rank: int
) -> tuple[float, float]:
    """Return ``(expected distinct adapters, overhead fraction)`` for a Zipf(``zipf_s``) tenant mix.

    The overhead is interpolated at the (fractional) expected number of distinct adapters.

    >>> d, o = traffic_overhead(fit_sgmv(), tenants=40, zipf_s=1.0, batch_size=32, rank=16)
    >>> round(d, 1), round(o, 4)
    (16.1, 0.0599)
    """
    distinct = expected_distinct(batch_size, zipf_weights(count("tenants", tenants), zipf_s))
    low = max(1, math.floor(distinct))
    frac = distinct - low
    o_low = model.overhead_fraction(low, rank)
    o_high = model.overhead_fraction(low + 1, rank) if frac > 0 else o_low
    return distinct, o_low + frac * (o_high - o_low)


@dataclass(frozen=True, slots=True)
class MergeChoice:
    """One tenant: a dedicated merged replica (whole GPUs, no overhead) or a share of a dynamic fleet.

    ``dynamic_gpus`` is the tenant's fractional share of shared GPUs, ``tenant_qps × (1 + overhead) /
    gpu_qps``; ``merged_gpus`` is ``ceil(tenant_qps / gpu_qps)``. Merged wins when it needs no more GPUs.
    """

    tenant_qps: float
    gpu_qps: float
    overhead: float
    merged_gpus: int
    dynamic_gpus: float

    @property
    def winner(self) -> str:
        """``"merged"`` if a dedicated replica costs no more GPU time than the dynamic share, else ``"dynamic"``."""
        return "merged" if self.merged_gpus <= self.dynamic_gpus + 1e-12 else "dynamic"

    @property
    def utilisation(self) -> float:
        """How busy the dedicated replica(s) would be: ``tenant_qps / (merged_gpus × gpu_qps)``."""
        return self.tenant_qps / (self.merged_gpus * self.gpu_qps)


def merged_vs_dynamic(tenant_qps: float, *, gpu_qps: float, overhead: float) -> MergeChoice:
    """Compare a dedicated merged replica with serving a tenant dynamically at ``overhead``.

    >>> merged_vs_dynamic(19.5, gpu_qps=20, overhead=0.05).winner
    'merged'
    >>> merged_vs_dynamic(15.0, gpu_qps=20, overhead=0.05).winner
    'dynamic'
    """
    q = number("tenant_qps", tenant_qps, minimum=1e-12, inclusive=True)
    c = number("gpu_qps", gpu_qps, minimum=1e-12, inclusive=True)
    o = number("overhead", overhead, inclusive=True)
    merged = max(1, math.ceil(q / c - 1e-12))
    return MergeChoice(tenant_qps=q, gpu_qps=c, overhead=o, merged_gpus=merged, dynamic_gpus=q * (1 + o) / c)


def break_even_utilisation(overhead: float) -> float:
    """Return how busy a dedicated merged GPU must be to cost no more than dynamic serving: ``1/(1+o)``.

    >>> round(break_even_utilisation(0.14), 3)
    0.877
    """
    return 1.0 / (1.0 + number("overhead", overhead, inclusive=True))


@dataclass(frozen=True, slots=True)
class BreakEvenPoint:
    """The merged-vs-dynamic break-even for one batch composition."""

    distinct: int
    rank: int
    overhead: float
    break_even_utilisation: float
    flat_break_even_utilisation: float

    @property
    def shift_points(self) -> float:
        """How far the break-even moved from the flat-overhead one, in utilisation percentage points."""
        return 100.0 * (self.flat_break_even_utilisation - self.break_even_utilisation)


def break_even_curve(
    model: BatchCostModel,
    *,
    rank: int,
    distinct: Sequence[int] = (1, 2, 4, 8, 16, 32, 64),
    flat_overhead: float = FLAT_OVERHEAD,
) -> list[BreakEvenPoint]:
    """Return the break-even utilisation for each number of distinct adapters per batch at ``rank``.

    >>> [round(p.break_even_utilisation, 3) for p in break_even_curve(fit_sgmv(), rank=64, distinct=(1, 64))]
    [0.952, 0.878]
    """
    flat = break_even_utilisation(flat_overhead)
    out = []
    for d in distinct:
        o = model.overhead_fraction(d, rank)
        out.append(
            BreakEvenPoint(
                distinct=d,
                rank=rank,
                overhead=o,
                break_even_utilisation=break_even_utilisation(o),
                flat_break_even_utilisation=flat,
            )
        )
    return out


@dataclass(frozen=True, slots=True)
class BreakEvenView:
    """One batch composition and its break-even: what chapter 12's panels show for one slider state."""

    distinct: int
    rank: int
    overhead: float
    break_even_utilisation: float
    flat_break_even_utilisation: float


def break_even_view(distinct: int = 32, rank: int = 16) -> BreakEvenView:
    """Return the honest overhead and the merged-vs-dynamic break-even for one batch composition.

    >>> v = break_even_view(1, 16)
    >>> v.overhead == FLAT_OVERHEAD, v.break_even_utilisation == v.flat_break_even_utilisation
    (True, True)
    """
    overhead = fit_sgmv().overhead_fraction(int(distinct), int(rank))
    return BreakEvenView(
        distinct=int(distinct),
        rank=int(rank),
        overhead=overhead,
        break_even_utilisation=break_even_utilisation(overhead),
        flat_break_even_utilisation=break_even_utilisation(FLAT_OVERHEAD),
    )
