"""Check the slot exercises: what the slot buffers cost, and how long a request waits behind full slots (chapter 15)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..model_config import load_model_config
from ..sim.scenarios.slots import SLOT_CLIFF, slot_run
from ..sizing import adapter_vram_mb
from ..slots import SlotRequest, SlotScheduler, slot_pool_mb
from .exercise import Exercise
from .rules import NumberRule, graded
from .verdict import Mistake, _close, _printer

_DECODER = ("qkv_proj", "o_proj", "gate_up_proj", "down_proj")

__all__ = [
    "SLOT_WAIT_EXERCISE",
    "grade_slot_pool_mb",
    "check_slot_pool_mb",
    "grade_ttft_behind_slots",
    "check_ttft_behind_slots",
    "grade_base_slots",
    "check_base_slots",
    "fewest_slots_without_wait",
]


def rule_slot_pool_mb(
    *,
    max_slots: int = 8,
    max_lora_rank: int = 64,
    adapter_rank: int = 16,
    model: str = "llama-3-8b",
    adapter_targets: Sequence[str] = ("q_proj", "v_proj"),
    target_modules: Sequence[str] | None = None,
) -> NumberRule:
    """Grade the MiB of vLLM's slot buffers: ``max_slots`` slots at ``max_lora_rank`` over every module it wraps.

    The expected value is :func:`labcore.slots.slot_pool_mb` (:func:`labcore.engines.lora_slot_bytes`); the
    adapters' own rank and targets are what the likely mistakes use.

    >>> print(grade_slot_pool_mb(512).message)
    ✗ 512 MiB is the square formula over the adapters' own targets (q_proj, v_proj): vLLM allocates at load, before any adapter arrives, for every module the model supports (no --lora-target-modules set), with the packed shapes.
    """
    cfg = load_model_config(model)
    expected = slot_pool_mb(max_slots, max_lora_rank=max_lora_rank, model=cfg, target_modules=target_modules)
    own = slot_pool_mb(max_slots, max_lora_rank=adapter_rank, model=cfg, target_modules=target_modules)
    square = max_slots * adapter_vram_mb(max_lora_rank, cfg.hidden_size, cfg.num_hidden_layers, len(adapter_targets))
    named = ", ".join(adapter_targets)
    decoder = (
        slot_pool_mb(max_slots, max_lora_rank=max_lora_rank, model=cfg, target_modules=_DECODER)
        if target_modules is None
        else expected
    )
    packed = slot_pool_mb(max_slots, max_lora_rank=max_lora_rank, model=cfg, target_modules=list(adapter_targets))
    candidates: list[Mistake] = [
        (
            square,
            f"is the square formula over the adapters' own targets ({named}): vLLM allocates at load, before "
            "any adapter arrives, for every module the model supports (no --lora-target-modules set), with "
            "the packed shapes.",
        ),
        (
            square * adapter_rank / max_lora_rank,
            f"is the square formula at the adapters' own rank {adapter_rank}: "
            "the slots are sized at --max-lora-rank, over every supported module.",
        ),
        (
            own,
            f"sizes each slot at the adapters' own rank {adapter_rank}; vLLM preallocates every slot at "
            f"--max-lora-rank ({max_lora_rank}).",
        ),
        (
            decoder,
            f"counts the decoder layers only; vLLM's {cfg.model_type} model class also wraps embed_tokens and "
            f"lm_head ({expected - decoder:,.1f} MiB more).",
        ),
        (
            packed,
            f"counts only the modules the adapters target ({named}, packed); with no --lora-target-modules "
            "vLLM wraps o_proj, gate_up_proj and down_proj as well.",
        ),
        (expected / max_slots, f"is one slot; --max-loras {max_slots} preallocates {max_slots} of them."),
        (expected * 2, "uses 4 bytes per parameter; the slots are in the serving dtype, bf16 (2 bytes)."),
    ]
    mistakes = [
        (v, h)
        for i, (v, h) in enumerate(candidates)
        if not _close(v, expected, 1e-9) and not any(_close(v, w, 1e-9) for w, _ in candidates[:i])
    ]
    return NumberRule(
        expected,
        unit="MiB",
        what="the VRAM of the slot buffers",
        mistakes=mistakes,
        fallback="Slots x, per decoder layer and slice, A (r x input) + B (output x r) at --max-lora-rank, "
        "over every supported module (qkv_proj with k and v at the grouped-query width, o_proj, "
        "gate_up_proj at the intermediate size, down_proj), plus embed_tokens and lm_head, at 2 "
        "bytes: labcore.engines.lora_buffers lists them.",
    )


def rule_base_slots(*, adapters: int = 8, base_share: float = 0.2) -> NumberRule:
    """Grade a prediction of the fewest slots with which no request waits, under SGLang's rule (default: 9).

    The trace is chapter 15's (:data:`labcore.sim.scenarios.slots.SLOT_CLIFF`) with ``adapters`` adapters and a
    ``base_share`` of the requests for the bare base model; the answer comes from replaying it.

    >>> print(grade_base_slots(8).message)
    ✗ 8 slots is vLLM's rule, where a base request needs no slot; SGLang counts the base model's None among the batch's adapter ids, so base requests take a slot too.
    """
    expected = fewest_slots_without_wait(adapters, base_share)
    mistakes: list[Mistake] = [
        (
            adapters,
            "is vLLM's rule, where a base request needs no slot; SGLang counts the base model's None among "
            "the batch's adapter ids, so base requests take a slot too.",
        ),
        (
            2 * adapters,
            "doubles the slots; one more is enough: the base is one more id in the batch, not one per adapter.",
        ),
        (
            adapters - 1,
            f"is how many adapters SGLang lets you pin with {adapters} slots; the question is how many "
            "slots keep every request from waiting.",
        ),
    ]
    return NumberRule(
        expected,
        unit="slots",
        what="the fewest slots with which no request waits",
        mistakes=mistakes,
        integer=True,
        rel_tol=1e-9,
        fallback="Count the distinct ids a batch can hold at once: every adapter, and the base model's "
        "None under SGLang's rule.",
    )


def fewest_slots_without_wait(adapters: int, base_share: float, *, base_takes_slot: bool = True) -> int:
    """Return the fewest slots with which no request of chapter 15's trace waits (``adapters`` active, some to the base).

    >>> fewest_slots_without_wait(8, 0.2), fewest_slots_without_wait(8, 0.2, base_takes_slot=False)
    (9, 8)
    """
    scenario = replace(SLOT_CLIFF, active_adapters=adapters, base_share=base_share, base_takes_slot=base_takes_slot)
    slots = 1
    while slot_run(scenario, max_slots=slots).waited:
        slots += 1
    return slots


#: Two slots; adapters a (200 tokens) and b (100 tokens) arrive at 0 ms, c (1 token) at 10 ms.
SLOT_WAIT_EXERCISE: tuple[tuple[float, str, int], ...] = ((0.0, "a", 200), (0.0, "b", 100), (10.0, "c", 1))


def _ttfts(
    requests: Sequence[tuple[float, str, int]], max_slots: int, prefill_ms: float, decode_ms: float, load_ms: float
) -> dict[str, float]:
    s = SlotScheduler(max_slots=max_slots, prefill_ms=prefill_ms, decode_ms_per_token=decode_ms, load_ms=load_ms)
    for i, (at, adapter, tokens) in enumerate(requests):
        s.submit(SlotRequest(id=i, arrival_ms=at, adapter=adapter, output_tokens=tokens))
    return {o.request.adapter: o.ttft_ms for o in s.run()}  # type: ignore[misc]


def rule_ttft_behind_slots(
    *,
    requests: Sequence[tuple[float, str, int]] = SLOT_WAIT_EXERCISE,
    max_slots: int = 2,
    prefill_ms: float = 40.0,
    decode_ms: float = 20.0,
    load_ms: float = 2.0,
) -> NumberRule:
    """Grade the time to first token (ms) of the last request of ``requests`` when its adapter holds no slot (2054).

    >>> print(grade_ttft_behind_slots(42).message)
    ✗ 42 ms ignores the slot limit: a and b hold both slots, so c waits until one of them frees.
    """
    ttft = _ttfts(requests, max_slots, prefill_ms, decode_ms, load_ms)
    *first, (arrival, last, _) = requests
    expected = ttft[last]
    finishes = sorted(at_ms + load_ms + prefill_ms + (n - 1) * decode_ms for at_ms, _, n in first)
    mistakes: list[Mistake] = [
        (load_ms + prefill_ms, "ignores the slot limit: a and b hold both slots, so c waits until one of them frees."),
        (
            finishes[-1] - arrival + load_ms + prefill_ms,
            "waits for the longest request; a slot frees when every request of one adapter has finished, and b's ends first.",
        ),
        (expected - load_ms, f"forgets the {load_ms:g} ms copy of c's adapter into the freed slot."),
        (expected - prefill_ms, f"stops at the copy: the first token comes {prefill_ms:g} ms of prefill later."),
        (expected + arrival, f"measures from 0 ms; c arrived at {arrival:g} ms."),
    ]
    return NumberRule(
        expected,
        unit="ms",
        what="the time to first token of the last request",
        mistakes=mistakes,
        fallback="A slot frees when the shorter of the two adapters' requests ends (copy + prefill + "
        "(tokens - 1) x decode); then c pays the copy and its prefill.",
        rel_tol=1e-4,
    )


grade_slot_pool_mb = graded(rule_slot_pool_mb)
check_slot_pool_mb = _printer(grade_slot_pool_mb)
grade_ttft_behind_slots = graded(rule_ttft_behind_slots)
check_ttft_behind_slots = _printer(grade_ttft_behind_slots)
grade_base_slots = graded(rule_base_slots)
check_base_slots = _printer(grade_base_slots)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "15.1",
        "compute",
        grade_slot_pool_mb,
        right=slot_pool_mb(8, max_lora_rank=64),
        wrong=(512.0, slot_pool_mb(8, max_lora_rank=16), 2560.0),
        gives_away=("2,818.5", "2818.5", "2,819 MiB", "2,818 MiB"),
    ),
    Exercise(
        "15.2",
        "compute",
        grade_ttft_behind_slots,
        right=2054.0,
        wrong=(42.0, 4054.0, 2052.0),
        gives_away=("2,054 ms", "2054 ms", "2,054"),
    ),
    Exercise(
        "15.4",
        "predict",
        grade_base_slots,
        right=9,
        wrong=(8, 16),
        gives_away=("9 slots", "nine slots", "--max-loras-per-batch 9"),
        tool="slot_run",
    ),
)
