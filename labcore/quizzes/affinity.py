"""The self-check quiz of chapter 10 (tenant-affinity routing): what hash mod R moves on a resize, why spraying
thrashes, where bounded-load rendezvous sends the overflow.

The moved fractions are measured with :func:`labcore.affinity.moved_fraction` over the chapter's
1,000 tenants; the fleet's shape is :data:`labcore.sim.scenarios.affinity.AFFINITY_DEFAULTS` and the defaults of
:func:`labcore.sim.scenarios.affinity.affinity_runs`.

>>> quiz = affinity_quiz()
>>> quiz.grade(0, 0.8)[0], quiz.grade(0, 0.2)[0]
(True, False)
"""

from __future__ import annotations

import inspect

from ..affinity import modulo_owner, moved_fraction, replica_names
from ..sim.scenarios.affinity import AFFINITY_DEFAULTS, affinity_runs
from ._quiz import Choice, MultipleChoice, Numeric, Quiz

__all__ = ["affinity_quiz"]

#: The chapter's resize: 1,000 tenants, 4 replicas growing to 5.
KEYS = tuple(f"tenant-{i:04d}" for i in range(1000))
BEFORE = 4


def affinity_quiz() -> Quiz:
    """Return chapter 10's quiz: the resize cost of hash mod R, the spraying trap, the bounded-load overflow."""
    before, after = replica_names(BEFORE), replica_names(BEFORE + 1)
    modulo = moved_fraction(KEYS, before, after, owner=modulo_owner)
    rendezvous = moved_fraction(KEYS, before, after)
    replicas, cache_adapters = AFFINITY_DEFAULTS["replicas"], AFFINITY_DEFAULTS["cache_adapters"]
    c = AFFINITY_DEFAULTS["load_factor"]
    tenants = inspect.signature(affinity_runs).parameters["tenants"].default  # the chapter's trace
    return Quiz(
        "affinity_quiz",
        "Chapter 10: tenant-affinity routing",
        (
            Numeric(
                f"Tenants are placed by hash mod R, the naive way. The fleet grows from {BEFORE} to {BEFORE + 1} "
                f"replicas. About what fraction of {len(KEYS):,} tenants change replica? Answer with a fraction between "
                "0 and 1, to one decimal.",
                answer=modulo,
                unit="fraction",
                rel_tol=0.05,
                explanation=f"{modulo:.3f} measured: a tenant stays only where hash mod {BEFORE} and hash mod "
                f"{BEFORE + 1} agree, so about {BEFORE}/{BEFORE + 1} move, each paying a cold load on its new "
                f"replica. Rendezvous hashing moves {rendezvous:.3f}.",
                mistakes=(
                    (
                        rendezvous,
                        "is what rendezvous hashing moves (only the tenants the new replica now wins); hash "
                        "mod R reshuffles almost everyone.",
                    ),
                    (100 * modulo, "is a percentage; the question asks for a fraction between 0 and 1."),
                    (
                        1 / BEFORE,
                        f"is 1/R; hash mod R moves far more: a tenant stays only where its hash leaves the "
                        f"same remainder mod {BEFORE} and mod {BEFORE + 1}.",
                    ),
                ),
            ),
            MultipleChoice(
                f"Round-robin spreads chapter 10's load evenly over {replicas} replicas, each caching {cache_adapters} "
                "adapters. Why is its hit rate so low?",
                (
                    Choice(
                        f"Every replica sees all {tenants} tenants with room for {cache_adapters}",
                        True,
                        f"Right: even load means every tenant on every replica, so each cache thrashes; a home replica "
                        f"per tenant (rendezvous) leaves each cache about {tenants // replicas} tenants, which fit.",
                    ),
                    Choice(
                        "It sends the hot tenant's requests to one replica",
                        False,
                        "No, that is plain rendezvous's problem; round-robin sends every tenant everywhere.",
                    ),
                    Choice(
                        "Its misses load from the object store, which is slow",
                        False,
                        "That sets what a miss costs, not how often one happens; every policy here loads its misses from "
                        "the same object store.",
                    ),
                ),
            ),
            MultipleChoice(
                f"Under bounded-load rendezvous (c = {c:g}), a request finds its tenant's home replica at its cap, "
                "ceil(c × (L + 1) / R) requests in flight. Where does it go?",
                (
                    Choice(
                        "To the next replica in the tenant's rendezvous ranking that is under the cap",
                        True,
                        "Right: only the overflow moves, and always down the same ranking, so the second choice keeps "
                        "the hot adapter warm too.",
                    ),
                    Choice(
                        "To whichever replica is least loaded right now",
                        False,
                        "That scatters the hot tenant over every replica, and every cache must then hold its adapter: "
                        "the spraying problem again.",
                    ),
                    Choice(
                        "Nowhere: it waits at its home replica for a slot",
                        False,
                        "That is plain rendezvous under a hot tenant: the queue builds on one replica, and the p99 with "
                        "it.",
                    ),
                ),
            ),
        ),
    )
