"""Canary a new adapter version: send a sticky slice of a tenant's traffic to it, then promote or abort.

A new adapter version can be worse in ways no registry check catches (it answers, fluently, and
wrongly). So it gets a small, sticky share of real traffic first: each request key (a user or
session id) hashes to a stable point in [0, 1), and keys below the canary fraction go to the
candidate. Sticky means a user does not flip between versions mid-conversation, and raising the
fraction only adds keys, it never moves a key back. A :class:`CanaryController` compares the
candidate's observed metrics with the stable version's against explicit thresholds, after a
minimum sample, and records every decision with its reason.

>>> split = CanarySplit("support-bot", stable="1.10.0", candidate="2.0.0", fraction=0.05)
>>> split.version_for("user-17"), split.version_for("user-17")     # sticky
('1.10.0', '1.10.0')
>>> split.ref_for("user-17", base="llama-3-8b")
'llama-3-8b:support-bot@1.10.0'
>>> sum(split.version_for(f"user-{i}") == "2.0.0" for i in range(10_000)) / 10_000
0.0483

Chapter 11's seeded rollout (simulated versions through a real controller) is :mod:`labcore.sim.scenarios.canary`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ._validate import choice, count, number, text
from ._validate import fraction as _fraction  # ``fraction`` is a field and an argument name here
from .hashing import unit_hash
from .refs import REF_SEPARATORS, ModelRef
from .versions import parse_version

__all__ = [
    "PROMOTE",
    "HOLD",
    "ABORT",
    "COMPLETE",
    "ACTIONS",
    "DEFAULT_RAMP",
    "CanarySplit",
    "VersionMetrics",
    "CanaryThresholds",
    "CanaryDecision",
    "CanaryController",
    "decision_table",
]

PROMOTE = "promote"
HOLD = "hold"
ABORT = "abort"
COMPLETE = "complete"
ACTIONS = (PROMOTE, HOLD, ABORT, COMPLETE)
DEFAULT_RAMP: tuple[float, ...] = (0.05, 0.25, 0.50, 1.0)


@dataclass(frozen=True, slots=True)
class CanarySplit:
    """Split one tenant's traffic between a stable and a candidate version, sticky per request key.

    A key goes to the candidate when ``unit_hash(key, salt=tenant) < fraction``, so the same key
    always gets the same version at a given fraction, and a larger fraction keeps every key that
    was already on the candidate.
    """

    tenant: str
    stable: str
    candidate: str
    fraction: float

    def __post_init__(self) -> None:
        text("tenant", self.tenant)
        if any(sep in self.tenant for sep in REF_SEPARATORS):
            raise ValueError(f"tenant must be an adapter name without ':' or '@', got {self.tenant!r}")
        parse_version(self.stable)
        parse_version(self.candidate)
        if self.stable == self.candidate:
            raise ValueError(f"stable and candidate must differ, both are {self.stable!r}")
        object.__setattr__(self, "fraction", _fraction("canary fraction", self.fraction))

    def in_canary(self, request_key: str) -> bool:
        """Return whether ``request_key`` is served by the candidate version."""
        return unit_hash(request_key, salt=self.tenant) < self.fraction

    def version_for(self, request_key: str) -> str:
        """Return the version that serves ``request_key``."""
        return self.candidate if self.in_canary(request_key) else self.stable

    def model_ref(self, request_key: str, *, base: str) -> ModelRef:
        """Return the pinned model ref to route ``request_key`` with, as the router reads it.

        >>> CanarySplit("support-bot", "1.10.0", "2.0.0", 1.0).model_ref("user-17", base="llama-3-8b").semver
        (2, 0, 0)
        """
        return ModelRef(base, self.tenant, self.version_for(request_key))

    def ref_for(self, request_key: str, *, base: str) -> str:
        """Return the text of the pinned model ref (``base:tenant@version``) to route ``request_key`` with."""
        return self.model_ref(request_key, base=base).text

    def with_fraction(self, fraction: float) -> CanarySplit:
        """Return the same split at another canary fraction."""
        return replace(self, fraction=fraction)


@dataclass(frozen=True, slots=True)
class VersionMetrics:
    """What one version did in the current observation window: requests, errors, p99 latency, eval score.

    ``eval_score`` is the mean of whatever per-request quality score is sampled (an LLM-judge or
    exact-match eval, 0..1), over ``scored`` requests; ``None`` when nothing was scored.
    """

    version: str
    requests: int
    errors: int
    p99_ms: float
    eval_score: float | None = None
    scored: int = 0
    score_variance: float = 0.0

    def __post_init__(self) -> None:
        if self.requests < 0 or not 0 <= self.errors <= self.requests:
            raise ValueError(f"{self.version}: need 0 <= errors <= requests, got {self.errors} of {self.requests}")
        number(f"{self.version}: p99_ms", self.p99_ms, inclusive=True)

    @property
    def error_rate(self) -> float:
        """Errors over requests (0.0 with no requests)."""
        return self.errors / self.requests if self.requests else 0.0


@dataclass(frozen=True, slots=True)
class CanaryThresholds:
    """When a candidate may be promoted: a minimum sample, then no metric worse than allowed.

    * ``min_requests``: both versions need at least this many requests in the window;
    * ``max_error_rate_increase``: candidate error rate may exceed stable's by at most this (absolute);
    * ``max_p99_ratio``: candidate p99 may be at most this multiple of stable's;
    * ``max_score_drop``: candidate eval score may be at most this much below stable's (absolute);
    * ``min_scored``: scored requests needed per version before the eval score is trusted;
    * ``z``: how many standard errors of the observed difference count as evidence. A rate or
      score difference aborts only when even ``difference - z*se`` breaks its limit, and promotes
      only when ``difference + z*se`` stays within it; in between the controller holds for more
      data (1.645 is a one-sided 95% bound). With ``z=0`` the thresholds apply to raw point
      estimates, which on small samples aborts good candidates by chance.
    """

    min_requests: int = 200
    max_error_rate_increase: float = 0.01
    max_p99_ratio: float = 1.20
    max_score_drop: float = 0.05
    min_scored: int = 50
    z: float = 1.645

    def __post_init__(self) -> None:
        count("min_requests", self.min_requests)
        count("min_scored", self.min_scored)
        _fraction("max_error_rate_increase", self.max_error_rate_increase)
        _fraction("max_score_drop", self.max_score_drop)
        number("max_p99_ratio", self.max_p99_ratio, minimum=1.0, inclusive=True)
        number("z", self.z, inclusive=True)  # standard errors of evidence


@dataclass(frozen=True, slots=True)
class CanaryDecision:
    """One entry of the decision log: what the controller decided, at which fraction, and why."""

    step: int
    action: str
    fraction_before: float
    fraction_after: float
    reason: str
    candidate: VersionMetrics
    stable: VersionMetrics
    at_request: int = 0

    def __post_init__(self) -> None:
        choice("action", self.action, ACTIONS)
        if not self.reason:
            raise ValueError("every canary decision needs a reason")


class _Window:
    """Per-version observations since the last fraction change."""

    __slots__ = ("latencies", "errors", "score_sum", "score_sq", "scored")

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.errors = 0
        self.score_sum = 0.0
        self.score_sq = 0.0
        self.scored = 0

    def metrics(self, version: str) -> VersionMetrics:
        lat = sorted(self.latencies)
        p99 = lat[max(1, math.ceil(0.99 * len(lat))) - 1] if lat else 0.0
        n = self.scored
        score = self.score_sum / n if n else None
        variance = max(0.0, (self.score_sq - n * score * score) / (n - 1)) if n > 1 and score is not None else 0.0
        return VersionMetrics(
            version=version,
            requests=len(lat),
            errors=self.errors,
            p99_ms=p99,
            eval_score=score,
            scored=n,
            score_variance=variance,
        )


class CanaryController:
    """Observe both versions of a canary and promote, hold or abort it against explicit thresholds.

    Call :meth:`observe` for every finished request and :meth:`evaluate` whenever you want a
    decision (e.g. every N requests). A promotion moves the split to the next ``ramp`` step and
    starts a fresh observation window; the promotion that reaches 100% completes the rollout
    (``"complete"``). An abort sends all traffic back to stable (fraction 0). Every decision, holds included, lands in ``log``.

    >>> ctl = CanaryController(CanarySplit("support-bot", "1.10.0", "2.0.0", 0.05),
    ...                        thresholds=CanaryThresholds(min_requests=3, min_scored=1))
    >>> for v in ("1.10.0", "2.0.0") * 3:
    ...     ctl.observe(v, latency_ms=42.0, error=(v == "2.0.0"))
    >>> d = ctl.evaluate()
    >>> d.action, ctl.split.fraction
    ('abort', 0.0)
    >>> d.reason
    'error rate 100.00% on 2.0.0 vs 0.00% on 1.10.0 (+100.00 ± 53.73 points, allowed +1.00)'
    """

    def __init__(
        self,
        split: CanarySplit,
        *,
        thresholds: CanaryThresholds | None = None,
        ramp: Sequence[float] = DEFAULT_RAMP,
    ) -> None:
        ramp = tuple(_fraction("ramp step", f) for f in ramp)
        if not ramp or list(ramp) != sorted(set(ramp)) or ramp[-1] != 1.0:
            raise ValueError(f"ramp must be strictly increasing fractions ending at 1.0, got {ramp!r}")
        if split.fraction not in ramp[:-1]:
            raise ValueError(f"the split's fraction {split.fraction!r} must be a ramp step below 100%: {ramp[:-1]!r}")
        self.split = split
        self.thresholds = thresholds or CanaryThresholds()
        self.ramp = ramp
        self.log: list[CanaryDecision] = []
        self.state = "running"
        self.observed = 0
        self._windows = {split.stable: _Window(), split.candidate: _Window()}

    def observe(self, version: str, *, latency_ms: float, error: bool = False, score: float | None = None) -> None:
        """Record one finished request served by ``version`` (stable or candidate)."""
        window = self._windows.get(version)
        if window is None:
            raise ValueError(f"version {version!r} is not in this canary; expected one of {sorted(self._windows)}")
        number("latency_ms", latency_ms, inclusive=True)
        window.latencies.append(float(latency_ms))
        window.errors += bool(error)
        if score is not None:
            window.score_sum += float(score)
            window.score_sq += float(score) ** 2
            window.scored += 1
        self.observed += 1

    def metrics(self) -> tuple[VersionMetrics, VersionMetrics]:
        """Return ``(candidate, stable)`` metrics for the current window."""
        s = self.split
        return self._windows[s.candidate].metrics(s.candidate), self._windows[s.stable].metrics(s.stable)

    def evaluate(self) -> CanaryDecision:
        """Decide promote, hold or abort from the current window, apply it, log it and return it."""
        if self.state != "running":
            raise ValueError(f"this canary is already {self.state}; start a new controller for another rollout")
        cand, stab = self.metrics()
        action, reason = self._judge(cand, stab)
        before = self.split.fraction
        after = before
        if action == ABORT:
            after = 0.0
            self.state = "aborted"
        elif action == PROMOTE:
            after = self.ramp[self.ramp.index(before) + 1]
            if after == 1.0:
                action, self.state = COMPLETE, "complete"
                reason = (
                    f"{reason}; ramp {before:.0%} -> 100%: rollout complete, {self.split.candidate} is the new stable"
                )
            else:
                reason = f"{reason}; ramp {before:.0%} -> {after:.0%}"
        if after != before:
            self.split = self.split.with_fraction(after)
            self._windows = {self.split.stable: _Window(), self.split.candidate: _Window()}
        decision = CanaryDecision(
            step=len(self.log) + 1,
            action=action,
            fraction_before=before,
            fraction_after=after,
            reason=reason,
            candidate=cand,
            stable=stab,
            at_request=self.observed,
        )
        self.log.append(decision)
        return decision

    def _judge(self, cand: VersionMetrics, stab: VersionMetrics) -> tuple[str, str]:
        t = self.thresholds
        short = [m for m in (cand, stab) if m.requests < t.min_requests]
        if short:
            need = ", ".join(f"{m.version} has {m.requests}" for m in short)
            return HOLD, f"too few requests to judge: {need} of the {t.min_requests} needed"
        aborts: list[str] = []
        waits: list[str] = []
        notes: list[str] = []
        # Error rate: a difference of proportions; the variance uses (errors+1)/(n+2) so 0 errors is not certainty.
        rate_c, rate_s = cand.error_rate, stab.error_rate
        increase = rate_c - rate_s
        se = math.sqrt(
            _smoothed_var(cand.errors, cand.requests) / cand.requests
            + _smoothed_var(stab.errors, stab.requests) / stab.requests
        )
        text = (
            f"error rate {rate_c:.2%} on {cand.version} vs {rate_s:.2%} on {stab.version} "
            f"({increase * 100:+.2f} ± {t.z * se * 100:.2f} points, allowed +{t.max_error_rate_increase * 100:.2f})"
        )
        _sort_evidence(
            increase,
            t.z * se,
            t.max_error_rate_increase,
            text,
            f"errors {rate_c:.2%} vs {rate_s:.2%}",
            aborts,
            waits,
            notes,
        )
        # Latency tail: a point comparison of p99 over at least min_requests each.
        if stab.p99_ms > 0 and cand.p99_ms > t.max_p99_ratio * stab.p99_ms:
            aborts.append(
                f"p99 {cand.p99_ms:.1f} ms on {cand.version} vs {stab.p99_ms:.1f} ms on {stab.version}: "
                f"x{cand.p99_ms / stab.p99_ms:.2f} > allowed x{t.max_p99_ratio:.2f}"
            )
        else:
            notes.append(f"p99 {cand.p99_ms:.1f} vs {stab.p99_ms:.1f} ms")
        # Quality: a difference of mean eval scores, once both versions have enough scored requests.
        if cand.scored >= t.min_scored and stab.scored >= t.min_scored:
            drop = stab.eval_score - cand.eval_score  # type: ignore[operator]
            se = math.sqrt(cand.score_variance / cand.scored + stab.score_variance / stab.scored)
            text = (
                f"eval score {cand.eval_score:.3f} on {cand.version} vs {stab.eval_score:.3f} on {stab.version} "
                f"(drop {drop:+.3f} ± {t.z * se:.3f}, allowed {t.max_score_drop:.3f})"
            )
            _sort_evidence(
                drop,
                t.z * se,
                t.max_score_drop,
                text,
                f"eval {cand.eval_score:.3f} vs {stab.eval_score:.3f}",
                aborts,
                waits,
                notes,
            )
        else:
            waits.append(
                f"too few scored requests: {cand.version} has {cand.scored}, {stab.version} has "
                f"{stab.scored} of the {t.min_scored} needed"
            )
        if aborts:
            return ABORT, "; ".join(aborts)
        if waits:
            return HOLD, "not enough evidence yet: " + "; ".join(waits)
        return PROMOTE, f"healthy over {cand.requests} requests: " + ", ".join(notes)


def _sort_evidence(
    harm: float,
    margin: float,
    allowed: float,
    text: str,
    note: str,
    aborts: list[str],
    waits: list[str],
    notes: list[str],
) -> None:
    """File one comparison: abort if even ``harm - margin`` exceeds ``allowed``, wait if ``harm + margin`` does."""
    if harm - margin > allowed:
        aborts.append(text)
    elif harm + margin > allowed:
        waits.append(text)
    else:
        notes.append(note)


def _smoothed_var(errors: int, n: int) -> float:
    p = (errors + 1) / (n + 2)
    return p * (1 - p)


def decision_table(log: Sequence[CanaryDecision]) -> str:
    """Render a decision log as a Markdown table: step, requests seen, action, traffic share, reason.

    >>> ctl = CanaryController(CanarySplit("support-bot", "1.10.0", "2.0.0", 0.05))
    >>> ctl.observe("2.0.0", latency_ms=42.0)
    >>> print(decision_table([ctl.evaluate()]))
    | step | requests seen | action | candidate traffic | reason |
    | ---: | ---: | --- | --- | --- |
    | 1 | 1 | hold | 5% → 5% | too few requests to judge: 2.0.0 has 1, 1.10.0 has 0 of the 200 needed |
    """
    lines = ["| step | requests seen | action | candidate traffic | reason |", "| ---: | ---: | --- | --- | --- |"]
    for d in log:
        reason = d.reason.replace("|", "\\|")
        lines.append(
            f"| {d.step} | {d.at_request:,} | {d.action} | {d.fraction_before:.0%} → {d.fraction_after:.0%} "
            f"| {reason} |"
        )
    return "\n".join(lines)
