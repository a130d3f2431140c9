"""labcore.panels.registry: the release panel opens on chapter 3's twelve releases and pinning shrinks the exposure."""

from labcore.panels.registry import release_panel
from labcore.sim import release_timeline


def test_the_default_state_is_the_chapters_timeline():
    row, t = release_panel().row(), release_timeline(12)
    assert (row["string_latest"], row["releases_behind"]) == (t.string_latest[-1], t.releases_behind)
    assert row["stale_unpinned_pct"] == round(100 * t.stale_share, 6)


def test_pinned_requests_never_see_latest():
    panel = release_panel()
    for pinned in (25, 75):
        row = panel.row(minor_releases=20, pinned_pct=pinned)
        assert abs(row["stale_all_pct"] - row["stale_unpinned_pct"] * (1 - pinned / 100)) < 1e-5
    assert panel.row(minor_releases=9)["releases_behind"] == 0
