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

The two engines differ on the base model's requests. vLLM's scheduler counts only LoRA requests
against ``--max-loras``: a base request needs no slot. SGLang's batch check counts the distinct
adapter ids of the batch *with the base model's* ``None`` *among them* against
``--max-loras-per-batch`` (``LoRAManager.validate_lora_batch``), and its memory pool gives the base a
buffer slot of zeros. ``base_takes_slot=True`` is SGLang's rule: a base request then takes a slot
like an adapter, with nothing to copy.

>>> s = SlotScheduler(max_slots=1, prefill_ms=40.0, decode_ms_per_token=20.0, load_ms=2.0)
>>> s.submit(SlotRequest(0, 0.0, "a@1.0.0", output_tokens=3))    # a: 2 + 40 + 2 x 20 ms
>>> s.submit(SlotRequest(1, 1.0, "b@1.0.0", output_tokens=3))    # b waits for a's slot
>>> [(o.request.adapter, o.ttft_ms, o.waited_for_slot) for o in s.run()]
[('a@1.0.0', 42.0, False), ('b@1.0.0', 123.0, True)]

Under SGLang's rule a base request needs the slot as well:

>>> s = SlotScheduler(max_slots=1, base_takes_slot=True)
>>> s.submit(SlotRequest(0, 0.0, "a@1.0.0", output_tokens=3))
>>> s.submit(SlotRequest(1, 1.0, None, output_tokens=3))          # vLLM would start it at once: 40 ms
>>> [(o.request.adapter, o.ttft_ms) for o in s.run()]
[('a@1.0.0', 42.0), (None, 121.0)]

What the model leaves out is listed in :data:`LEFT_OUT`; chapter 15 prints it. Chapter 15's runs (the slot
cliff and its fixes) are :mod:`labcore.sim.scenarios.slots`.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import cast

from ._validate import count, distinct, flag, instance, number, one_each, text
from .cache import EvictionPolicy, LruPolicy
from .engines import VLLM_ENGINE, lora_slot_bytes
from .model_config import ModelConfig
from .refs import AdapterKey

