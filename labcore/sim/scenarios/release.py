"""Chapter 3's run: a release history replayed through a real registry, semver against a string sort.

>>> t = release_timeline(12)
>>> t.releases_behind
3
"""

from __future__ import annotations

from dataclasses import dataclass

from ..._validate import count
from ...implementation import Implementation, implementation

__all__ = ["ReleaseTimeline", "release_timeline"]


@dataclass(frozen=True, slots=True)
class ReleaseTimeline:
    """What unpinned traffic got after each release of one adapter, under semver and under a string sort.

    ``versions[i]`` is the i-th release (``1.0.0``, ``1.1.0``, ...); ``semver_latest[i]`` is what
    ``AdapterRegistry.resolve(name)`` returned right after it, and ``string_latest[i]`` what
    ``max(registry.versions(name))`` (plain string comparison) returned. Each release is live
    for one equal period of unpinned traffic.
    """

    name: str
    versions: tuple[str, ...]
    semver_latest: tuple[str, ...]
    string_latest: tuple[str, ...]

    @property
    def stale_periods(self) -> int:
        """Periods in which the string sort served an older version than semver."""
        return sum(s != v for s, v in zip(self.string_latest, self.semver_latest, strict=True))

    @property
    def stale_share(self) -> float:
        """The share of unpinned traffic that a string-sorting router sent to a stale version."""
        return self.stale_periods / len(self.versions)

    @property
    def first_stale(self) -> int | None:
        """The index of the first release after which the string sort was wrong (None if never)."""
        return next(
            (i for i, (s, v) in enumerate(zip(self.string_latest, self.semver_latest, strict=True)) if s != v), None
        )

    @property
    def releases_behind(self) -> int:
        """How many releases the string sort's "latest" trails the real latest, at the end."""
        return self.versions.index(self.semver_latest[-1]) - self.versions.index(self.string_latest[-1])


def release_timeline(
    minor_releases: int, *, name: str = "support-bot", lab: Implementation | None = None
) -> ReleaseTimeline:
    """Publish ``name`` 1.0.0, 1.1.0, ... 1.N.0 into a real registry and record what "latest" resolves to.

    ``lab`` publishes into another implementation's registry (a learner's ``lab/mine``).

    >>> t = release_timeline(12)
    >>> t.semver_latest[-1], t.string_latest[-1], t.releases_behind, t.stale_periods
    ('1.12.0', '1.9.0', 3, 3)
    """
    count("minor_releases", minor_releases, minimum=0)
    code = lab if lab is not None else implementation("reference")
    adapter = code.get("Adapter")
    registry = code.get("AdapterRegistry")()
    registry.register_base("llama-3-8b", "sha256:llama-3-8b-demo")
    versions, semver, string = [], [], []
    for minor in range(minor_releases + 1):
        version = f"1.{minor}.0"
        registry.register(adapter(name, version, "llama-3-8b", "sha256:llama-3-8b-demo", rank=16, vram_mb=16.0))
        versions.append(version)
        semver.append(registry.resolve(name).version)
        string.append(max(registry.versions(name)))  # the bug: compares strings character by character
    return ReleaseTimeline(
        name=name, versions=tuple(versions), semver_latest=tuple(semver), string_latest=tuple(string)
    )
