"""Tests for labcore.slots: never more distinct adapters in a batch than slots; waiting, pinning, what it leaves out."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from labcore.engines import lora_slot_bytes
from labcore.slots import LEFT_OUT, SlotRequest, SlotScheduler, max_pinned, requests_from, slot_pool_mb


def run(scheduler: SlotScheduler, requests) -> dict[int, object]:
    for r in requests:
        scheduler.submit(r)
    return {o.request.id: o for o in scheduler.run()}


def sched(**kw) -> SlotScheduler:
    kw = {"prefill_ms": 10.0, "decode_ms_per_token": 1.0, "load_ms": 2.0} | kw
    return SlotScheduler(**kw)


def test_a_resident_adapter_starts_at_once_and_a_new_one_pays_the_copy():
    s = sched(max_slots=2)
    out = run(
        s,
        [
            SlotRequest(id=0, arrival_ms=0.0, adapter="a", output_tokens=5),
            SlotRequest(id=1, arrival_ms=20.0, adapter="a", output_tokens=5),
        ],
    )
    assert out[0].ttft_ms == 12.0 and out[0].loaded  # copy 2 ms + prefill 10 ms
    assert out[1].ttft_ms == 10.0 and not out[1].loaded  # resident: prefill only
    assert out[0].finish_ms == 12.0 + 4 * 1.0 and s.loads == 1 and s.evictions == 0


def test_a_request_waits_until_every_request_of_another_adapter_finishes():
    s = sched(max_slots=1)
    out = run(
        s,
        [
            SlotRequest(id=0, arrival_ms=0.0, adapter="a", output_tokens=50),
            SlotRequest(id=1, arrival_ms=1.0, adapter="b", output_tokens=5),
            SlotRequest(id=2, arrival_ms=2.0, adapter="a", output_tokens=50),
        ],
    )
    # a's second request joins the batch (a holds the slot); b waits for both of a's requests
    assert not out[2].waited_for_slot and out[2].start_ms == 2.0
    a_done = max(out[0].finish_ms, out[2].finish_ms)
    assert out[1].waited_for_slot and out[1].start_ms == a_done and out[1].loaded
    assert s.evictions == 1 and s.resident == ["b"]


def test_later_requests_of_a_resident_adapter_overtake_a_blocked_one():
    """vLLM skips a request that would exceed max_loras and goes on down the queue."""
    s = sched(max_slots=1)
    out = run(
        s,
        [
            SlotRequest(id=0, arrival_ms=0.0, adapter="a", output_tokens=100),
            SlotRequest(id=1, arrival_ms=1.0, adapter="b", output_tokens=1),
            SlotRequest(id=2, arrival_ms=5.0, adapter="a", output_tokens=1),
        ],
    )
    assert out[2].start_ms == 5.0 < out[1].start_ms


def test_batch_room_bounds_requests_and_is_given_in_arrival_order():
    s = sched(max_slots=4, max_batch=2)
    out = run(s, [SlotRequest(id=i, arrival_ms=float(i), adapter="a", output_tokens=20) for i in range(3)])
    assert out[2].start_ms == out[0].finish_ms and not out[2].waited_for_slot  # waited for room, not a slot


def test_base_requests_need_no_slot():
    s = sched(max_slots=1)
    out = run(
        s,
        [
            SlotRequest(id=0, arrival_ms=0.0, adapter="a", output_tokens=100),
            SlotRequest(id=1, arrival_ms=1.0, adapter=None, output_tokens=1),
        ],
    )
    assert out[1].start_ms == 1.0 and not out[1].loaded and s.peak_distinct == 1


def test_pinned_adapters_hold_their_slots_and_are_never_evicted():
    s = sched(max_slots=2, pinned=("hot",))
    out = run(
        s,
        [
            SlotRequest(id=0, arrival_ms=0.0, adapter="a", output_tokens=5),
            SlotRequest(id=1, arrival_ms=1.0, adapter="b", output_tokens=5),
            SlotRequest(id=2, arrival_ms=30.0, adapter="hot", output_tokens=5),
        ],
    )
    assert out[1].waited_for_slot  # only one slot is left for a and b
    assert not out[2].loaded and out[2].ttft_ms == 10.0
    assert "hot" in s.resident and s.evictions == 1


def test_pins_are_capped_at_all_slots_but_one():
    assert max_pinned(8) == 7
    with pytest.raises(ValueError, match=r"at most max_slots - 1 = 1 adapters may be pinned"):
        SlotScheduler(max_slots=2, pinned=("a", "b"))
    with pytest.raises(ValueError, match="distinct"):
        SlotScheduler(max_slots=4, pinned=("a", "a"))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_slots": 0}, "max_slots must be a positive int, got 0"),
        ({"max_slots": 2, "max_batch": 0}, "max_batch must be a positive int, got 0"),
        ({"max_slots": 2, "load_ms": -1.0}, "load_ms must be a finite number >= 0, got -1.0"),
    ],
)
def test_bad_settings_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SlotScheduler(**kwargs)


def test_requests_cannot_arrive_in_the_simulated_past():
    s = sched(max_slots=1)
    s.submit(SlotRequest(id=0, arrival_ms=10.0, adapter="a", output_tokens=1))
    s.step()
    with pytest.raises(ValueError, match="before the scheduler's clock"):
        s.submit(SlotRequest(id=1, arrival_ms=5.0, adapter="a", output_tokens=1))
    with pytest.raises(ValueError, match="request must be a SlotRequest"):
        s.submit(("a", 1))


def test_request_records_validate():
    with pytest.raises(ValueError, match="output_tokens must be a positive int"):
        SlotRequest(id=0, arrival_ms=0.0, adapter="a", output_tokens=0)
    with pytest.raises(ValueError, match="adapter must be a non-empty string"):
        SlotRequest(id=0, arrival_ms=0.0, adapter="", output_tokens=1)
    with pytest.raises(ValueError, match=r"adapters must be 1 long \(one per arrival\), got 0"):
        requests_from([0.0], [], output_tokens=1)


def test_slot_pool_is_every_slot_at_the_maximum_rank_in_every_supported_module():

    assert slot_pool_mb(8, max_lora_rank=16) == lora_slot_bytes("vllm", "llama-3-8b", slots=8, max_rank=16) / 2**20
    assert slot_pool_mb(8, max_lora_rank=64) == 4 * slot_pool_mb(8, max_lora_rank=16) == 2818.5
    assert slot_pool_mb(8, max_lora_rank=64, target_modules=["qkv_proj", "o_proj", "gate_up_proj", "down_proj"]) == 2560
    assert slot_pool_mb(9, max_lora_rank=16, engine="sglang") == 9 / 8 * slot_pool_mb(8, max_lora_rank=16)


def test_sglang_rule_gives_the_base_a_slot():
    """vLLM's scheduler lets a base request run without a slot; SGLang's counts the base's None as an adapter."""

    def run(rule):
        s = SlotScheduler(max_slots=2, base_takes_slot=rule, load_ms=2.0)
        for i, (at, adapter) in enumerate(((0.0, "a@1.0.0"), (0.0, "b@1.0.0"), (1.0, None))):
            s.submit(SlotRequest(i, at, adapter, output_tokens=3))
        return {o.request.adapter: (o.ttft_ms, o.waited_for_slot) for o in s.run()}, s

    vllm, _ = run(False)
    sglang, scheduler = run(True)
    assert vllm[None] == (40.0, False)  # straight into the batch
    assert sglang[None][1] and sglang[None][0] > 40.0 and scheduler.peak_distinct <= 2
    assert vllm["a@1.0.0"] == sglang["a@1.0.0"]


