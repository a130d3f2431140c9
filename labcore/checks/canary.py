"""Check the canary exercises: requests before a verdict, who is on a widened canary, and what the controller
decides for a candidate right at a limit (chapter 11).

Exercise 11.1 asks about the second ramp step (the chapter shows the first); 11.2 asks about the widened canary's
users (the chapter shows that everyone already on it stays); 11.3 is a prediction graded against the chapter's own
seeded rollout (:func:`labcore.sim.scenarios.canary.canary_log`, the panel's states).
"""

from __future__ import annotations

import functools

from ..canary import ABORT, COMPLETE, DEFAULT_RAMP, HOLD, CanarySplit, CanaryThresholds
from ..sim.scenarios.canary import canary_log
from .exercise import Exercise
from .rules import ChoiceRule, NumberRule, graded
from .verdict import Mistake, _printer

__all__ = [
    "SPLIT_USERS",
    "AT_LIMIT",
    "grade_requests_before_judging",
    "grade_sticky_share",
    "grade_canary_outcome",
    "check_requests_before_judging",
    "check_sticky_share",
    "check_canary_outcome",
    "EXERCISES",
]

#: The chapter's users (their keys ``user-0`` .. ``user-19999``) and its split: inputs of exercise 11.2.
SPLIT_USERS = 20_000
TENANT, STABLE, CANDIDATE = "support-bot", "1.10.0", "2.0.0"
#: Exercise 11.3's candidate: as stable in every way but its eval pass rate, exactly the allowed drop below it.
AT_LIMIT = {"candidate_error_pct": 0.5, "candidate_latency_ms": 42.0, "candidate_quality": 0.85}


def rule_requests_before_judging(
    *, min_requests: int = CanaryThresholds().min_requests, fraction: float = DEFAULT_RAMP[1]
) -> NumberRule:
    """Grade how many tenant requests a fresh window at ``fraction`` takes before the candidate has ``min_requests``.

    The default is the second ramp step (25%): 200 / 0.25 = 800.

    >>> print(grade_requests_before_judging(4000).message)
    ✗ 4,000 requests is the first step's answer, at 5%; the new window runs at 25%.
    """
    expected = min_requests / fraction
    mistakes: list[Mistake] = [
        (
            min_requests,
            f"is what the candidate needs; only {fraction:.0%} of the traffic reaches it, so divide by {fraction:g}.",
        ),
        (
            min_requests * fraction,
            f"multiplies by the fraction; the candidate sees {fraction:.0%} of the traffic, "
            "so the total must be larger, not smaller.",
        ),
        (
            min_requests / (1 - fraction),
            f"is what the stable version needs ({1 - fraction:.0%} of the traffic); the "
            "candidate, with the smaller share, takes longer.",
        ),
    ]
    if fraction != DEFAULT_RAMP[0]:
        mistakes.append(
            (
                min_requests / DEFAULT_RAMP[0],
                f"is the first step's answer, at {DEFAULT_RAMP[0]:.0%}; the new window runs at {fraction:.0%}.",
            )
        )
    return NumberRule(
        expected,
        unit="requests",
        what="the tenant requests needed",
        mistakes=mistakes,
        fallback="total requests × canary fraction = candidate requests.",
        rel_tol=0.01,
        singular=True,
    )


@functools.lru_cache(maxsize=8)
def _widened_share(before: float, after: float, users: int) -> float:
    """Of the users on the candidate at ``after``, the share already on it at ``before`` (the chapter's users)."""
    small, wide = (
        CanarySplit(tenant=TENANT, stable=STABLE, candidate=CANDIDATE, fraction=before),
        CanarySplit(tenant=TENANT, stable=STABLE, candidate=CANDIDATE, fraction=after),
    )
    keys = [f"user-{i}" for i in range(users)]
    on_wide = [k for k in keys if wide.in_canary(k)]
    return sum(small.in_canary(k) for k in on_wide) / len(on_wide)


