"""Tests for labcore.admission: in-flight adapters are never evicted; waiting is bounded and FIFO."""

from __future__ import annotations

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from labcore import Adapter, AdapterCache, AdapterNotFoundError, AdapterRegistry, AdapterTooLargeError, MultiLoRARouter
from labcore.admission import AdmissionController, AdmissionStats, QueueFullError
from labcore.refs import AdapterKey
from labcore.sim import single_replica_router

K = AdapterKey.parse  # a key from its text, as a client writes it

BASE = "llama-3-8b"


def ref(i: int) -> str:
    return f"{BASE}:tenant-{i:02d}"


def gate_for(tenants: int = 4, slots: int = 2, max_queue: int = 2) -> AdmissionController:
    return AdmissionController(single_replica_router(tenants, budget_mb=16 * slots), max_queue=max_queue)


def test_an_in_flight_adapter_is_never_the_victim():
    gate = gate_for()
    a = gate.start(ref(1))
    gate.start(ref(2))
    gate.finish(gate.start(ref(2)).ticket)  # tenant-02 is used again, so tenant-01 is the LRU ...
    gate.finish(1)  # ... and tenant-02's first request finishes: only tenant-01 is pinned
    third = gate.start(ref(3))
    assert third.decision.evicted == (K("tenant-02@1.0.0"),)  # LRU tenant-01 is in flight: skipped
    assert gate.router.cache.pin_count(K("tenant-01@1.0.0")) == 1 and a.decision is not None


def test_waits_in_fifo_order_and_is_admitted_when_room_frees():
    gate = gate_for(slots=1, max_queue=3)
    first = gate.start(ref(1))
    waiting = [gate.start(ref(i)) for i in (2, 3)]
    assert [w.waiting for w in waiting] == [True, True] and gate.queue_length == 2
    admitted = gate.finish(first.ticket)
    assert [x.ticket.ref for x in admitted] == [ref(2)]  # tenant-03 still needs the one slot
    admitted = gate.finish(admitted[0].ticket)
    assert [x.ticket.ref for x in admitted] == [ref(3)]
    assert gate.stats() == AdmissionStats(
        started=3, admitted_now=1, queued=2, refused=0, admitted_later=2, finished=2, dropped=0, in_flight=1, waiting=0
    )


def test_strict_fifo_new_requests_queue_behind_waiting_ones():
    gate = gate_for(slots=1, max_queue=3)
    gate.start(ref(1))
    gate.start(ref(2))  # waits
    behind = gate.start(ref(1))  # would be a cache hit, but someone is already waiting
    assert behind.waiting
    admitted = gate.finish(0)
    assert [x.ticket.ref for x in admitted] == [ref(2)]  # tenant-02 first; tenant-01 must wait again
    assert gate.waiting[0].ref == ref(1)


def test_refused_with_a_clear_error_when_the_queue_is_full():
    gate = gate_for(slots=1, max_queue=0)
    gate.start(ref(1))
    with pytest.raises(QueueFullError, match=r"queue is full \(0 of 0 waiting\)") as info:
        gate.start(ref(2))
    assert isinstance(info.value, RuntimeError)
    assert gate.stats().refused == 1 and gate.router.cache.used_mb <= gate.router.cache.budget_mb


def test_errors_waiting_cannot_fix_propagate_and_leave_no_trace():
    gate = gate_for()
    with pytest.raises(AdapterNotFoundError):
        gate.start(f"{BASE}:nobody")
    assert gate.stats().started == 0
    registry = AdapterRegistry()
    registry.register_base(BASE, "sha256:1")
    registry.register(Adapter("huge", "1.0.0", BASE, "sha256:1", rank=64, vram_mb=100.0))
    router = MultiLoRARouter(registry, AdapterCache(64, 8.0), BASE, base_latency_ms=40, dynamic_overhead=0.05)
    with pytest.raises(AdapterTooLargeError):
        AdmissionController(router).start(f"{BASE}:huge")


def test_a_waiting_request_that_turns_out_invalid_is_dropped_not_blocking():
    gate = gate_for(slots=1, max_queue=3)
    gate.start(ref(1))
    second = gate.start(ref(2))  # waits for the one slot
    gate.start(f"{BASE}:nobody")  # queued behind: not validated until its turn
    gate.start(ref(3))
    assert [x.ticket.ref for x in gate.finish(0)] == [ref(2)]
    assert [x.ticket.ref for x in gate.finish(second.ticket)] == [ref(3)]
    assert gate.dropped == 1 and isinstance(gate.drop_log[0][1], AdapterNotFoundError)
    assert gate.stats().waiting == 0


