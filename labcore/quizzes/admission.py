"""The self-check quiz of chapter 13 (in-flight admission): pins and strict FIFO, refusing rather than evicting,
and what a bound on the queue buys.

Question 1 is answered by a real :class:`labcore.admission.AdmissionController`; question 3 quotes one
of the chapter's in-flight runs (:data:`labcore.sim.ADMISSION` at 16 adapter slots).

>>> quiz = admission_quiz()
>>> quiz.grade(0, 3)[0], quiz.grade(0, 2)[1]
(True, '✗ 2 requests counts the slots; the third request is for tenant-01, already resident: a hit needs no room and nobody waits yet, so it is admitted too.')
"""

from __future__ import annotations

from ..admission import AdmissionController
from ..errors import AdapterInUseError, QueueFullError
from ..sim import ADMISSION, Workload, make_trace, simulate, single_replica_router
from ._quiz import Choice, MultipleChoice, Numeric, Quiz

__all__ = ["admission_quiz"]

#: Question 1's burst (slots, queue bound, tenants in arrival order) and question 3's pool: inputs.
SLOTS, MAX_QUEUE = 2, 2
ARRIVALS = (1, 2, 1, 3, 1)
SMALL_POOL = 16


def _burst() -> tuple[int, int, int, float]:
    """Admitted at once, queued and refused for ``ARRIVALS`` when nobody finishes; and the adapter size."""
    w = Workload(tenants=max(ARRIVALS), requests=len(ARRIVALS))  # the simulator's adapters (16 MiB)
    size_mb = w.adapter_mb
    gate = AdmissionController(single_replica_router(w, budget_mb=SLOTS * size_mb), max_queue=MAX_QUEUE)
    refused = 0
    refs = w.model_refs()
    for tenant in ARRIVALS:
        try:
            gate.start(refs[tenant - 1])
        except QueueFullError:
            refused += 1
    return gate.admitted_now, gate.queued, refused, size_mb


def admission_quiz() -> Quiz:
    """Return chapter 13's quiz: what is admitted at once, what happens when only pins could make room, why the
    queue is bounded."""
    admitted, queued, refused, size_mb = _burst()
    a = ADMISSION
    w = Workload(tenants=a.tenants, requests=a.requests, zipf_s=a.zipf_s, rate_per_s=a.rate_per_s, seed=a.seed)
    small = simulate(
        lambda: single_replica_router(w, budget_mb=w.adapter_mb * SMALL_POOL),
        make_trace(w),
        hold_ms=a.hold_ms,
        max_queue=a.max_queue,
        windows=0,
    )
    refused_pct = 100 * small.refused / small.requests
    order = ", ".join(str(t) for t in ARRIVALS[:-1]) + f" and {ARRIVALS[-1]}"
    return Quiz(
        "admission_quiz",
        "Chapter 13: in-flight admission",
        (
            Numeric(
                f"A pool holds {SLOTS} adapters of {size_mb:g} MiB and the admission queue {MAX_QUEUE} requests. Requests "
                f"for tenants {order} arrive in that order, and none finishes. How many are admitted at once?",
                answer=admitted,
                unit="requests",
                rel_tol=0.001,
                explanation=f"Tenants 1 and 2 fill the pool and pin it; the second tenant-01 request is a hit and pins "
                f"tenant-01 again; tenant-03 needs room that only pinned adapters could make, so it waits; the "
                f"last tenant-01 queues behind it (strict FIFO): {admitted} admitted, {queued} waiting, "
                f"{refused} refused.",
                mistakes=(
                    (
                        SLOTS,
                        "counts the slots; the third request is for tenant-01, already resident: a hit needs no room "
                        "and nobody waits yet, so it is admitted too.",
                    ),
                    (
                        admitted + 1,
                        "lets the last tenant-01 request overtake; while tenant-03 waits, strict FIFO queues "
                        "it behind, resident adapter or not.",
                    ),
                    (len(ARRIVALS), "admits everyone; tenant-03 needs room, and only pinned adapters could make it."),
                ),
            ),
            MultipleChoice(
                "Every adapter in the pool has a request in flight, and the admission queue is full. A request for "
                "another tenant arrives. What does AdmissionController do?",
                (
                    Choice(
                        f"Refuses it with {QueueFullError.__name__}, naming what is pinned and how full the queue is",
                        True,
                        "Right: a refusal is visible and can be retried elsewhere; the budget holds, and nothing in "
                        "flight is touched.",
                    ),
                    Choice(
                        "Evicts the least recently used adapter, as chapter 4's cache would",
                        False,
                        f"Not while it is pinned: a request still reading it would answer garbage or crash. The cache "
                        f"refuses with {AdapterInUseError.__name__} and leaves its state unchanged.",
                    ),
                    Choice(
                        "Loads the new adapter over budget until a request finishes",
                        False,
                        "No: the budget is a wall; going over it is an out-of-memory crash for every request in "
                        "flight.",
                    ),
                ),
            ),
            MultipleChoice(
                f"In the chapter's runs a pool of {SMALL_POOL} slots refuses {refused_pct:.0f}% of the requests (queue of "
                f"{a.max_queue}). What would an unbounded queue do there instead?",
                (
                    Choice(
                        "Make the refused requests wait, behind a queue that grows as long as arrivals outpace finishes",
                        True,
                        "Right: the wait of everyone behind grows without bound; a bounded queue turns overload into an "
                        "error a client can retry on another replica.",
                    ),
                    Choice(
                        "Serve them all, each waiting a little longer",
                        False,
                        f"No: the in-flight working set does not fit {SMALL_POOL} slots; those admitted already wait up "
                        f"to {small.max_wait_ms:,.0f} ms, and every refused request would join that line.",
                    ),
                    Choice(
                        "Evict in-flight adapters to drain the queue",
                        False,
                        "Never: in-flight adapters are pinned, whatever the queue does; that is the rule the chapter "
                        "adds.",
                    ),
                ),
            ),
        ),
    )