# -- the invariant after every step of a random interleaving --------------------------------------


class SlotMachine(RuleBasedStateMachine):
    """Random arrivals and steps; after each step the batch holds at most max_slots distinct adapters."""

    def __init__(self) -> None:
        super().__init__()
        self.s = SlotScheduler(
            max_slots=3, max_batch=4, prefill_ms=2.0, decode_ms_per_token=1.0, load_ms=1.5, pinned=("p",)
        )
        self.submitted: dict[int, SlotRequest] = {}
        self.clock = 0.0

    @rule(adapter=st.sampled_from(["p", "a", "b", "c", "d", None]), gap=st.floats(0, 6), tokens=st.integers(1, 8))
    def arrive(self, adapter, gap, tokens):
        self.clock = max(self.clock, self.s.now_ms) + gap
        r = SlotRequest(id=len(self.submitted), arrival_ms=self.clock, adapter=adapter, output_tokens=tokens)
        self.s.submit(r)
        self.submitted[r.id] = r

    @rule()
    def step(self):
        self.s.step()

    @invariant()
    def never_more_adapters_than_slots(self):
        s = self.s
        assert len(s.batch_adapters | s.pinned) <= s.max_slots
        assert len(s.resident) <= s.max_slots
        assert s.batch_adapters <= set(s.resident) and s.pinned <= set(s.resident)
        assert 0 <= s.batch_size <= s.max_batch and s.peak_distinct <= s.max_slots

    def teardown(self):
        outcomes = self.s.run()
        assert sorted(o.request.id for o in outcomes) == sorted(self.submitted)
        for o in outcomes:
            assert o.start_ms >= o.request.arrival_ms
            ready = o.first_token_ms - 2.0  # the copy into a slot, if any, ends at most load_ms after admission
            assert o.start_ms - 1e-9 <= ready <= o.start_ms + (1.5 if o.loaded else 0.0) + 1e-9
            assert o.finish_ms == pytest.approx(o.first_token_ms + (o.request.output_tokens - 1) * 1.0)
        assert self.s.batch_size == 0 and self.s.waiting == 0


TestSlotMachine = SlotMachine.TestCase
TestSlotMachine.settings = settings(max_examples=80, stateful_step_count=40, deadline=None)


@settings(max_examples=60)
@given(
    st.lists(st.tuples(st.floats(0, 5), st.sampled_from("abcde"), st.integers(1, 30)), min_size=1, max_size=40),
    st.integers(1, 5),
)
def test_adapters_that_fit_never_wait_for_a_slot(items, max_slots):
    """With at least as many slots as adapters, nobody waits for a slot and every TTFT is copy + prefill at most."""
    t, requests = 0.0, []
    for i, (gap, adapter, tokens) in enumerate(items):
        t += gap
        requests.append(SlotRequest(id=i, arrival_ms=t, adapter=adapter, output_tokens=tokens))
    distinct = len({r.adapter for r in requests})
    s = sched(max_slots=max(max_slots, distinct))
    out = run(s, requests)
    assert not any(o.waited_for_slot for o in out.values())
    assert all(o.ttft_ms <= 12.0 + 1e-9 for o in out.values())


def test_the_model_says_what_it_leaves_out():
    assert len(LEFT_OUT) >= 4 and all(isinstance(x, str) and x for x in LEFT_OUT)
