"""Check the admission exercises: requests refused, waiters admitted by one finish, and how big a pool must be for
nobody to wait (chapter 13).

Exercises 13.1 and 13.2 are bursts the chapter has not shown, answered by a real
:class:`labcore.admission.AdmissionController`; 13.3 is a prediction graded against the chapter's own runs
(:func:`labcore.sim.scenarios.admission.admission_run`, the panel's states).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TypedDict

from ..admission import AdmissionController
from ..errors import QueueFullError
from ..sim import Workload, single_replica_router
from ..sim.scenarios.admission import ADMISSION, ADMISSION_GRID, admission_run
from .exercise import Exercise
from .rules import NumberRule, graded
from .verdict import Mistake, _printer

__all__ = [
    "REFUSED_BURST",
    "FINISH_BURST",
    "LONG_HOLD_MS",
    "grade_refused",
    "grade_admitted_after_finish",
    "grade_no_wait_pool",
    "check_refused",
    "check_admitted_after_finish",
    "check_no_wait_pool",
    "EXERCISES",
]

#: Exercise 13.1: slots in the pool, the queue's bound, and that many requests for as many different tenants.
REFUSED_BURST = {"slots": 3, "max_queue": 2, "arrivals": 8}


class _Burst(TypedDict):
    """A burst's case: slots in the pool, the queue's bound, the tenants of the requests in arrival order."""

    slots: int
    max_queue: int
    arrivals: tuple[int, ...]


#: Exercise 13.2: slots, queue bound, and the tenants of the requests in arrival order (tenant 2 comes back).
FINISH_BURST: _Burst = {"slots": 2, "max_queue": 3, "arrivals": (1, 2, 3, 2, 4)}
#: Exercise 13.3's hold time (ms): twice the chapter's.
LONG_HOLD_MS = 600.0


def _gate(slots: int, max_queue: int, tenants: Sequence[int]) -> tuple[AdmissionController, list, int]:
    """Start a request for each of ``tenants`` (1-based) with nobody finishing: the gate, the tickets, the refusals."""
    w = Workload(tenants=max(tenants), requests=len(tenants))  # the simulator's adapters
    gate = AdmissionController(single_replica_router(w, budget_mb=w.adapter_mb * slots), max_queue=max_queue)
    refs, started, refused = w.model_refs(), [], 0
    for tenant in tenants:
        try:
            started.append(gate.start(refs[tenant - 1]))
        except QueueFullError:
            refused += 1
    return gate, started, refused


def rule_refused(
    *,
    slots: int = REFUSED_BURST["slots"],
    max_queue: int = REFUSED_BURST["max_queue"],
    arrivals: int = REFUSED_BURST["arrivals"],
) -> NumberRule:
    """Grade how many of ``arrivals`` distinct-tenant requests are refused when nobody finishes (default 3).

    >>> print(grade_refused(5).message)
    ✗ 5 requests forgets the queue: 2 requests can wait for a finish instead of being refused.
    """
    _, _, refused = _gate(slots, max_queue, range(1, arrivals + 1))
    mistakes: list[Mistake] = [
        (arrivals - slots, f"forgets the queue: {max_queue} requests can wait for a finish instead of being refused."),
        (arrivals - max_queue, f"forgets the pool: the first {slots} are admitted at once, before anyone queues."),
        (
            0,
            f"lets the queue grow past its bound of {max_queue}: from the {slots + max_queue + 1}th request on, "
            "each finds it full.",
        ),
    ]
    mistakes = [(v, h) for v, h in mistakes if v != refused]
    return NumberRule(
        refused,
        unit="requests",
        what="the number refused",
        mistakes=mistakes,
        fallback=f"{slots} fit at once (every resident is then pinned), {max_queue} may wait, the rest are refused.",
        integer=True,
        singular=True,
    )


def rule_admitted_after_finish(
    *,
    slots: int = FINISH_BURST["slots"],
    max_queue: int = FINISH_BURST["max_queue"],
    arrivals: Sequence[int] = FINISH_BURST["arrivals"],
) -> NumberRule:
    """Grade how many waiting requests the first admitted request's finish admits (default 2).

    >>> print(grade_admitted_after_finish(1).message)
    ✗ 1 request counts one admission per finish; the waiter behind the first is for tenant-02, already resident and pinned by a request in flight: a hit needs no room, so it goes in too.
    """
    gate, started, _ = _gate(slots, max_queue, arrivals)
    waiting = sum(t.waiting for t in started)
    expected = len(gate.finish(started[0].ticket))
    mistakes: list[Mistake] = [
        (
            1,
            "counts one admission per finish; the waiter behind the first is for tenant-02, already resident and "
            "pinned by a request in flight: a hit needs no room, so it goes in too.",
        ),
        (waiting, "admits every waiter; the last one needs a slot of its own, and both residents are pinned again."),
        (0, "keeps the slot pinned; a finished request releases its pin, so its adapter becomes evictable."),
    ]
    mistakes = [(v, h) for v, h in mistakes if v != expected]
    return NumberRule(
        expected,
        unit="requests",
        what="the number admitted by one finish",
        mistakes=mistakes,
        integer=True,
        fallback="A finish unpins one adapter; FIFO admits waiters, in order, while each one "
        "fits (a resident adapter always fits).",
        singular=True,
    )


@functools.lru_cache(maxsize=16)  # a rule is made per verdict; these replay a chapter's runs
def _no_wait_pool(hold_ms: float, max_queue: int) -> int:
    """The smallest pool on the panel's grid at which no request of the chapter's trace waits (0 if none)."""
    return next(
        (
            int(pool)
            for pool in ADMISSION_GRID["pool_adapters"]
            if admission_run(int(pool), hold_ms=hold_ms, max_queue=max_queue).queued == 0
        ),
        0,
    )


def rule_no_wait_pool(*, hold_ms: float = LONG_HOLD_MS, max_queue: int = ADMISSION.max_queue) -> NumberRule:
    """Grade a prediction: the smallest pool (a value of the panel's slider) at which nobody waits, at ``hold_ms``.

    The answer is read from the chapter's runs at every pool size of the panel (default: 36 adapters when each
    request holds its adapter 600 ms past its latency).

    >>> print(grade_no_wait_pool(40).message)
    ✗ 40 adapters is a slot for every tenant; only the adapters in flight at the same moment need one.
    """
    expected = _no_wait_pool(hold_ms, max_queue)
    mistakes: list[Mistake] = [
        (
            _no_wait_pool(ADMISSION.hold_ms, max_queue),
            f"is the answer at the chapter's {ADMISSION.hold_ms:g} ms; a longer hold keeps each adapter pinned longer, "
            "so more distinct adapters are in flight at once.",
        ),
        (ADMISSION.tenants, "is a slot for every tenant; only the adapters in flight at the same moment need one."),
    ]
    mistakes = [(v, h) for v, h in mistakes if v != expected]
    return NumberRule(
        expected,
        unit="adapters",
        what=f"the smallest pool with no wait at {hold_ms:g} ms",
        mistakes=mistakes,
        rel_tol=1e-9,
        integer=True,
        fallback=f"Set the panel's hold time to {hold_ms:g} ms and move the pool: the "
        "waits stop once every adapter in flight at once has a slot.",
        singular=True,
    )


grade_refused = graded(rule_refused)
check_refused = _printer(grade_refused)
grade_admitted_after_finish = graded(rule_admitted_after_finish)
check_admitted_after_finish = _printer(grade_admitted_after_finish)
grade_no_wait_pool = graded(rule_no_wait_pool)
check_no_wait_pool = _printer(grade_no_wait_pool)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = (
    Exercise("13.1", "compute", grade_refused, right=3, wrong=(5, 0), gives_away=("3 refused", "refused=3")),
    Exercise(
        "13.2",
        "compute",
        grade_admitted_after_finish,
        right=2,
        wrong=(1, 3),
        gives_away=("admitted_later=2", "2 admitted"),
    ),
    Exercise(
        "13.3",
        "predict",
        grade_no_wait_pool,
        right=36,
        wrong=(32, 40),
        gives_away=(f"36-adapter pool, adapters held {LONG_HOLD_MS:g} ms",),
        tool="admission_panel",
    ),
)