def test_base_requests_need_no_vram_and_finish_cleanly():
    gate = gate_for(slots=1)
    base = gate.start(BASE)
    assert base.decision.mode == "base" and gate.in_flight_adapters == {}
    assert gate.finish(base.ticket) == ()


def test_finish_of_an_unknown_ticket_is_a_key_error_and_bad_arguments_are_refused():
    gate = gate_for()
    with pytest.raises(KeyError, match="not in flight"):
        gate.finish(99)
    with pytest.raises(ValueError, match="max_queue"):
        AdmissionController(gate.router, max_queue=-1)
    with pytest.raises(ValueError, match="route"):
        AdmissionController(object())


SIZES = {"a": 8.0, "b": 16.0, "c": 16.0, "d": 24.0, "e": 8.0, "f": 32.0}


class AdmissionMachine(RuleBasedStateMachine):
    """Random interleavings of start/finish (and plain routes): nothing in flight is ever evicted."""

    def __init__(self) -> None:
        super().__init__()
        registry = AdapterRegistry()
        registry.register_base(BASE, "sha256:1")
        for name, mb in SIZES.items():
            registry.register(Adapter(name, "1.0.0", BASE, "sha256:1", rank=16, vram_mb=mb))
        self.cache = AdapterCache(48, 8.0)
        router = MultiLoRARouter(registry, self.cache, BASE, base_latency_ms=40.0, dynamic_overhead=0.05)
        self.gate = AdmissionController(router, max_queue=3)
        self.tickets: list[int] = []
        self.log_seen = 0

    def _check_evictions(self, in_flight_before: set[str]) -> None:
        new = self.cache.eviction_log[self.log_seen :]
        assert not set(new) & in_flight_before, f"evicted in-flight adapters {set(new) & in_flight_before}"
        self.log_seen = len(self.cache.eviction_log)

    def _in_flight(self) -> set[str]:
        return set(self.gate.in_flight_adapters)

    @rule(name=st.sampled_from([*SIZES, None]))
    def start(self, name):
        before = self._in_flight()
        try:
            adm = self.gate.start(BASE if name is None else f"{BASE}:{name}")
        except QueueFullError:
            assert self.gate.queue_length == self.gate.max_queue
        else:
            if adm.decision is not None:
                self.tickets.append(adm.ticket.id)
            else:
                self.tickets.append(adm.ticket.id)
        self._check_evictions(before)

    @precondition(lambda self: self.gate.in_flight)
    @rule(data=st.data())
    def finish(self, data):
        ticket_id = data.draw(st.sampled_from(sorted(self.gate.in_flight)))
        before = self._in_flight()
        decision = self.gate.in_flight[ticket_id]
        still = before - ({decision.adapter} if self.gate.in_flight_adapters[decision.adapter] == 1 else set())
        self.gate.finish(ticket_id)
        self._check_evictions(still)

    @rule(name=st.sampled_from(list(SIZES)))
    def unprotected_route(self, name):
        """A request routed outside the gate (no pin) must also respect in-flight pins."""
        before = self._in_flight()
        try:
            self.gate.router.route(f"{BASE}:{name}")
        except Exception as error:  # only the in-use refusal is acceptable
            assert type(error).__name__ == "AdapterInUseError"
        self._check_evictions(before)

    @invariant()
    def budget_holds(self):
        assert self.cache.used_mb <= self.cache.budget_mb + 1e-9

    @invariant()
    def queue_is_bounded(self):
        assert self.gate.queue_length <= self.gate.max_queue

    @invariant()
    def pins_match_in_flight_requests(self):
        counts = self.gate.in_flight_adapters
        for key in set(counts) | set(self.cache.pinned):
            assert self.cache.pin_count(key) == counts.get(key, 0)
            assert key in self.cache

    @invariant()
    def counters_add_up(self):
        s = self.gate.stats()  # AdmissionStats validates its own identities
        assert s.in_flight == len(self.gate.in_flight) and s.waiting == self.gate.queue_length

    @invariant()
    def nobody_waits_when_nothing_is_in_flight(self):
        if not self.gate.in_flight:
            assert self.gate.queue_length == 0


TestAdmissionMachine = AdmissionMachine.TestCase
TestAdmissionMachine.settings = settings(max_examples=80, stateful_step_count=40, deadline=None)
