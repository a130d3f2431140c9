"""Chapter 15's slot cliff: the seeded run behind "more adapters than slots", and the fixes the chapter tries.

:data:`SLOT_CLIFF` is the setup (16 equally busy adapters, 8 slots, the request rate of SGLang PR
#13349, quoted in :data:`SGLANG_PR_13349`); :func:`slot_run` replays its trace through
:class:`labcore.slots.SlotScheduler` replicas with one of :data:`FIXES` applied.

>>> SLOT_CLIFF.max_slots, SGLANG_PR_13349.slots
(8, 8)
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..._validate import choice, count, flag, fraction, number
from ...affinity import rendezvous_owner, replica_names
from ...links import LAB_HOST_TO_GPU
from ...percentiles import percentiles
from ...refs import AdapterKey
from ...slots import SlotKey, SlotRequest, SlotScheduler, max_pinned, requests_from
from ..workload import Workload, make_trace

__all__ = [
    "FIX_NONE",
    "FIX_PIN",
    "FIX_MORE_SLOTS",
    "FIX_ROUND_ROBIN",
    "FIX_AFFINITY",
    "FIXES",
    "ReportedCliff",
    "SGLANG_PR_13349",
    "SlotScenario",
    "SLOT_CLIFF",
    "SlotRun",
    "slot_run",
    "slot_sweep",
    "slot_fixes",
]

FIX_NONE = "none"
#: Pin the hottest adapters into half of the slots (SGLang's pinned adapters).
FIX_PIN = "pin the hottest"
#: As many slots as active adapters (vLLM ``--max-loras`` / SGLang ``--max-loras-per-batch`` raised).
FIX_MORE_SLOTS = "a slot per adapter"
#: Two replicas, requests dealt out in turn: twice the slots, but each replica sees every adapter.
FIX_ROUND_ROBIN = "2 replicas, round-robin"
#: Two replicas, each adapter's requests sent to its rendezvous owner (labcore.affinity).
FIX_AFFINITY = "2 replicas, affinity"
FIXES: tuple[str, ...] = (FIX_NONE, FIX_PIN, FIX_MORE_SLOTS, FIX_ROUND_ROBIN, FIX_AFFINITY)


@dataclass(frozen=True, slots=True)
class ReportedCliff:
    """A time-to-first-token cliff an engine's developers measured, as they reported it (quoted, not reproduced).

    >>> round(SGLANG_PR_13349.median_ratio)
    158
    """

    engine: str
    source: str
    slots: int
    in_cache_adapters: int
    in_cache_median_ttft_ms: float
    eviction_adapters: int
    eviction_median_ttft_ms: float
    claim: str
    model: str
    hardware: str
    requests: int
    rate_per_s: float
    input_tokens: int
    output_tokens: int

    @property
    def median_ratio(self) -> float:
        """The eviction median over the in-cache median."""
        return self.eviction_median_ttft_ms / self.in_cache_median_ttft_ms


#: SGLang PR #13349 ("LoRA adapter switching profile", sgl-project/sglang, opened 2025-11-15, closed), as read with
#: the course's search tool: its Motivation section and its Test Setup.
SGLANG_PR_13349 = ReportedCliff(
    engine="SGLang",
    source='sgl-project/sglang pull request #13349, "LoRA adapter switching profile" (closed), Motivation and Test Setup',
    slots=8,
    in_cache_adapters=8,
    in_cache_median_ttft_ms=39.65,
    eviction_adapters=16,
    eviction_median_ttft_ms=6278.0,
    claim="This represents a 156x throughput drop in production-like conditions.",
    model="Llama 3.1 8B",
    hardware="2x H100 (TP=2)",
    requests=100,
    rate_per_s=4.0,
    input_tokens=4096,
    output_tokens=2048,
)


@dataclass(frozen=True, slots=True)
class SlotScenario:
    """Chapter 15's setup: ``active_adapters`` adapters sharing ``max_slots`` slots under a seeded trace.

    Arrivals and popularity come from :func:`labcore.sim.workload.make_trace` (Poisson at
    ``rate_per_s``, Zipf ``zipf_s``, 0 = every adapter equally busy). ``prefill_ms`` is the time to
    the first token of a request whose adapter is in a slot, ``decode_ms_per_token`` each later
    token, ``load_ms`` the copy of an adapter into a slot (16 MiB over the lab's host-to-GPU link of
    :mod:`labcore.links`, the host tier assumed warm). The fleet fixes use
    ``replicas`` replicas.

    >>> SLOT_CLIFF.active_adapters, SLOT_CLIFF.max_slots, SLOT_CLIFF.rate_per_s
    (16, 8, 4.0)
    """

    active_adapters: int = 16
    max_slots: int = 8
    requests: int = 400
    rate_per_s: float = 4.0
    zipf_s: float = 0.0
    output_tokens: int = 256
    prefill_ms: float = 40.0
    decode_ms_per_token: float = 20.0
    load_ms: float = LAB_HOST_TO_GPU.transfer_ms(16.0)
    max_batch: int = 256
    replicas: int = 2
    seed: int = 13349
    #: the share of requests sent to the bare base model (no adapter), drawn with the scenario's seed
    base_share: float = 0.0
    #: SGLang's rule (a base request takes a slot too) instead of vLLM's (it needs none)
    base_takes_slot: bool = False

    def __post_init__(self) -> None:
        count("active_adapters", self.active_adapters)
        count("max_slots", self.max_slots)
        count("requests", self.requests)
        number("rate_per_s", self.rate_per_s)
        number("zipf_s", self.zipf_s, inclusive=True)
        count("output_tokens", self.output_tokens)
        number("prefill_ms", self.prefill_ms, inclusive=True)
        number("decode_ms_per_token", self.decode_ms_per_token, inclusive=True)
        number("load_ms", self.load_ms, inclusive=True)
        count("max_batch", self.max_batch)
        count("replicas", self.replicas)
        count("seed", self.seed, minimum=0)
        fraction("base_share", self.base_share)
        flag("base_takes_slot", self.base_takes_slot)

    @property
    def request_ms(self) -> float:
        """How long one request holds its slot once its adapter is in: prefill plus the decode steps."""
        return self.prefill_ms + (self.output_tokens - 1) * self.decode_ms_per_token

    def workload(self) -> Workload:
        """The :class:`labcore.sim.workload.Workload` whose seeded trace drives the run."""
        return Workload(
            tenants=self.active_adapters,
            requests=self.requests,
            zipf_s=self.zipf_s,
            rate_per_s=self.rate_per_s,
            seed=self.seed,
        )


#: The chapter 15 story: 16 equally busy adapters, 8 slots, 4 requests/s (the request rate of SGLang PR #13349).
SLOT_CLIFF = SlotScenario()


@dataclass(frozen=True, slots=True)
class SlotRun:
    """The time to first token of every request of one run, and what the slots did.

    ``waited`` counts requests skipped at least once for want of a slot; ``peak_distinct`` is the
    most distinct adapters any replica's batch held (never more than ``max_slots``);
    ``adapters_per_replica`` how many distinct adapters each replica served. ``pinned_p99_ms`` and
    ``others_p99_ms`` split the tail between the pinned adapters' requests and the rest (``None``
    when nothing is pinned). ``ttft_ms`` is in request order.
    """

    fix: str
    max_slots: int
    active_adapters: int
    replicas: int
    requests: int
    p50_ms: float
    p95_ms: float
    p99_ms: float
    max_ms: float
    waited: int
    loads: int
    evictions: int
    peak_distinct: int
    adapters_per_replica: tuple[int, ...]
    pinned: tuple[SlotKey, ...]
    pinned_p99_ms: float | None
    others_p99_ms: float | None
    ttft_ms: tuple[float, ...]

    def __post_init__(self) -> None:
        choice("fix", self.fix, FIXES)
        if self.peak_distinct > self.max_slots:
            raise ValueError(f"a batch held {self.peak_distinct} distinct adapters with only {self.max_slots} slots")
        if len(self.ttft_ms) != self.requests:
            raise ValueError(f"{len(self.ttft_ms)} latencies for {self.requests} requests")

    @property
    def waited_share(self) -> float:
        """The fraction of requests that waited for a slot."""
        return self.waited / self.requests


@functools.lru_cache(maxsize=8)
def _requests(
    workload: Workload, output_tokens: int, base_share: float = 0.0
) -> tuple[tuple[SlotRequest, ...], tuple[AdapterKey, ...]]:
    """The trace of ``workload`` as slot requests, and the adapter keys by popularity (kept for a few workloads).

    A seeded ``base_share`` of the requests names no adapter (the bare base model).
    """
    trace = make_trace(workload)
    keys = tuple(a.key for a in workload.adapters())
    draw = random.Random(workload.seed + 1)
    adapters: list[AdapterKey | None] = [None if draw.random() < base_share else keys[i] for i in trace.tenant_index]
    return tuple(requests_from(trace.arrival_ms, adapters, output_tokens=output_tokens)), keys


def slot_run(
    scenario: SlotScenario = SLOT_CLIFF,
    *,
    fix: str = FIX_NONE,
    max_slots: int | None = None,
    active_adapters: int | None = None,
) -> SlotRun:
    """Replay ``scenario``'s trace through slot schedulers, with one ``fix`` applied; return the :class:`SlotRun`.

    ``max_slots`` / ``active_adapters`` override the scenario's. Fixes: :data:`FIX_NONE` (one
    replica), :data:`FIX_PIN` (the ``max_slots // 2`` most popular adapters pinned),
    :data:`FIX_MORE_SLOTS` (a slot for every adapter), :data:`FIX_ROUND_ROBIN` and
    :data:`FIX_AFFINITY` (``scenario.replicas`` replicas with the same slots each, requests dealt in
    turn or sent to the adapter name's rendezvous owner).

    >>> before, after = slot_run(active_adapters=8), slot_run(active_adapters=16)
    >>> before.p99_ms < 100 < after.p99_ms, before.waited, after.waited > 0
    (True, 0, True)
    """
    choice("fix", fix, FIXES)
    s = scenario
    if max_slots is not None:
        s = replace(s, max_slots=max_slots)
    if active_adapters is not None:
        s = replace(s, active_adapters=active_adapters)
    requests, keys = _requests(s.workload(), s.output_tokens, s.base_share)
    slots = max(s.max_slots, s.active_adapters) if fix == FIX_MORE_SLOTS else s.max_slots
    pinned = keys[: max_pinned(slots) and min(slots // 2, len(keys))] if fix == FIX_PIN else ()
    replicas = s.replicas if fix in (FIX_ROUND_ROBIN, FIX_AFFINITY) else 1
    names = replica_names(replicas)
    groups: list[list[SlotRequest]] = [[] for _ in names]
    for request in requests:
        if fix == FIX_AFFINITY and request.adapter is not None:
            owner = rendezvous_owner(request.adapter.name, names)  # type: ignore[union-attr]
            groups[names.index(owner)].append(request)
        else:
            groups[request.id % replicas].append(request)
    ttft = [0.0] * len(requests)
    waited = loads = evictions = peak = 0
    for group in groups:
        scheduler = SlotScheduler(
            max_slots=slots,
            max_batch=s.max_batch,
            prefill_ms=s.prefill_ms,
            decode_ms_per_token=s.decode_ms_per_token,
            load_ms=s.load_ms,
            pinned=pinned,
            base_takes_slot=s.base_takes_slot,
        )
        for request in group:
            scheduler.submit(request)
        for outcome in scheduler.run():
            ttft[outcome.request.id] = outcome.ttft_ms
            waited += outcome.waited_for_slot
        loads, evictions = loads + scheduler.loads, evictions + scheduler.evictions
        peak = max(peak, scheduler.peak_distinct)
    p50, p95, p99 = percentiles(ttft, (50, 95, 99))
    pinned_set = set(pinned)
    hot = [t for r, t in zip(requests, ttft, strict=True) if r.adapter in pinned_set]
    rest = [t for r, t in zip(requests, ttft, strict=True) if r.adapter not in pinned_set]
    return SlotRun(
        fix=fix,
        max_slots=slots,
        active_adapters=s.active_adapters,
        replicas=replicas,
        requests=len(requests),
        p50_ms=p50,
        p95_ms=p95,
        p99_ms=p99,
        max_ms=max(ttft),
        waited=waited,
        loads=loads,
        evictions=evictions,
        peak_distinct=peak,
        adapters_per_replica=tuple(len({r.adapter for r in g}) for g in groups),
        pinned=tuple(pinned),
        pinned_p99_ms=percentiles(hot, (99,))[0] if hot else None,
        others_p99_ms=percentiles(rest, (99,))[0] if (pinned and rest) else None,
        ttft_ms=tuple(ttft),
    )


def slot_sweep(
    active_adapters: Sequence[int],
    *,
    scenario: SlotScenario = SLOT_CLIFF,
    fix: str = FIX_NONE,
    max_slots: int | None = None,
) -> list[SlotRun]:
    """Run ``scenario`` once per number of active adapters: the data of the TTFT-against-adapters curve.

    >>> [r.waited for r in slot_sweep([4, 8])]
    [0, 0]
    """
    return [slot_run(scenario, fix=fix, max_slots=max_slots, active_adapters=n) for n in active_adapters]


def slot_fixes(scenario: SlotScenario = SLOT_CLIFF) -> dict[str, SlotRun]:
    """Run ``scenario`` under every fix: ``{fix: SlotRun}`` in :data:`FIXES` order.

    >>> runs = slot_fixes()
    >>> runs[FIX_AFFINITY].p99_ms < runs[FIX_ROUND_ROBIN].p99_ms < runs[FIX_NONE].p99_ms
    True
    """
    return {fix: slot_run(scenario, fix=fix) for fix in FIXES}