__all__ = [
    "LEFT_OUT",
    "BASE_SLOT",
    "SlotKey",
    "SlotRequest",
    "SlotOutcome",
    "SlotScheduler",
    "max_pinned",
    "requests_from",
    "slot_pool_mb",
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


#: What takes a slot: an adapter's key, or any non-empty label (a scenario's ``"tenant-07"``, :data:`BASE_SLOT`).
SlotKey = AdapterKey | str


def _adapter_label(name: str, value: object) -> SlotKey:
    """Return ``value`` if it names an adapter: its key, or a non-empty label."""
    return value if isinstance(value, AdapterKey) else text(name, value)


@dataclass(frozen=True, slots=True)
class SlotRequest:
    """One request: an id, when it arrives, the adapter it needs (``None``: the bare base) and its length.

    ``adapter`` is the adapter's key (an :class:`labcore.refs.AdapterKey`), or any non-empty label.

    >>> SlotRequest(0, 5.0, "support-bot@1.0.0", output_tokens=0)
    Traceback (most recent call last):
    ...
    ValueError: output_tokens must be a positive int, got 0
    """

    id: int
    arrival_ms: float
    adapter: AdapterKey | str | None
    output_tokens: int = 256

    def __post_init__(self) -> None:
        count("request id", self.id, minimum=0)
        object.__setattr__(self, "arrival_ms", number("arrival_ms", self.arrival_ms, inclusive=True))
        if self.adapter is not None:
            _adapter_label("adapter", self.adapter)
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


#: The slot a base-model request takes under SGLang's rule (``base_takes_slot=True``); no adapter has this key.
BASE_SLOT = "(base model)"

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
        pinned: Iterable[SlotKey] = (),
        base_takes_slot: bool = False,
    ) -> None:
        self.max_slots = count("max_slots", max_slots)
        self.max_batch = count("max_batch", max_batch)
        self.prefill_ms = number("prefill_ms", prefill_ms, inclusive=True)
        self.decode_ms_per_token = number("decode_ms_per_token", decode_ms_per_token, inclusive=True)
        self.load_ms = number("load_ms", load_ms, inclusive=True)
        pins = tuple(_adapter_label("each pinned adapter", p) for p in instance("pinned", tuple(pinned), tuple))
        distinct("pinned adapters", pins)
        if len(pins) > max_pinned(self.max_slots):
            raise ValueError(
                f"at most max_slots - 1 = {max_pinned(self.max_slots)} adapters may be pinned "
                f"(one slot stays free for the others), got {len(pins)}: {list(pins)}"
            )
        self.pinned: frozenset[SlotKey] = frozenset(pins)
        #: SGLang's rule: the base model's requests take a slot too (vLLM's: they need none).
        self.base_takes_slot = flag("base_takes_slot", base_takes_slot)
        self.now_ms = 0.0
        #: Resident adapters, least recently used first (pinned ones included; never more than max_slots).
        self._resident: EvictionPolicy[SlotKey] = LruPolicy()
        for pin in pins:
            self._resident.admit(pin)
        self._running: dict[SlotKey, int] = {}  # adapter -> running requests (loading ones included)
        self._loading: dict[SlotKey, list[SlotRequest]] = {}  # adapter -> requests waiting for its copy
        # adapter -> waiting (per-adapter arrival number, request), in arrival order
        self._waiting: dict[SlotKey | None, deque[tuple[int, SlotRequest]]] = {}
        self._arrived: dict[SlotKey | None, int] = {}
        self._blocked_upto: dict[SlotKey | None, int] = {}  # adapter -> last arrival number skipped for want of a slot
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
            raise ValueError(
                f"request {request.id} arrives at {request.arrival_ms:g} ms, before the "
                f"scheduler's clock ({self.now_ms:g} ms): submit requests in time order"
            )
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
                request = cast(SlotRequest, payload)
                key = self._key(request)
                arrived = self._arrived[key] = self._arrived.get(key, -1) + 1
                self._waiting.setdefault(key, deque()).append((arrived, request))
                self._dirty = True
            elif kind == _LOADED:
                adapter = cast(SlotKey, payload)
                for request in self._loading.pop(adapter):
                    self._begin(request, ready_ms=now, loaded=True)
            else:
                self._finish(cast(tuple[SlotRequest, float], payload))
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
        admissible: list[SlotKey | None] = []
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
            order = heapq.merge(*(list(self._waiting[a]) for a in admissible), key=lambda e: (e[1].arrival_ms, e[1].id))
        for seq, request in order:
            if self._batch >= self.max_batch:
                break
            adapter = self._key(request)
            queue = self._waiting[adapter]
            queue.popleft()
            if not queue:
                del self._waiting[adapter]
            if seq <= self._blocked_upto.get(adapter, -1):
                self._skipped.add(request.id)
            self._place(request)

    def _place(self, request: SlotRequest) -> None:
        """Put ``request`` in the batch: at once if its adapter is resident, else behind a copy into a slot."""
        adapter = self._key(request)
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
            self._resident.touch(adapter)
            self._begin(request, ready_ms=self.now_ms, loaded=False)
        else:
            if len(self._resident) >= self.max_slots:
                victim = next(a for a in self._resident.victims() if a not in self._running and a not in self.pinned)
                self._resident.discard(victim)
                self.evictions += 1
            self._resident.admit(adapter)
            if adapter == BASE_SLOT:  # SGLang zeroes the slot's buffers for the base: nothing to copy
                self._begin(request, ready_ms=self.now_ms, loaded=False)
                return
            self._loading[adapter] = [request]
            self.loads += 1
            self._push(self.now_ms + self.load_ms, _LOADED, adapter)

    def _key(self, request: SlotRequest) -> SlotKey | None:
        """Return the slot key of ``request``: its adapter, or :data:`BASE_SLOT` for a base request under SGLang's rule."""
        if request.adapter is None and self.base_takes_slot:
            return BASE_SLOT
        return request.adapter

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
        adapter = self._key(request)
        if adapter is not None:
            left = self._running[adapter] - 1
            if left:
                self._running[adapter] = left
            else:
                del self._running[adapter]
                self._dirty = True  # a slot came free
        start, loaded = self._started.pop(request.id)
        self.outcomes.append(
            SlotOutcome(
                request=request,
                start_ms=start,
                first_token_ms=first,
                finish_ms=self.now_ms,
                waited_for_slot=request.id in self._skipped,
                loaded=loaded,
            )
        )
        self._skipped.discard(request.id)

    # -- inspection --------------------------------------------------------------------------
    @property
    def resident(self) -> list[SlotKey]:
        """Adapters in a slot, least recently used first."""
        return list(self._resident)

    @property
    def batch_adapters(self) -> frozenset[SlotKey]:
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
        return (
            f"SlotScheduler(max_slots={self.max_slots}, now_ms={self.now_ms:g}, batch={self._batch}, "
            f"adapters={len(self._running)}, waiting={self.waiting}, loads={self.loads})"
        )


def requests_from(
    arrival_ms: Sequence[float], adapters: Sequence[SlotKey | None], *, output_tokens: int
) -> list[SlotRequest]:
    """Zip arrival times and adapter keys into :class:`SlotRequest` records, ids in arrival order.

    >>> [r.adapter for r in requests_from([0.0, 3.0], ["a@1.0.0", None], output_tokens=4)]
    ['a@1.0.0', None]
    """
    one_each("adapters", adapters, len(arrival_ms), "arrival")
    return [
        SlotRequest(id=i, arrival_ms=t, adapter=a, output_tokens=output_tokens)
        for i, (t, a) in enumerate(zip(arrival_ms, adapters, strict=True))
    ]


def slot_pool_mb(
    max_slots: int,
    *,
    max_lora_rank: int,
    model: ModelConfig | str = "llama-3-8b",
    target_modules: Iterable[str] | None = None,
    engine: str = VLLM_ENGINE,
    tp: int = 1,
    dtype_bytes: int = 2,
) -> float:
    """Return the VRAM (MiB) of ``max_slots`` slot buffers at ``max_lora_rank``, as the engine reserves them at load.

    This is :func:`labcore.engines.lora_slot_bytes` in MiB: an ``A`` (rank x input) and a ``B`` (output x rank) per
    slot, slice and layer, in every module the engine supports unless ``target_modules`` restricts them, whatever
    an adapter's own rank. The square formula over an adapter's own targets (512 MiB here for q and v) is the
    lab's naive arithmetic, not what an engine reserves.

    >>> slot_pool_mb(8, max_lora_rank=64), slot_pool_mb(8, max_lora_rank=64, target_modules=["qkv_proj"])
    (2818.5, 576.0)
    """
    count("max_slots", max_slots)
    return (
        lora_slot_bytes(
            engine,
            model,
            slots=max_slots,
            max_rank=max_lora_rank,
            target_modules=target_modules,
            tp=tp,
            dtype_bytes=dtype_bytes,
        )
        / 2**20
    )
