"""Describe the traffic and draw it: a :class:`Workload` (Zipf-skewed tenants, Poisson arrivals, late joins) becomes a :class:`Trace`.

Same workload, same seed, same trace: randomness comes only from ``random.Random(workload.seed)``.

>>> trace = make_trace(Workload(tenants=3, requests=5, zipf_s=1.0, seed=1))
>>> len(trace), trace.refs[0], trace.model_refs[0]
(5, 'llama-3-8b:tenant-01', ModelRef(base='llama-3-8b', adapter='tenant-01', version=None))
"""

from __future__ import annotations

import itertools
import math
import operator
import random
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .._validate import count, distinct, fraction, instance, number, one_each, text
from ..adapter import Adapter, tenant_adapters
from ..popularity import zipf_weights
from ..refs import ModelRef

__all__ = ["DEFAULT_BASE", "DEFAULT_BASE_DIGEST", "Join", "Workload", "zipf_weights", "Trace", "make_trace"]

DEFAULT_BASE = "llama-3-8b"
DEFAULT_BASE_DIGEST = "sha256:llama-3-8b-demo"


@dataclass(frozen=True, slots=True)
class Join:
    """Onboard tenant number ``tenant`` (1-based popularity rank) at simulated time ``at_ms``.

    Before ``at_ms`` the tenant sends nothing; from then on it gets its Zipf share.

    >>> Join(at_ms=60_000, tenant=41)
    Join(at_ms=60000.0, tenant=41)
    """

    at_ms: float
    tenant: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "at_ms", number("Join.at_ms", self.at_ms, inclusive=True))
        count("Join.tenant", self.tenant)


@dataclass(frozen=True, slots=True)
class Workload:
    """Describe the traffic of one simulation: who asks, how skewed, how fast, with which seed.

    * ``tenants`` adapters ``tenant-01`` .. ``tenant-NN``; tenant *i* has popularity weight
      ``1 / i**zipf_s`` (``zipf_s=0`` is uniform, ``1`` is classic Zipf, larger is more skewed);
    * ``requests`` arrivals, Poisson at ``rate_per_s`` requests per second of simulated time;
    * ``joins``: tenants that only start sending at some time (``Join(60_000, 41)``);
    * ``adapter_mb`` / ``rank``: every tenant's adapter (16 MiB is the square formula for Llama-3-8B, r=16 on
      q and v; 13.0 MiB exactly under grouped-query attention, chapter 2);
    * ``base_share``: the fraction of requests that name no adapter (served by the bare base).

    >>> Workload(tenants=3, requests=10, zipf_s=-1)
    Traceback (most recent call last):
    ...
    ValueError: zipf_s must be a finite number >= 0, got -1
    """

    tenants: int
    requests: int
    zipf_s: float = 1.0
    rate_per_s: float = 200.0
    seed: int = 0
    adapter_mb: float = 16.0
    rank: int = 16
    joins: tuple[Join, ...] = ()
    base_share: float = 0.0
    base_model: str = DEFAULT_BASE

    def __post_init__(self) -> None:
        count("tenants", self.tenants)
        count("requests", self.requests)
        object.__setattr__(self, "zipf_s", number("zipf_s", self.zipf_s, inclusive=True))
        object.__setattr__(self, "rate_per_s", number("rate_per_s", self.rate_per_s))
        count("seed", self.seed, minimum=None)
        object.__setattr__(self, "adapter_mb", number("adapter_mb", self.adapter_mb))
        count("rank", self.rank)
        joins = tuple(self.joins)
        for join in joins:
            instance("each of joins", join, Join, error=ValueError)
            if join.tenant > self.tenants:
                raise ValueError(f"{join} names tenant #{join.tenant}, but the workload has tenants 1..{self.tenants}")
        distinct("the tenants that join (each joins once)", [j.tenant for j in joins])
        if len(joins) >= self.tenants and not any(j.at_ms == 0 for j in joins):
            raise ValueError("at least one tenant must be active at t=0 (every tenant has a later Join)")
        object.__setattr__(self, "joins", joins)
        object.__setattr__(self, "base_share", fraction("base_share", self.base_share, high_inclusive=False))
        text("base_model", self.base_model, blank_ok=True)

    @property
    def duration_ms(self) -> float:
        """The expected length of the trace: ``requests / rate``."""
        return self.requests / self.rate_per_s * 1000.0

    def adapters(self) -> list[Adapter]:
        """Return the tenants' adapters, most popular first."""
        return tenant_adapters(
            self.tenants,
            vram_mb=self.adapter_mb,
            rank=self.rank,
            base_model=self.base_model,
            base_digest=DEFAULT_BASE_DIGEST,
        )

    def model_refs(self) -> list[ModelRef]:
        """Return the model ref each tenant sends, most popular first, as the router reads it.

        >>> Workload(tenants=2, requests=1).model_refs()[1]
        ModelRef(base='llama-3-8b', adapter='tenant-02', version=None)
        """
        return [ModelRef(self.base_model, a.name) for a in self.adapters()]

    def refs(self) -> list[str]:
        """Return the text of the model ref each tenant sends, most popular first (``"llama-3-8b:tenant-01"``)."""
        return [str(ref) for ref in self.model_refs()]


