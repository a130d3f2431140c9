"""Check the slot exercises: what the slot buffers cost, and how long a request waits behind full slots (chapter 15)."""

from __future__ import annotations

from collections.abc import Sequence

from ..slots import SlotRequest, SlotScheduler, slot_pool_mb
from .exercise import Exercise
from .verdict import Mistake, Verdict, _grade, _printer

__all__ = [
    "SLOT_WAIT_EXERCISE",
    "grade_slot_pool_mb",
    "check_slot_pool_mb",
    "grade_ttft_behind_slots",
    "check_ttft_behind_slots",
]


def grade_slot_pool_mb(answer: object, *, max_slots: int = 8, max_lora_rank: int = 64, adapter_rank: int = 16,
                       hidden: int = 4096, layers: int = 32, targets: int = 2) -> Verdict:
    """Grade the VRAM (MiB) of ``max_slots`` slots at ``max_lora_rank`` serving rank-``adapter_rank`` adapters (512).

    >>> print(grade_slot_pool_mb(128).message)
    ✗ 128 MiB sizes each slot at the adapters' own rank 16; vLLM preallocates every slot at --max-lora-rank (64).
    """
    expected = slot_pool_mb(max_slots, max_lora_rank=max_lora_rank, hidden=hidden, layers=layers, targets=targets)
    own = slot_pool_mb(max_slots, max_lora_rank=adapter_rank, hidden=hidden, layers=layers, targets=targets)
    one = expected / max_slots
    mistakes: list[Mistake] = [
        (own, f"sizes each slot at the adapters' own rank {adapter_rank}; vLLM preallocates every slot at "
              f"--max-lora-rank ({max_lora_rank})."),
        (one, f"is one slot; --max-loras {max_slots} preallocates {max_slots} of them."),
        (own / max_slots, f"is one adapter at its own rank: there are {max_slots} slots, each at rank {max_lora_rank}."),
        (expected / 2, "counts only A or only B: each slot holds both, r x d_in and d_out x r."),
        (expected * 2, "uses 4 bytes per parameter; the slots are in the serving dtype, bf16 (2 bytes)."),
    ]
    return _grade(answer, expected, unit="MiB", what="the VRAM of the slot buffers", mistakes=mistakes,
                  fallback=f"Slots x one adapter at --max-lora-rank: {max_slots} x layers x targets x 2 x r x d "
                           "x 2 bytes.")


#: Two slots; adapters a (200 tokens) and b (100 tokens) arrive at 0 ms, c (1 token) at 10 ms.
SLOT_WAIT_EXERCISE: tuple[tuple[float, str, int], ...] = ((0.0, "a", 200), (0.0, "b", 100), (10.0, "c", 1))


def _ttfts(requests: Sequence[tuple[float, str, int]], max_slots: int, prefill_ms: float, decode_ms: float,
           load_ms: float) -> dict[str, float]:
    s = SlotScheduler(max_slots=max_slots, prefill_ms=prefill_ms, decode_ms_per_token=decode_ms, load_ms=load_ms)
    for i, (at, adapter, tokens) in enumerate(requests):
        s.submit(SlotRequest(i, at, adapter, tokens))
    return {o.request.adapter: o.ttft_ms for o in s.run()}  # type: ignore[misc]


def grade_ttft_behind_slots(answer: object, *, requests: Sequence[tuple[float, str, int]] = SLOT_WAIT_EXERCISE,
                            max_slots: int = 2, prefill_ms: float = 40.0, decode_ms: float = 20.0,
                            load_ms: float = 2.0) -> Verdict:
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
        (finishes[-1] - arrival + load_ms + prefill_ms,
         "waits for the longest request; a slot frees when every request of one adapter has finished, and b's ends first."),
        (expected - load_ms, f"forgets the {load_ms:g} ms copy of c's adapter into the freed slot."),
        (expected - prefill_ms, f"stops at the copy: the first token comes {prefill_ms:g} ms of prefill later."),
        (expected + arrival, f"measures from 0 ms; c arrived at {arrival:g} ms."),
    ]
    return _grade(answer, expected, unit="ms", what="the time to first token of the last request", mistakes=mistakes,
                  fallback="A slot frees when the shorter of the two adapters' requests ends (copy + prefill + "
                           "(tokens - 1) x decode); then c pays the copy and its prefill.", rel_tol=1e-4)


check_slot_pool_mb = _printer(grade_slot_pool_mb)
check_ttft_behind_slots = _printer(grade_ttft_behind_slots)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = ()
