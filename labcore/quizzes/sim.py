"""The self-check quiz of chapter 8 (the serving simulator): the nearest-rank budget of misses, what routing by
tenant gives up, and why every number is reproducible.

The run is the course's one customer #41 incident, :func:`labcore.sim.onboarding_timeline` with
:data:`labcore.sim.ONBOARDING`; the rank is :func:`labcore.sim.nearest_rank`, the simulator's own.

>>> quiz = sim_quiz()
>>> quiz.grade(0, 100)[0], quiz.grade(0, 101)[0]
(True, False)
"""

from __future__ import annotations

from ..sim import ONBOARDING, Workload, nearest_rank, onboarding_timeline
from ._quiz import Choice, MultipleChoice, Numeric, Quiz

__all__ = ["sim_quiz"]


def sim_quiz() -> Quiz:
    """Return chapter 8's quiz: how many misses p99 tolerates, the cost of fix 2, where determinism comes from."""
    _, after = onboarding_timeline().phases
    n = after.requests
    rank = nearest_rank(99, n)
    allowed = n - rank
    adapter_mb = Workload(tenants=ONBOARDING.tenants, requests=ONBOARDING.requests).adapter_mb  # the run's adapters
    pool_mb = adapter_mb * ONBOARDING.pool_adapters
    return Quiz(
        "sim_quiz",
        "Chapter 8: the serving simulator",
        (
            Numeric(
                f"After customer #41 joins, the incident's second phase holds {n:,} requests. By nearest rank, at most "
                "how many of them can miss while the p99 stays the latency of a hit?",
                answer=allowed,
                unit="requests",
                rel_tol=0.001,
                explanation=f"p99 is the request at rank ceil(0.99 × {n:,}) = {rank:,}; the {allowed} above it may miss. "
                f"After the join {after.misses} did, so the p99 was a miss.",
                mistakes=(
                    (allowed + 1, f"is one too many: then the request at rank {rank:,} is a miss."),
                    (
                        n / 100,
                        f"is 1% of the requests, not a whole number; count the requests above rank ceil(0.99 × {n:,}).",
                    ),
                    (rank, "is the rank of the p99 itself; the question asks how many requests may sit above it."),
                ),
            ),
            MultipleChoice(
                f"Two replicas, each with a {pool_mb:g} MiB pool, serve {ONBOARDING.tenants} tenants. Round-robin makes "
                "both thrash; sending each tenant to one replica by rendezvous hashing fixes it with no extra VRAM. What "
                "does that fix give up?",
                (
                    Choice(
                        "Balance: whole tenants move, so one replica can carry more requests than the other",
                        True,
                        "Right: the split follows the tenants, not the requests, and a hot tenant can overload its replica "
                        "(chapter 10 bounds that). The bigger pool, fix 1, costs VRAM instead.",
                    ),
                    Choice(
                        "VRAM: each replica needs a bigger pool",
                        False,
                        f"No, that is fix 1; fix 2 keeps the same {pool_mb:g} MiB pools, and each replica holds only its "
                        "own tenants' adapters.",
                    ),
                    Choice(
                        "Hit rate: each replica sees fewer requests, so its cache stays colder",
                        False,
                        f"No: each replica sees about half the tenants, whose adapters fit, so hits rise; round-robin is "
                        f"the one that makes each pool hold all {ONBOARDING.tenants}.",
                    ),
                ),
            ),
            MultipleChoice(
                "Why does every number on chapter 8's page come out the same each time the notebook runs?",
                (
                    Choice(
                        "make_trace draws from random.Random(seed): the same Workload, seed included, always gives the "
                        "same trace",
                        True,
                        "Right: and simulated time is a parameter, never the wall clock, so replaying the same trace "
                        "through the same router gives the same latencies.",
                    ),
                    Choice(
                        "simulate measures real latencies, which are stable on one machine",
                        False,
                        "No: nothing is timed; each latency comes from the router's latency model, so it is the same on "
                        "any machine.",
                    ),
                    Choice(
                        "The Zipf law makes popularity deterministic",
                        False,
                        "Zipf only sets each tenant's share; which tenant each request is for is drawn at random, from "
                        "the seeded generator.",
                    ),
                ),
            ),
        ),
    )
