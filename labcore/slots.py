"""Batch slots: a running batch holds at most ``max_slots`` distinct adapters; the others wait for one.

Serving engines size their LoRA buffers at start-up: vLLM preallocates ``--max-loras`` slots in
every LoRA layer and its scheduler skips a waiting request whose adapter would push the running
batch past that many distinct adapters; SGLang's ``--max-loras-per-batch`` (default 8) bounds the
adapters in its GPU memory pool the same way. So the working set that matters for latency is not
the adapters that fit in VRAM but the adapters *in the batch at once*. When more adapters are
active than there are slots, a request whose adapter holds no slot waits until every running
request of some other adapter has finished, and that can take a whole generation.

:class:`SlotScheduler` is that rule and nothing else: requests arrive, the scheduler admits them
in arrival order (skipping, as vLLM does, a request whose adapter cannot get a slot yet and
admitting later ones that can), loading an adapter into a free slot costs ``load_ms``, a request
then produces its first token ``prefill_ms`` later and runs ``output_tokens - 1`` decode steps of
``decode_ms_per_token``. Pinned adapters (SGLang's ``pinned``) hold a slot for good; at most
``max_slots - 1`` may be pinned, as SGLang allows.

>>> s = SlotScheduler(max_slots=1, prefill_ms=40.0, decode_ms_per_token=20.0, load_ms=2.0)
>>> s.submit(SlotRequest(0, 0.0, "a@1.0.0", output_tokens=3))    # a: 2 + 40 + 2 x 20 ms
>>> s.submit(SlotRequest(1, 1.0, "b@1.0.0", output_tokens=3))    # b waits for a's slot
>>> [(o.request.adapter, o.ttft_ms, o.waited_for_slot) for o in s.run()]
[('a@1.0.0', 42.0, False), ('b@1.0.0', 123.0, True)]

What the model leaves out is listed in :data:`LEFT_OUT`; chapter 15 prints it.
"""

from __future__ import annotations

import functools
import heapq
import itertools
from collections import OrderedDict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from .affinity import rendezvous_owner, replica_names
from .links import LAB_HOST_TO_GPU
from .sim.replay import percentiles
from .sim.workload import Workload, make_trace
from .sizing import adapter_vram_mb
from ._validate import count, instance, number, text