# --------------------------------------------------------------------------- the trace
@dataclass(frozen=True, slots=True, eq=False)
class Trace:
    """A request trace: arrival times (ms, non-decreasing) and the model ref of each request.

    ``refs`` is each request's model ref as a client writes it; a generated trace also carries the
    same refs parsed, ``model_refs`` (what the simulator routes, so nothing is formatted only to be
    parsed again); a trace built from text (:meth:`from_pairs`) leaves them to the router's parser.
    ``tenant_index`` is each request's tenant (0-based popularity rank, -1 for a base request).
    Two traces are equal when their arrivals and refs are equal.
    """

    arrival_ms: tuple[float, ...]
    refs: tuple[str, ...]
    tenant_index: tuple[int, ...] = ()
    workload: Workload | None = None
    model_refs: tuple[ModelRef, ...] = ()

    def __post_init__(self) -> None:
        one_each("arrival_ms", self.arrival_ms, len(self.refs), "ref")
        one_each("tenant_index", self.tenant_index, len(self.refs), "ref", empty_ok=True)
        one_each("model_refs", self.model_refs, len(self.refs), "ref", empty_ok=True)
        if not all(map(operator.le, self.arrival_ms, self.arrival_ms[1:])):
            raise ValueError("arrival_ms must be non-decreasing")

    def __len__(self) -> int:
        return len(self.refs)

    def __iter__(self) -> Iterator[tuple[float, str]]:
        return zip(self.arrival_ms, self.refs, strict=True)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trace):
            return NotImplemented
        return self.arrival_ms == other.arrival_ms and self.refs == other.refs

    __hash__ = None  # type: ignore[assignment]

    @property
    def duration_ms(self) -> float:
        """The time of the last arrival (0 for an empty trace)."""
        return self.arrival_ms[-1] if self.arrival_ms else 0.0

    @classmethod
    def from_pairs(cls, pairs: Sequence[tuple[float, str]]) -> Trace:
        """Build a trace from ``(arrival_ms, ref)`` pairs (handy in tests).

        >>> len(Trace.from_pairs([(0.0, "llama-3-8b"), (5.0, "llama-3-8b:tenant-01")]))
        2
        """
        return cls(tuple(float(t) for t, _ in pairs), tuple(r for _, r in pairs))


def make_trace(workload: Workload) -> Trace:
    """Generate the seeded trace of ``workload``: Poisson arrivals, Zipf-popular tenants, joins.

    >>> t = make_trace(Workload(tenants=3, requests=5, seed=1))
    >>> [ref.adapter for ref in t.model_refs]
    ['tenant-01', 'tenant-02', 'tenant-02', 'tenant-01', 'tenant-01']
    >>> t == make_trace(Workload(tenants=3, requests=5, seed=1))
    True
    """
    rng = random.Random(workload.seed)
    n = workload.requests
    # Poisson arrivals: exponential gaps -ln(1 - U) / rate, built from C-level maps (fast).
    rand = rng.random
    scale = -1000.0 / workload.rate_per_s
    gaps = map(scale.__mul__, map(math.log, map((1.0).__sub__, [rand() for _ in range(n)])))
    arrivals = list(itertools.accumulate(gaps))
    weights = [1.0 / i**workload.zipf_s for i in range(1, workload.tenants + 1)]
    join_at = {j.tenant - 1: j.at_ms for j in workload.joins}
    # Popularity only changes when someone joins: one inverse-CDF draw per segment between joins.
    cuts = sorted({j.at_ms for j in workload.joins if j.at_ms > 0})
    tenants: list[int] = []
    start = 0
    for boundary in [*cuts, math.inf]:
        end = bisect_left(arrivals, boundary, lo=start)
        if end > start:
            seg_t = arrivals[start]
            cum = list(itertools.accumulate(w if join_at.get(i, 0.0) <= seg_t else 0.0 for i, w in enumerate(weights)))
            total = cum[-1]
            draws = map(total.__mul__, [rand() for _ in range(end - start)])
            tenants.extend(map(bisect_right, itertools.repeat(cum), draws))
        start = end
    parsed = workload.model_refs()
    if workload.base_share > 0:
        share = workload.base_share
        tenants = [-1 if rand() < share else t for t in tenants]
        parsed.append(ModelRef(workload.base_model))  # index -1 is the bare base
    texts = [str(ref) for ref in parsed]
    return Trace(
        arrival_ms=tuple(arrivals),
        refs=tuple(map(texts.__getitem__, tenants)),
        tenant_index=tuple(tenants),
        workload=workload,
        model_refs=tuple(map(parsed.__getitem__, tenants)),
    )
