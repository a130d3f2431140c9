"""Chapter 11's canary: a seeded rollout of support-bot 2.0.0 against 1.10.0 through a real controller.

Each simulated version behaves as its :class:`VersionBehaviour` says (true error rate, latency, eval
score); :func:`simulate_canary` sends seeded users through the sticky split and returns the
:class:`labcore.canary.CanaryController`'s decision log.

>>> [d.action for d in canary_log(5.0)][-1]
'abort'
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..._validate import count, fraction, number
from ...canary import DEFAULT_RAMP, CanaryController, CanaryDecision, CanarySplit, CanaryThresholds
from ...hashing import unit_hash

__all__ = ["VersionBehaviour", "simulate_canary", "canary_log"]


@dataclass(frozen=True, slots=True)
class VersionBehaviour:
    """How a version behaves in a simulation: its true error rate, latency and eval score.

    Latency is ``base_latency_ms`` times a lognormal factor with ``latency_sigma``; the eval score
    of a scored request is 1 with probability ``quality`` (an exact-match style eval), else 0.
    """

    error_rate: float = 0.005
    base_latency_ms: float = 42.0
    latency_sigma: float = 0.25
    quality: float = 0.90

    def __post_init__(self) -> None:
        fraction("error_rate", self.error_rate)
        fraction("quality", self.quality)
        number("base_latency_ms", self.base_latency_ms)
        number("latency_sigma", self.latency_sigma, inclusive=True)


def simulate_canary(
    candidate: VersionBehaviour,
    *,
    stable: VersionBehaviour = VersionBehaviour(),
    requests: int = 40_000,
    evaluate_every: int = 2_000,
    score_share: float = 0.25,
    users: int = 20_000,
    thresholds: CanaryThresholds | None = None,
    ramp: Sequence[float] = DEFAULT_RAMP,
    seed: int = 0,
    tenant: str = "support-bot",
    stable_version: str = "1.10.0",
    candidate_version: str = "2.0.0",
) -> list[CanaryDecision]:
    """Run a seeded canary rollout and return its decision log.

    Each request comes from one of ``users`` user keys (uniformly, seeded), goes to the version the
    sticky split picks, and fails, takes time and (for ``score_share`` of requests) scores
    according to that version's :class:`VersionBehaviour`. The controller evaluates every
    ``evaluate_every`` requests until it completes or aborts (or the requests run out).

    >>> log = simulate_canary(VersionBehaviour(error_rate=0.03), requests=20_000, seed=1)
    >>> [d.action for d in log]
    ['hold', 'hold', 'abort']
    """
    count("requests", requests)
    count("evaluate_every", evaluate_every)
    count("users", users)
    fraction("score_share", score_share)
    rng = random.Random(seed)
    split = CanarySplit(tenant=tenant, stable=stable_version, candidate=candidate_version, fraction=ramp[0])
    ctl = CanaryController(split, thresholds=thresholds, ramp=ramp)
    behaviour = {stable_version: stable, candidate_version: candidate}
    # Each user's place in [0, 1) depends only on the user key and the tenant, so it is hashed once per
    # (users, tenant), not once per request: ``hashes[u] < fraction`` is ``split.in_canary(f"user-{u}")``.
    hashes = _user_hashes(users, tenant)
    getrandbits, bits = rng.getrandbits, users.bit_length()
    for i in range(1, requests + 1):
        u = getrandbits(bits)  # rng.randrange(users), inlined (the same draws, without two calls per request)
        while u >= users:
            u = getrandbits(bits)
        version = candidate_version if hashes[u] < ctl.split.fraction else stable_version
        b = behaviour[version]
        latency = (
            b.base_latency_ms * math.exp(rng.gauss(0.0, b.latency_sigma)) if b.latency_sigma else b.base_latency_ms
        )
        error = rng.random() < b.error_rate
        score = (1.0 if rng.random() < b.quality else 0.0) if rng.random() < score_share else None
        ctl.observe(version, latency_ms=latency, error=error, score=score)
        if i % evaluate_every == 0:
            ctl.evaluate()
            if ctl.state != "running":
                break
    return list(ctl.log)


@functools.lru_cache(maxsize=4)
def _user_hashes(users: int, tenant: str) -> tuple[float, ...]:
    """Return ``unit_hash(f"user-{i}", salt=tenant)`` for every user: where each user falls in the sticky split."""
    return tuple(unit_hash(f"user-{i}", salt=tenant) for i in range(users))


def canary_log(
    candidate_error_pct: float = 0.5,
    candidate_latency_ms: float = 42.0,
    candidate_quality: float = 0.90,
    *,
    requests: int = 40_000,
    seed: int = 0,
) -> list[CanaryDecision]:
    """Simulate chapter 11's canary of support-bot 2.0.0 against 1.10.0 and return the decision log.

    >>> canary_log(5.0)[-1].action
    'abort'
    """
    candidate = VersionBehaviour(
        error_rate=candidate_error_pct / 100.0, base_latency_ms=candidate_latency_ms, quality=candidate_quality
    )
    return simulate_canary(candidate, requests=requests, seed=seed)
