"""Tests for labcore.sim.scenarios.release: what "latest" resolves to after each release, semver against strings."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labcore import parse_version
from labcore.sim.scenarios.release import ReleaseTimeline, release_timeline


@given(st.integers(min_value=0, max_value=40))
def test_release_timeline_matches_string_max_and_semver(n):
    t = release_timeline(n)
    assert t.versions == tuple(f"1.{m}.0" for m in range(n + 1))
    for i in range(n + 1):
        published = t.versions[: i + 1]
        assert t.string_latest[i] == max(published)
        assert t.semver_latest[i] == max(published, key=parse_version) == t.versions[i]
    assert t.stale_periods == max(0, n - 9)
    assert t.releases_behind == max(0, n - 9)
    assert t.first_stale == (10 if n >= 10 else None)


def test_release_timeline_rejects_bad_counts():
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="minor_releases"):
            release_timeline(bad)


def test_the_chapter_numbers_and_the_record_properties():
    t = release_timeline(12)
    assert isinstance(t, ReleaseTimeline) and t.name == "support-bot"
    assert (t.semver_latest[-1], t.string_latest[-1], t.first_stale) == ("1.12.0", "1.9.0", 10)
    assert t.stale_share == pytest.approx(3 / 13)
    assert release_timeline(5).first_stale is None and release_timeline(5).stale_share == 0.0
