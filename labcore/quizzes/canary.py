"""The self-check quiz of chapter 11 (canary between adapter versions): stickiness, and reading the controller's
error-rate evidence (``difference ± z × standard error`` against the limit).

The split is a real :class:`labcore.canary.CanarySplit`; the two log lines are the last decisions of
:func:`labcore.sim.scenarios.canary.canary_log`, the chapter's seeded rollout, for a candidate with a true error rate
of 1.5% (on a run half the chapter's length, which ends on hold) and one with 3% (the chapter's flaky
candidate, aborted).

>>> quiz = canary_quiz()
>>> quiz.grade(1, "Hold, and keep collecting at 5%")[0], quiz.grade(2, 2.14)[0]
(True, True)
"""

from __future__ import annotations

import re

from ..canary import ABORT, HOLD, CanarySplit
from ..sim.scenarios.canary import canary_log
from ._quiz import Choice, MultipleChoice, Numeric, Quiz

__all__ = ["canary_quiz"]

#: The chapter's split and the two candidates whose logs the questions quote: inputs.
TENANT, STABLE, CANDIDATE, FRACTION = "support-bot", "1.10.0", "2.0.0", 0.05
HELD_ERROR_PCT, FLAKY_ERROR_PCT = 1.5, 3.0
HELD_REQUESTS = 20_000  # half the chapter's run: the same hold, in half the time

_EVIDENCE = re.compile(
    r"error rate \S+ on \S+ vs \S+ on \S+ \(([+-]\d+\.\d+) ± (\d+\.\d+) points, "
    r"allowed \+(\d+\.\d+)\)"
)


def _evidence(error_pct: float, action: str, **run: int) -> tuple[str, float, float, float, int]:
    """Return the error-rate clause of the last decision of a rollout (and its increase, margin and limit, in
    points, and the requests seen), checking the rollout ended in ``action`` at the first ramp step."""
    log = canary_log(candidate_error_pct=error_pct, **run)
    last = log[-1]
    if last.action != action or any(d.fraction_before != FRACTION for d in log):
        raise ValueError(
            f"the {error_pct:g}% candidate must end in {action!r} at {FRACTION:.0%}, got "
            f"{[(d.action, d.fraction_before) for d in log]}"
        )
    found = _EVIDENCE.search(last.reason)
    if found is None or ";" in last.reason:
        raise ValueError(f"the controller's reason must be one error-rate clause, got {last.reason!r}")
    increase, margin, allowed = (float(x) for x in found.groups())
    return found.group(0), increase, margin, allowed, last.at_request


def canary_quiz() -> Quiz:
    """Return chapter 11's quiz: a sticky user's version, a hold on unclear evidence, an abort's optimistic end."""
    split = CanarySplit(tenant=TENANT, stable=STABLE, candidate=CANDIDATE, fraction=FRACTION)
    user = "user-1"
    if len({split.version_for(user) for _ in range(10)}) != 1:
        raise ValueError(f"question 1 needs a sticky split; {user} got several versions")
    held, h_inc, h_margin, h_allowed, h_seen = _evidence(HELD_ERROR_PCT, HOLD, requests=HELD_REQUESTS)
    flaky, f_inc, f_margin, f_allowed, _ = _evidence(FLAKY_ERROR_PCT, ABORT)
    h_low, h_high = round(h_inc - h_margin, 2), round(h_inc + h_margin, 2)  # the log's two decimals
    if not h_low <= h_allowed < h_high:
        raise ValueError(f"question 2 needs a limit between the two ends, got {h_low:+.2f} .. {h_high:+.2f}")
    f_low, f_high = round(f_inc - f_margin, 2), round(f_inc + f_margin, 2)
    return Quiz(
        "canary_quiz",
        "Chapter 11: canary between adapter versions",
        (
            MultipleChoice(
                f"A user on {TENANT}'s {FRACTION:.0%} canary sends ten more messages in the same conversation. Which "
                "version answers them?",
                (
                    Choice(
                        f"{CANDIDATE}, every time",
                        True,
                        "Right: the split hashes the user's key, so the same user always gets the same version: a "
                        "conversation never flips between two adapters, and each user's metrics belong to one version.",
                    ),
                    Choice(
                        f"About one in {1 / FRACTION:.0f} of them: each request is a fresh {FRACTION:.0%} draw",
                        False,
                        "No: a coin flip per request would switch adapters mid-conversation; the split compares a fixed "
                        "hash of the user key with the fraction.",
                    ),
                    Choice(
                        f"{STABLE} from some message on, to keep the canary at exactly {FRACTION:.0%}",
                        False,
                        "No: there is no quota; the canary's share is whatever the users' hashes give, and only a "
                        "change of the fraction moves anyone.",
                    ),
                ),
            ),
            MultipleChoice(
                f"After {h_seen:,} tenant requests at {FRACTION:.0%}, the controller's last log line reads: {held}. "
                "Which decision is that?",
                (
                    Choice(
                        f"Hold, and keep collecting at {FRACTION:.0%}",
                        True,
                        f"Right: the optimistic end, {h_low:+.2f} points, is within the allowed +{h_allowed:.2f}, so it "
                        f"cannot abort; the pessimistic end, {h_high:+.2f}, is not, so it cannot promote. More traffic at "
                        f"{FRACTION:.0%}, or a looser threshold, would settle it.",
                    ),
                    Choice(
                        "Abort: the observed increase is above the allowed one",
                        False,
                        f"Only the raw difference ({h_inc:+.2f}) is. Abort needs even the optimistic end, {h_inc:+.2f} − "
                        f"{h_margin:.2f} = {h_low:+.2f}, above +{h_allowed:.2f}, so that noise cannot abort a healthy "
                        "candidate.",
                    ),
                    Choice(
                        "Promote: the increase is within its margin of error",
                        False,
                        f"Promote needs even the pessimistic end, {h_high:+.2f} points, within +{h_allowed:.2f}: a "
                        "candidate this close to the limit may well be past it.",
                    ),
                ),
            ),
            Numeric(
                f"The flaky candidate ({FLAKY_ERROR_PCT:g}% errors) is aborted on: {flaky}. What is the optimistic end "
                "of its error-rate increase, the one an abort must find above the limit? Give two decimals.",
                answer=f_low,
                unit="points",
                explanation=f"{f_inc:+.2f} − {f_margin:.2f} = {f_low:+.2f} points, above the allowed +{f_allowed:.2f}: "
                "even the most charitable reading breaks the limit, so the controller aborts.",
                mistakes=(
                    (
                        f_high,
                        "is the pessimistic end (difference + margin), the one a promotion must keep within the limit.",
                    ),
                    (f_inc, "is the raw difference; the controller subtracts the margin, z standard errors, first."),
                    (
                        round(f_low - f_allowed, 2),
                        "is how far the optimistic end is past the limit; the question asks for the end itself.",
                    ),
                ),
            ),
        ),
    )
