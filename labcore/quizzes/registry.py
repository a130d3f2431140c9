"""The self-check quiz of chapter 3 (versions and the registry): string order, stale traffic, the silent base.

The versions are ordered by :func:`labcore.versions.parse_version` and resolved by a real
:class:`labcore.registry.AdapterRegistry`; the stale share comes from
:func:`labcore.sim.release_timeline`, the chapter's replay of weekly releases.

>>> quiz = registry_quiz()
>>> quiz.grade(0, "2.9.0")[0], quiz.grade(1, 33.3)[0], quiz.grade(1, 5)[1]
(True, True, '✗ 5 % counts the stale weeks; divide by all 15 weeks of unpinned traffic.')
"""

from __future__ import annotations

from ..adapter import Adapter
from ..errors import BaseDigestMismatchError
from ..registry import AdapterRegistry
from ..sim import release_timeline
from ..versions import parse_version
from ._quiz import Choice, MultipleChoice, Numeric, Quiz

__all__ = ["registry_quiz"]

#: The question's release history (question 1) and the weeks of releases (question 2): inputs.
PUBLISHED = ("2.9.0", "2.10.0", "10.0.0")
MINOR_RELEASES = 14


def _resolved(versions: tuple[str, ...]) -> str:
    """What a real registry's ``resolve`` answers for an unpinned name holding ``versions``."""
    registry = AdapterRegistry()
    registry.register_base("llama-3-8b", "sha256:quiz")
    for version in versions:
        registry.register(Adapter("support-bot", version, "llama-3-8b", "sha256:quiz", rank=16, vram_mb=16.0))
    return registry.resolve("support-bot").version


def registry_quiz() -> Quiz:
    """Return chapter 3's quiz: what max() of version strings picks, how much traffic goes stale, where a wrong
    base is caught."""
    by_string = max(PUBLISHED)
    by_semver = _resolved(PUBLISHED)
    if by_string == by_semver:
        raise ValueError(f"question 1 needs versions whose string and semver order differ, got {PUBLISHED}")
    feedback = {
        by_string: f"Right: max() compares strings character by character, so '{by_string}' beats the others at its "
        f"first differing character, and unpinned traffic is served an old adapter. The registry's semver "
        f"order answers {by_semver}.",
        by_semver: f"That is semver's answer (parse_version gives {parse_version(by_semver)!r}), what the registry's "
        f"resolve returns; max() on strings compares '{by_semver[0]}' with '{by_string[0]}' first.",
    }
    for version in PUBLISHED:
        feedback.setdefault(
            version,
            f"No: character by character, '{version}' loses to '{by_string}' at their first "
            f"differing character, though as numbers {parse_version(version)!r} > "
            f"{parse_version(by_string)!r}.",
        )
    t = release_timeline(MINOR_RELEASES)
    first_stale = t.first_stale
    assert first_stale is not None  # 1.10.0 is published, and a string sort puts 1.9.0 above it
    weeks = len(t.versions)
    stale_pct = 100 * t.stale_share
    return Quiz(
        "registry_quiz",
        "Chapter 3: versions and the registry",
        (
            MultipleChoice(
                f'A router finds "latest" with max() over the version strings. Registered: {", ".join(PUBLISHED)}. '
                "Which version does it pick?",
                tuple(Choice(v, v == by_string, feedback[v]) for v in PUBLISHED),
            ),
            Numeric(
                f"support-bot ships {t.versions[0]} to {t.versions[-1]}, one release a week, with the same unpinned "
                "traffic every week. What percentage of all that unpinned traffic did a string-sorting router send to "
                "a stale adapter? Give one decimal.",
                answer=stale_pct,
                unit="%",
                explanation=f"From {t.versions[first_stale]} on, max() of the strings still answers "
                f"{t.string_latest[-1]}: {t.stale_periods} of {weeks} weeks, {stale_pct:.1f}%.",
                mistakes=(
                    (t.stale_share, "is a fraction; the question asks for a percentage (multiply by 100)."),
                    (t.stale_periods, f"counts the stale weeks; divide by all {weeks} weeks of unpinned traffic."),
                    (
                        100 - stale_pct,
                        "is the share that got the right version; the question asks for the stale share.",
                    ),
                    (
                        100 * t.stale_periods / (weeks - 1),
                        f"divides by the {weeks - 1} releases after {t.versions[0]}; "
                        f"{t.versions[0]}'s week carries traffic too.",
                    ),
                ),
            ),
            MultipleChoice(
                "The platform team swaps a further-trained llama-3-8b checkpoint in under the same name and restarts. "
                "Where does an adapter trained on the old weights first raise an error?",
                (
                    Choice(
                        "At registration, and only if the registry compares base digests",
                        True,
                        f"Right: a {BaseDigestMismatchError.__name__} there is the one cheap place to catch it; the "
                        "shapes match, so nothing later raises.",
                    ),
                    Choice(
                        "When PEFT loads the adapter, because the weight shapes no longer match",
                        False,
                        "No: same architecture, same shapes; the adapter loads without a word.",
                    ),
                    Choice(
                        "At the first request, as a 5xx error",
                        False,
                        "No: every request returns 200 and a fluent answer, quietly worse; an eval or a customer finds it "
                        "days later.",
                    ),
                ),
            ),
        ),
    )
