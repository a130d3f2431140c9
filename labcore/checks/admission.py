"""Check the admission exercises: requests refused and admitted after a finish (chapter 13)."""

from __future__ import annotations

from ..admission import AdmissionController
from ..errors import QueueFullError
from ..sim import Workload, single_replica_router
from .exercise import Exercise
from .verdict import Verdict, _grade, _printer

__all__ = [
    "grade_refused",
    "grade_admitted_after_finish",
    "check_refused",
    "check_admitted_after_finish",
]


def _burst(slots: int, max_queue: int, arrivals: int) -> tuple[int, int, int]:
    """Admitted at once, queued and refused when ``arrivals`` distinct tenants arrive and nobody finishes."""
    gate = AdmissionController(single_replica_router(arrivals, budget_mb=16.0 * slots), max_queue=max_queue)
    refused = 0
    for ref in Workload(tenants=arrivals, requests=1).model_refs():
        try:
            gate.start(ref)
        except QueueFullError:
            refused += 1
    return gate.admitted_now, gate.queued, refused


def grade_refused(answer: object, *, slots: int = 2, max_queue: int = 2, arrivals: int = 5) -> Verdict:
    """Grade how many of ``arrivals`` distinct-tenant requests are refused when nobody finishes (default 1).

    >>> grade_refused(3).message
    '✗ 3 requests forgets the queue: 2 requests can wait for a finish instead of being refused.'
    """
    now, queued, refused = _burst(slots, max_queue, arrivals)
    mistakes = [
        (arrivals - slots, f"forgets the queue: {max_queue} requests can wait for a finish instead of being refused."),
        (0, f"lets the queue grow past its bound of {max_queue}: the {arrivals}th request finds it full."),
    ]
    return _grade(answer, refused, unit="requests", what="the number refused", mistakes=mistakes,
                  fallback=f"{slots} fit at once (every resident is then pinned), {max_queue} may wait, the rest are refused.",
                  integer=True)


def grade_admitted_after_finish(answer: object, *, slots: int = 2, max_queue: int = 2, arrivals: int = 4) -> Verdict:
    """Grade how many waiting requests one finish admits when every waiter needs its own slot (default 1).

    >>> grade_admitted_after_finish(2).message
    '✗ 2 requests frees more than one finish can: one 16 MiB slot comes free, and the second waiter needs its own.'
    """
    gate = AdmissionController(single_replica_router(arrivals, budget_mb=16.0 * slots), max_queue=max_queue)
    first = [gate.start(ref) for ref in Workload(tenants=arrivals, requests=1).model_refs()][0]
    expected = len(gate.finish(first.ticket))
    mistakes = [
        (max_queue, "frees more than one finish can: one 16 MiB slot comes free, and the second waiter needs its own."),
        (0, "keeps the slot pinned; a finished request releases its pin, so its adapter becomes evictable."),
    ]
    return _grade(answer, expected, unit="requests", what="the number admitted by one finish", mistakes=mistakes,
                  fallback="A finish unpins one adapter; FIFO admits waiters while each one fits.", integer=True)


check_refused = _printer(grade_refused)
check_admitted_after_finish = _printer(grade_admitted_after_finish)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = ()
