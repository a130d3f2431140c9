"""Tests for labcore.quizzes.registry: chapter 3's quiz says what the registry and a string sort do."""

from __future__ import annotations

import pytest

from labcore import Adapter, AdapterRegistry, BaseDigestMismatchError, parse_version
from labcore.quizzes import registry_quiz
from labcore.sim import release_timeline

from ._helpers import assert_chapter_shape, right


def test_the_quiz_has_the_chapter_shape():
    assert_chapter_shape(registry_quiz())


def test_max_over_strings_picks_the_version_semver_ranks_last():
    q = registry_quiz().questions[0]
    versions = [c.text for c in q.choices]
    assert right(q).text == max(versions) == "2.9.0"
    assert max(versions, key=parse_version) == "10.0.0"
    reg = AdapterRegistry()
    reg.register_base("llama-3-8b", "sha256:t")
    for v in versions:
        reg.register(Adapter("support-bot", v, "llama-3-8b", "sha256:t", rank=16, vram_mb=16.0))
    assert reg.resolve("support-bot").version == "10.0.0"
    assert "semver" in dict((c.text, c.feedback) for c in q.choices)["10.0.0"]


def test_the_stale_share_is_the_weeks_after_1_9_0_over_all_weeks():
    quiz = registry_quiz()
    q = quiz.questions[1]
    t = release_timeline(14)
    assert t.string_latest[-1] == "1.9.0" and t.stale_periods == 5 and len(t.versions) == 15
    assert q.answer == pytest.approx(100 * 5 / 15)
    assert quiz.grade(1, 33.3)[0] and not quiz.grade(1, 33.0)[0]


def test_a_new_checkpoint_under_the_old_name_is_refused_at_registration_only():
    q = registry_quiz().questions[2]
    reg = AdapterRegistry()
    reg.register_base("llama-3-8b", "sha256:old")
    reg.register(Adapter("support-bot", "1.0.0", "llama-3-8b", "sha256:old", rank=16, vram_mb=16.0))
    with pytest.raises(BaseDigestMismatchError):
        reg.register_base("llama-3-8b", "sha256:newer")  # the repointed base
    served = AdapterRegistry()
    served.register_base("llama-3-8b", "sha256:newer")
    with pytest.raises(BaseDigestMismatchError):
        served.register(Adapter("support-bot", "1.0.0", "llama-3-8b", "sha256:old", rank=16, vram_mb=16.0))
    assert right(q).text.startswith("At registration") and "BaseDigestMismatchError" in right(q).feedback
