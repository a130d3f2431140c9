"""Eviction-aware admission: never evict an adapter a request is still using.

Evicting an adapter out from under an in-flight request corrupts that request (the kernel reads
freed or overwritten weights); going over the VRAM budget crashes everyone. So a request takes a
*pin* on its adapter for as long as it runs, pinned adapters are never evicted, and when only
pinned adapters could make room the request **waits** in a bounded FIFO queue — admitted when a
finishing request frees room — or, if the queue is full, is **refused** with
:class:`QueueFullError`. The cache never goes over budget.

>>> from labcore.sim import single_replica_router
>>> router = single_replica_router(3, budget_mb=32)          # room for two 16 MiB adapters
>>> gate = AdmissionController(router, max_queue=1)
>>> a = gate.start("llama-3-8b:tenant-01"); b = gate.start("llama-3-8b:tenant-02")
>>> c = gate.start("llama-3-8b:tenant-03")            # both residents are in flight: wait
>>> c.decision is None, gate.queue_length
(True, 1)
>>> gate.start("llama-3-8b:tenant-03")
Traceback (most recent call last):
...
labcore.errors.QueueFullError: cannot admit 'llama-3-8b:tenant-03': the adapter pool is full of in-flight adapters (['tenant-01@1.0.0', 'tenant-02@1.0.0']) and the admission queue is full (1 of 1 waiting); retry later or raise max_queue
>>> [(x.ticket.ref, [str(k) for k in x.decision.evicted]) for x in gate.finish(a.ticket)]   # tenant-1 done: c goes in
[('llama-3-8b:tenant-03', ['tenant-01@1.0.0'])]
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from ._validate import count
from .errors import AdapterInUseError, LabcoreError, QueueFullError
from .refs import AdapterKey, ModelRef
from .router import MODE_DYNAMIC, RouteDecision

__all__ = ["QueueFullError", "Ticket", "Admission", "AdmissionStats", "AdmissionController"]


@dataclass(frozen=True, slots=True)
class Ticket:
    """One request's handle: a unique id, its model ref (text or parsed), and an opaque ``tag`` for the caller."""

    id: int
    ref: str | ModelRef
    tag: Hashable | None = None


@dataclass(frozen=True, slots=True)
class Admission:
    """The answer to ``start``: the ticket, and its route decision — ``None`` while it waits."""

    ticket: Ticket
    decision: RouteDecision | None

    @property
    def waiting(self) -> bool:
        """True while the request sits in the queue."""
        return self.decision is None


@dataclass(frozen=True, slots=True)
class AdmissionStats:
    """Counters of an :class:`AdmissionController`.

    ``started = admitted_now + queued + refused``; ``in_flight = admitted_now + admitted_later - finished``;
    ``waiting = queued - admitted_later - dropped`` (``dropped``: waited, then failed for a reason
    waiting cannot fix, such as an unknown adapter).
    """

    started: int
    admitted_now: int
    queued: int
    refused: int
    admitted_later: int
    finished: int
    dropped: int
    in_flight: int
    waiting: int

    def __post_init__(self) -> None:
        if self.started != self.admitted_now + self.queued + self.refused:
            raise ValueError(f"counters do not add up: {self}")
        if self.in_flight != self.admitted_now + self.admitted_later - self.finished:
            raise ValueError(f"counters do not add up: {self}")
        if self.waiting != self.queued - self.admitted_later - self.dropped:
            raise ValueError(f"counters do not add up: {self}")