__all__ = [
    "LEFT_OUT",
    "SlotRequest",
    "SlotOutcome",
    "SlotScheduler",
    "max_pinned",
    "requests_from",
    "slot_pool_mb",
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

#: What :class:`SlotScheduler` does not model (chapter 15 says so next to every number it quotes).
LEFT_OUT: tuple[str, ...] = (
    "a decode step costs the same whatever the batch holds: no slowdown from batch size or from the "
    "number of distinct adapters (chapter 12's BatchCostModel prices that part)",
    "no KV-cache memory limit and no preemption: only max_batch bounds the running requests",
    "no chunked prefill and no prefill/decode interference: the first token comes prefill_ms after a "
    "request enters the batch",
    "scheduling happens at every event (an arrival, a load finishing, a request finishing), not on a "
    "fixed decode-step grid, so the wait for the next iteration is left out",
    "every request of a run generates the same number of tokens",
    "an adapter not in a slot is copied from host memory in load_ms: the host tier is assumed warm "
    "(no disk or network fetch)",
)


def max_pinned(max_slots: int) -> int:
    """Return how many adapters may be pinned with ``max_slots`` slots: all but one (SGLang's rule).

    >>> max_pinned(8)
    7
    """
    return count("max_slots", max_slots) - 1


@dataclass(frozen=True, slots=True)
class SlotRequest:
    """One request: an id, when it arrives, the adapter key it needs (``None``: the bare base) and its length.

    >>> SlotRequest(0, 5.0, "support-bot@1.0.0", output_tokens=0)
    Traceback (most recent call last):
    ...
    ValueError: output_tokens must be a positive int, got 0
    """

    id: int
    arrival_ms: float
    adapter: str | None
    output_tokens: int = 256

    def __post_init__(self) -> None:
        count("request id", self.id, minimum=0)
        object.__setattr__(self, "arrival_ms", number("arrival_ms", self.arrival_ms, inclusive=True))
        if self.adapter is not None:
            text("adapter", self.adapter)
        count("output_tokens", self.output_tokens)


@dataclass(frozen=True, slots=True)
class SlotOutcome:
    """What happened to one request: when it entered the batch, its first and last token, and why it waited.

    ``start_ms`` is when it was admitted to the batch; if its adapter had to be copied into a slot
    (``loaded``), its first token comes ``load_ms + prefill_ms`` after that, else ``prefill_ms``.
    ``waited_for_slot`` is True when at least one scheduling pass skipped it because no slot was free.
    """

    request: SlotRequest
    start_ms: float
    first_token_ms: float
    finish_ms: float
    waited_for_slot: bool
    loaded: bool

    @property
    def ttft_ms(self) -> float:
        """Time to first token: from arrival to the first generated token."""
        return self.first_token_ms - self.request.arrival_ms

    @property
    def wait_ms(self) -> float:
        """Time from arrival to admission into the batch."""
        return self.start_ms - self.request.arrival_ms


_ARRIVE, _LOADED, _FINISH = 0, 1, 2  # event kinds, in the order they are handled at one instant


class SlotScheduler:
    """Admit requests into a running batch that holds at most ``max_slots`` distinct adapters.

    * ``max_batch`` bounds the requests running at once (vLLM's ``--max-num-seqs``);
    * a request whose adapter is in a slot (resident) joins the batch at once if there is room;
    * otherwise it needs a slot: one is free while the pinned adapters plus the adapters of running
      (or loading) requests number fewer than ``max_slots``; the least recently used idle resident is
      then evicted (slots are a fixed set: never more than ``max_slots`` adapters are resident) and the
      adapter is copied in, which takes ``load_ms``; with no free slot the request waits;
    * waiting requests are admitted in arrival order, a blocked adapter's requests skipped, as vLLM's
      scheduler skips a request that would exceed ``max_loras``;
    * ``pinned`` adapters are resident from the start and never evicted (at most ``max_slots - 1``).

    Time is simulated: :meth:`submit` requests, then :meth:`step` through events or :meth:`run` them all.
    """

    def __init__(
        self,
        *,
        max_slots: int,
        max_batch: int = 256,
        prefill_ms: float = 40.0,
        decode_ms_per_token: float = 20.0,
        load_ms: float = 2.0,
        pinned: Iterable[str] = (),
    ) -> None:
        self.max_slots = count("max_slots", max_slots)
        self.max_batch = count("max_batch", max_batch)
        self.prefill_ms = number("prefill_ms", prefill_ms, inclusive=True)
        self.decode_ms_per_token = number("decode_ms_per_token", decode_ms_per_token, inclusive=True)
        self.load_ms = number("load_ms", load_ms, inclusive=True)
        pins = tuple(text("each pinned adapter", p) for p in instance("pinned", tuple(pinned), tuple))
        if len(set(pins)) != len(pins):
            raise ValueError(f"pinned adapters must be distinct, got {list(pins)}")
        if len(pins) > max_pinned(self.max_slots):
            raise ValueError(
                f"at most max_slots - 1 = {max_pinned(self.max_slots)} adapters may be pinned "
                f"(one slot stays free for the others), got {len(pins)}: {list(pins)}"
            )
        self.pinned: frozenset[str] = frozenset(pins)
        self.now_ms = 0.0
        #: Resident adapters, least recently used first (pinned ones included; never more than max_slots).
        self._resident: OrderedDict[str, None] = OrderedDict((p, None) for p in pins)
        self._running: dict[str, int] = {}              # adapter -> running requests (loading ones included)
        self._loading: dict[str, list[SlotRequest]] = {}  # adapter -> requests waiting for its copy
        # adapter -> waiting (per-adapter arrival number, request), in arrival order
        self._waiting: dict[str | None, deque[tuple[int, SlotRequest]]] = {}
        self._arrived: dict[str | None, int] = {}
        self._blocked_upto: dict[str | None, int] = {}  # adapter -> last arrival number skipped for want of a slot
        self._skipped: set[int] = set()
        self._admitted: dict[int, float] = {}
        self._started: dict[int, tuple[float, bool]] = {}
        self._events: list[tuple[float, int, int, object]] = []
        self._seq = itertools.count()
        self._batch = 0
        self._dirty = False
        self.outcomes: list[SlotOutcome] = []
        self.loads = 0
        self.evictions = 0
        #: The largest number of distinct adapters the batch ever held (the tests check it never passes max_slots).
        self.peak_distinct = 0

    # -- input ------------------------------------------------------------------------------
    def submit(self, request: SlotRequest) -> None:
        """Schedule ``request``'s arrival (at its ``arrival_ms``, which must not be in the simulated past)."""
        instance("request", request, SlotRequest, error=ValueError)
        if request.arrival_ms < self.now_ms:
            raise ValueError(f"request {request.id} arrives at {request.arrival_ms:g} ms, before the "
                             f"scheduler's clock ({self.now_ms:g} ms): submit requests in time order")
        self._push(request.arrival_ms, _ARRIVE, request)

    def _push(self, at_ms: float, kind: int, payload: object) -> None:
        heapq.heappush(self._events, (at_ms, kind, next(self._seq), payload))

    # -- the clock ---------------------------------------------------------------------------
    def step(self) -> float | None:
        """Handle every event at the next instant (arrivals, finished copies, finished requests), then admit.

        Returns the simulated time handled, or ``None`` when nothing is left to do.
        """
        if not self._events:
            return None
        now = self._events[0][0]
        self.now_ms = now
        while self._events and self._events[0][0] == now:
            _, kind, _, payload = heapq.heappop(self._events)
            if kind == _ARRIVE:
                request: SlotRequest = payload  # type: ignore[assignment]
                arrived = self._arrived[request.adapter] = self._arrived.get(request.adapter, -1) + 1
                self._waiting.setdefault(request.adapter, deque()).append((arrived, request))
                self._dirty = True
            elif kind == _LOADED:
                adapter: str = payload  # type: ignore[assignment]
                for request in self._loading.pop(adapter):
                    self._begin(request, ready_ms=now, loaded=True)
            else:
                self._finish(payload)  # type: ignore[arg-type]
        if self._dirty:  # something arrived, or a slot or batch room came free
            self._dirty = False
            self._admit()
        return now

    def run(self) -> list[SlotOutcome]:
        """Step until every submitted request has finished; return the outcomes in finishing order."""
        while self.step() is not None:
            pass
        return list(self.outcomes)

    # -- admission ---------------------------------------------------------------------------
    def _admit(self) -> None:
        """Admit waiting requests in arrival order; grant free slots to blocked adapters, oldest first."""
        if not self._waiting:
            return
        free = self.max_slots - len(self.pinned | self._running.keys())
        heads = sorted((q[0][1].arrival_ms, q[0][1].id, a) for a, q in self._waiting.items())
        admissible: list[str | None] = []
        for _, _, adapter in heads:
            if adapter is None or adapter in self._running or adapter in self.pinned:
                admissible.append(adapter)
            elif free > 0:  # an idle resident or a new adapter: either way it takes a slot
                admissible.append(adapter)
                free -= 1
            else:  # every request now waiting for this adapter was skipped for want of a slot
                self._blocked_upto[adapter] = self._waiting[adapter][-1][0]
        room = self.max_batch - self._batch
        if sum(len(self._waiting[a]) for a in admissible) <= room:
            order = (entry for a in admissible for entry in list(self._waiting[a]))
        else:  # not everyone fits: strict arrival order decides who gets the batch room
            order = heapq.merge(*(list(self._waiting[a]) for a in admissible),
                                key=lambda e: (e[1].arrival_ms, e[1].id))
        for seq, request in order:
            if self._batch >= self.max_batch:
                break
            adapter = request.adapter
            queue = self._waiting[adapter]
            queue.popleft()
            if not queue:
                del self._waiting[adapter]
            if seq <= self._blocked_upto.get(adapter, -1):
                self._skipped.add(request.id)
            self._place(request)

    def _place(self, request: SlotRequest) -> None:
        """Put ``request`` in the batch: at once if its adapter is resident, else behind a copy into a slot."""
        adapter = request.adapter
        self._batch += 1
        self._admitted[request.id] = self.now_ms
        if adapter is None:
            self._begin(request, ready_ms=self.now_ms, loaded=False)
            return
        self._running[adapter] = self._running.get(adapter, 0) + 1
        self.peak_distinct = max(self.peak_distinct, len(self._running))
        if adapter in self._loading:
            self._loading[adapter].append(request)
        elif adapter in self._resident:
            self._resident.move_to_end(adapter)
            self._begin(request, ready_ms=self.now_ms, loaded=False)
        else:
            if len(self._resident) >= self.max_slots:
                victim = next(a for a in self._resident if a not in self._running and a not in self.pinned)
                del self._resident[victim]
                self.evictions += 1
            self._resident[adapter] = None
            self._loading[adapter] = [request]
            self.loads += 1
            self._push(self.now_ms + self.load_ms, _LOADED, adapter)

    def _begin(self, request: SlotRequest, *, ready_ms: float, loaded: bool) -> None:
        first = ready_ms + self.prefill_ms
        finish = first + (request.output_tokens - 1) * self.decode_ms_per_token
        self._started[request.id] = (self._admitted.pop(request.id), loaded)
        self._push(finish, _FINISH, (request, first))

    def _finish(self, payload: tuple[SlotRequest, float]) -> None:
        request, first = payload
        if self._batch == self.max_batch:
            self._dirty = True  # batch room came free
        self._batch -= 1
        adapter = request.adapter
        if adapter is not None:
            left = self._running[adapter] - 1
            if left:
                self._running[adapter] = left
            else:
                del self._running[adapter]
                self._dirty = True  # a slot came free
        start, loaded = self._started.pop(request.id)
        self.outcomes.append(SlotOutcome(request, start, first, self.now_ms, request.id in self._skipped, loaded))
        self._skipped.discard(request.id)

    # -- inspection --------------------------------------------------------------------------
    @property
    def resident(self) -> list[str]:
        """Adapters in a slot, least recently used first."""
        return list(self._resident)

    @property
    def batch_adapters(self) -> frozenset[str]:
        """The distinct adapters of the requests in the batch (running or waiting for their copy)."""
        return frozenset(self._running)

    @property
    def batch_size(self) -> int:
        """Requests in the batch."""
        return self._batch

    @property
    def waiting(self) -> int:
        """Requests that have arrived and are not in the batch yet."""
        return sum(len(q) for q in self._waiting.values())

    def __repr__(self) -> str:
        return (f"SlotScheduler(max_slots={self.max_slots}, now_ms={self.now_ms:g}, batch={self._batch}, "
                f"adapters={len(self._running)}, waiting={self.waiting}, loads={self.loads})")


def requests_from(arrival_ms: Sequence[float], adapters: Sequence[str | None], *, output_tokens: int) -> list[SlotRequest]:
    """Zip arrival times and adapter keys into :class:`SlotRequest` records, ids in arrival order.

    >>> [r.adapter for r in requests_from([0.0, 3.0], ["a@1.0.0", None], output_tokens=4)]
    ['a@1.0.0', None]
    """
    if len(arrival_ms) != len(adapters):
        raise ValueError(f"need one adapter per arrival, got {len(arrival_ms)} arrivals and {len(adapters)} adapters")
    return [SlotRequest(i, t, a, output_tokens) for i, (t, a) in enumerate(zip(arrival_ms, adapters))]


def slot_pool_mb(max_slots: int, *, max_lora_rank: int, hidden: int, layers: int, targets: int | Sequence[str],
                 bytes_per_param: float = 2) -> float:
    """Return the VRAM (MiB) of ``max_slots`` slots, each sized at ``max_lora_rank`` whatever an adapter's own rank.

    vLLM preallocates every LoRA layer's A and B buffers as ``(max_loras, ..., max_lora_rank, ...)``,
    so the pool costs ``max_slots`` adapters of rank ``max_lora_rank``:

    >>> slot_pool_mb(8, max_lora_rank=64, hidden=4096, layers=32, targets=2)   # Llama-3-8B-sized q, v
    512.0
    """
    count("max_slots", max_slots)
    return max_slots * adapter_vram_mb(max_lora_rank, hidden, layers, targets, bytes_per_param)


# --------------------------------------------------------------------------- the chapter's runs

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
    source="sgl-project/sglang pull request #13349, \"LoRA adapter switching profile\" (closed), Motivation and Test Setup",
    slots=8, in_cache_adapters=8, in_cache_median_ttft_ms=39.65, eviction_adapters=16, eviction_median_ttft_ms=6278.0,
    claim="This represents a 156x throughput drop in production-like conditions.",
    model="Llama 3.1 8B", hardware="2x H100 (TP=2)", requests=100, rate_per_s=4.0, input_tokens=4096,
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

    @property
    def request_ms(self) -> float:
        """How long one request holds its slot once its adapter is in: prefill plus the decode steps."""
        return self.prefill_ms + (self.output_tokens - 1) * self.decode_ms_per_token

    def workload(self) -> Workload:
        """The :class:`labcore.sim.workload.Workload` whose seeded trace drives the run."""
        return Workload(tenants=self.active_adapters, requests=self.requests, zipf_s=self.zipf_s,
                        rate_per_s=self.rate_per_s, seed=self.seed)


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
    pinned: tuple[str, ...]
    pinned_p99_ms: float | None
    others_p99_ms: float | None
    ttft_ms: tuple[float, ...]

    def __post_init__(self) -> None:
        if self.fix not in FIXES:
            raise ValueError(f"unknown fix {self.fix!r}; valid fixes: {FIXES}")
        if self.peak_distinct > self.max_slots:
            raise ValueError(f"a batch held {self.peak_distinct} distinct adapters with only {self.max_slots} slots")
        if len(self.ttft_ms) != self.requests:
            raise ValueError(f"{len(self.ttft_ms)} latencies for {self.requests} requests")

    @property
    def waited_share(self) -> float:
        """The fraction of requests that waited for a slot."""
        return self.waited / self.requests


@functools.lru_cache(maxsize=8)
def _requests(workload: Workload, output_tokens: int) -> tuple[tuple[SlotRequest, ...], tuple[str, ...]]:
    """The trace of ``workload`` as slot requests, and the adapter keys by popularity (kept for a few workloads)."""
    trace = make_trace(workload)
    keys = tuple(a.key for a in workload.adapters())
    adapters = [keys[i] for i in trace.tenant_index]
    return tuple(requests_from(trace.arrival_ms, adapters, output_tokens=output_tokens)), keys


def slot_run(scenario: SlotScenario = SLOT_CLIFF, *, fix: str = FIX_NONE, max_slots: int | None = None,
             active_adapters: int | None = None) -> SlotRun:
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
    if fix not in FIXES:
        raise ValueError(f"unknown fix {fix!r}; valid fixes: {FIXES}")
    changes = {k: v for k, v in (("max_slots", max_slots), ("active_adapters", active_adapters)) if v is not None}
    s = replace(scenario, **changes) if changes else scenario
    requests, keys = _requests(s.workload(), s.output_tokens)
    slots = max(s.max_slots, s.active_adapters) if fix == FIX_MORE_SLOTS else s.max_slots
    pinned = keys[: max_pinned(slots) and min(slots // 2, len(keys))] if fix == FIX_PIN else ()
    replicas = s.replicas if fix in (FIX_ROUND_ROBIN, FIX_AFFINITY) else 1
    names = replica_names(replicas)
    groups: list[list[SlotRequest]] = [[] for _ in names]
    for request in requests:
        if fix == FIX_AFFINITY:
            owner = rendezvous_owner(request.adapter.partition("@")[0], names)  # type: ignore[union-attr]
            groups[names.index(owner)].append(request)
        else:
            groups[request.id % replicas].append(request)
    ttft = [0.0] * len(requests)
    waited = loads = evictions = peak = 0
    for group in groups:
        scheduler = SlotScheduler(max_slots=slots, max_batch=s.max_batch, prefill_ms=s.prefill_ms,
                                  decode_ms_per_token=s.decode_ms_per_token, load_ms=s.load_ms, pinned=pinned)
        for request in group:
            scheduler.submit(request)
        for outcome in scheduler.run():
            ttft[outcome.request.id] = outcome.ttft_ms
            waited += outcome.waited_for_slot
        loads, evictions = loads + scheduler.loads, evictions + scheduler.evictions
        peak = max(peak, scheduler.peak_distinct)
    p50, p95, p99 = percentiles(ttft, (50, 95, 99))
    pinned_set = set(pinned)
    hot = [t for r, t in zip(requests, ttft) if r.adapter in pinned_set]
    rest = [t for r, t in zip(requests, ttft) if r.adapter not in pinned_set]
    return SlotRun(
        fix=fix, max_slots=slots, active_adapters=s.active_adapters, replicas=replicas, requests=len(requests),
        p50_ms=p50, p95_ms=p95, p99_ms=p99, max_ms=max(ttft), waited=waited, loads=loads, evictions=evictions,
        peak_distinct=peak, adapters_per_replica=tuple(len({r.adapter for r in g}) for g in groups),
        pinned=tuple(pinned), pinned_p99_ms=percentiles(hot, (99,))[0] if hot else None,
        others_p99_ms=percentiles(rest, (99,))[0] if (pinned and rest) else None, ttft_ms=tuple(ttft),
    )


def slot_sweep(active_adapters: Sequence[int], *, scenario: SlotScenario = SLOT_CLIFF, fix: str = FIX_NONE,
               max_slots: int | None = None) -> list[SlotRun]:
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