def rule_sticky_share(
    *, before: float = DEFAULT_RAMP[0], after: float = DEFAULT_RAMP[1], users: int = SPLIT_USERS
) -> NumberRule:
    """Grade which share of the users on the candidate at ``after`` were already on it at ``before``.

    Measured over the chapter's ``users`` keys (about ``before / after``: the wider canary keeps every earlier user
    and adds new ones).

    >>> grade_sticky_share(0.2).ok
    True
    >>> print(grade_sticky_share(1.0).message)
    ✗ 1 of them is the share of the 5% users who stay on the candidate; the question asks about the 25% users: how many of them were there before?
    """
    expected = _widened_share(before, after, users)
    mistakes: list[Mistake] = [
        (
            1.0,
            f"is the share of the {before:.0%} users who stay on the candidate; the question asks about the "
            f"{after:.0%} users: how many of them were there before?",
        ),
        (after, "is the new canary fraction; compare the two canaries' sizes."),
        (
            before,
            "is the old canary fraction, a share of all users; the question asks for a share of the wider "
            "canary's users.",
        ),
        (1 - before / after, "is the share of newcomers; the question asks for those who were already there."),
        (100 * before / after, "is a percentage; the question asks for a fraction between 0 and 1."),
    ]
    return NumberRule(
        expected,
        unit="of them",
        what=f"the share of the {after:.0%} canary's users already on it at {before:.0%}",
        mistakes=mistakes,
        fallback="A user is on the candidate when hash(user) < fraction: the wider canary holds every "
        "earlier user, plus new ones.",
        rel_tol=0.05,
    )


_ACTION_WORDS = {
    HOLD: ("hold", "holds", "held", "on hold"),
    ABORT: ("abort", "aborts", "aborted", "abort it"),
    COMPLETE: ("complete", "completes", "completed", "promote", "promoted", "promotes", "promoted to 100%", "100%"),
}


def rule_canary_outcome(
    *,
    candidate_error_pct: float = AT_LIMIT["candidate_error_pct"],
    candidate_latency_ms: float = AT_LIMIT["candidate_latency_ms"],
    candidate_quality: float = AT_LIMIT["candidate_quality"],
) -> ChoiceRule:
    """Grade a prediction of how the chapter's rollout ends for a candidate: ``"hold"``, ``"abort"`` or ``"complete"``.

    The answer is the last decision of :func:`canary_log` for that candidate (the panel's state). The default
    candidate's eval pass rate is exactly the allowed drop below stable's; the rollout ends on hold.

    >>> grade_canary_outcome("hold").ok
    True
    >>> print(grade_canary_outcome("abort").message.split(":")[0])
    ✗ An abort needs even the optimistic end of the drop above the limit
    """
    log = canary_log(candidate_error_pct, candidate_latency_ms, candidate_quality)
    last = log[-1]
    limit = CanaryThresholds().max_score_drop
    hints = {
        ABORT: f"✗ An abort needs even the optimistic end of the drop above the limit: difference − z × standard "
        f"error > {limit:g}. A candidate whose true drop is the limit looks better than that about half the "
        "time, and the rest is noise the band absorbs.",
        COMPLETE: f"✗ A promotion needs even the pessimistic end of the drop within the limit: difference + z × "
        f"standard error ≤ {limit:g}. A true drop of exactly the limit never gets its pessimistic end "
        "inside it.",
        HOLD: f"✗ The evidence is clear here: the controller does not hold. This run ends on {last.action} after "
        f"{len(log)} decisions.",
    }
    hints[last.action] = (
        f"✓ Correct: after {len(log)} decisions the rollout ends on {last.action} at "
        f"{last.fraction_before:.0%}: {last.reason}."
    )
    return ChoiceRule(
        last.action,
        options=(HOLD, ABORT, COMPLETE),
        words=_ACTION_WORDS,
        messages=hints,
        unanswered='✗ Not answered yet: replace None with "hold", "abort" or "complete".',
        not_text='✗ Expected one word, "hold", "abort" or "complete", got {answer}.',
        unknown='✗ {answer} is not one of the controller\'s outcomes: answer "hold", "abort" or '
        '"complete" (promoted to 100%).',
    )


grade_canary_outcome = graded(rule_canary_outcome)
grade_requests_before_judging = graded(rule_requests_before_judging)
check_requests_before_judging = _printer(grade_requests_before_judging)
grade_sticky_share = graded(rule_sticky_share)
check_sticky_share = _printer(grade_sticky_share)
check_canary_outcome = _printer(grade_canary_outcome)


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "11.1",
        "compute",
        grade_requests_before_judging,
        right=800,
        wrong=(200, 4000),
        gives_away=("800 requests", "800 tenant requests"),
    ),
    Exercise(
        "11.2",
        "compute",
        grade_sticky_share,
        right=0.2,
        wrong=(1.0, 0.25),
        gives_away=("0.196", "19.6%", "one in five"),
    ),
    Exercise(
        "11.3",
        "predict",
        grade_canary_outcome,
        right="hold",
        wrong=("abort", "complete"),
        gives_away=("last: hold",),
        tool="canary_panel",
    ),
)