class AdmissionController:
    """Admit requests through a router so that no in-flight adapter is ever evicted.

    ``start(ref)`` routes with ``pin=True``: the adapter stays pinned until ``finish(ticket)``.
    If the cache cannot make room without evicting a pinned adapter (``AdapterInUseError``), the
    request joins a FIFO queue of at most ``max_queue`` (``0``: refuse at once). The queue is
    strict FIFO: while anyone waits, new requests queue behind them, so nobody starves.
    ``finish`` releases a pin and admits waiting requests, in order, while they fit.

    Errors that waiting cannot fix (unknown adapter, wrong base, adapter larger than the whole
    pool) propagate from ``start`` unchanged and leave no trace; a request that already waits
    when such an error shows up is dropped and recorded in ``drop_log``.
    """

    def __init__(self, router: Any, *, max_queue: int = 64) -> None:
        count("max_queue", max_queue, minimum=0)
        if not (hasattr(router, "route") and hasattr(router, "release")):
            raise ValueError(f"router must have route(ref, pin=...) and release(decision), got {router!r}")
        self.router = router
        self.max_queue = max_queue
        self._queue: deque[Ticket] = deque()
        self._in_flight: dict[int, RouteDecision] = {}
        self._adapters: Counter[AdapterKey] = Counter()
        self._next_id = 0
        self.started = self.admitted_now = self.queued = self.refused = 0
        self.admitted_later = self.finished = self.dropped = 0
        #: Waiting requests that failed for a reason waiting cannot fix, with the error.
        self.drop_log: list[tuple[Ticket, LabcoreError]] = []

    # -- the two calls a server makes ---------------------------------------------------
    def start(self, ref: str | ModelRef, *, tag: Hashable | None = None) -> Admission:
        """Admit ``ref`` now, queue it, or raise ``QueueFullError``; return its :class:`Admission`."""
        ticket = Ticket(self._next_id, ref, tag)
        if not self._queue:
            try:
                decision = self.router.route(ref, pin=True)
            except AdapterInUseError:
                pass
            else:
                self._next_id += 1
                self.started += 1
                self.admitted_now += 1
                self._admit(ticket, decision)
                return Admission(ticket, decision)
        if len(self._queue) >= self.max_queue:
            self.started += 1
            self.refused += 1
            raise QueueFullError(
                f"cannot admit {str(ref)!r}: the adapter pool is full of in-flight adapters "
                f"({[str(key) for key in sorted(self._adapters)]}) and the admission queue is full "
                f"({len(self._queue)} of {self.max_queue} waiting); retry later or raise max_queue"
            )
        self._next_id += 1
        self.started += 1
        self.queued += 1
        self._queue.append(ticket)
        return Admission(ticket, None)

    def finish(self, ticket: Ticket | int) -> tuple[Admission, ...]:
        """Release a finished request's pin; admit waiting requests in FIFO order while they fit.

        Returns the requests admitted as a result, in admission order.
        """
        ticket_id = ticket.id if isinstance(ticket, Ticket) else ticket
        decision = self._in_flight.pop(ticket_id, None)
        if decision is None:
            raise KeyError(f"ticket {ticket_id!r} is not in flight (in flight: {sorted(self._in_flight)[:10]})")
        self.router.release(decision)
        self.finished += 1
        key = decision.adapter
        if decision.mode == MODE_DYNAMIC and key is not None:  # a dynamic decision always names its adapter
            self._adapters[key] -= 1
            if not self._adapters[key]:
                del self._adapters[key]
        admitted: list[Admission] = []
        while self._queue:
            head = self._queue[0]
            try:
                routed = self.router.route(head.ref, pin=True)
            except AdapterInUseError:
                break
            except LabcoreError as error:
                # Waiting cannot fix this one (e.g. an unknown adapter queued behind others): drop it.
                self._queue.popleft()
                self.dropped += 1
                self.drop_log.append((head, error))
                continue
            self._queue.popleft()
            self.admitted_later += 1
            self._admit(head, routed)
            admitted.append(Admission(head, routed))
        return tuple(admitted)

    def _admit(self, ticket: Ticket, decision: RouteDecision) -> None:
        self._in_flight[ticket.id] = decision
        key = decision.adapter
        if decision.mode == MODE_DYNAMIC and key is not None:
            self._adapters[key] += 1

    # -- inspection ----------------------------------------------------------------------
    @property
    def queue_length(self) -> int:
        """Requests waiting for VRAM."""
        return len(self._queue)

    @property
    def waiting(self) -> list[Ticket]:
        """The waiting tickets, first in line first."""
        return list(self._queue)

    @property
    def in_flight(self) -> dict[int, RouteDecision]:
        """A copy of the admitted, unfinished requests: ticket id to decision."""
        return dict(self._in_flight)

    @property
    def in_flight_adapters(self) -> Counter[AdapterKey]:
        """How many in-flight requests use each adapter (a copy)."""
        return Counter(self._adapters)

    def stats(self) -> AdmissionStats:
        """Return the counters (validated to add up)."""
        return AdmissionStats(
            started=self.started,
            admitted_now=self.admitted_now,
            queued=self.queued,
            refused=self.refused,
            admitted_later=self.admitted_later,
            finished=self.finished,
            dropped=self.dropped,
            in_flight=len(self._in_flight),
            waiting=len(self._queue),
        )

    def __repr__(self) -> str:
        return (
            f"AdmissionController(in_flight={len(self._in_flight)}, waiting={len(self._queue)}/{self.max_queue}, "
            f"refused={self.refused})"
        )
