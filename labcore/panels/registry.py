"""Panels for the registry: what "latest" resolves to as releases pile up, semver against a string sort.

>>> release_panel().row()["releases_behind"]    # after 1.12.0 a string sort still answers 1.9.0
3
"""

from __future__ import annotations

from typing import Any

from ..implementation import YOURS_COLOR, Implementation, Missing, on_your_code
from ..plots import OKABE_ITO
from ..sim import release_timeline
from ._panel import Control, Lines, Panel, Series

__all__ = ["release_panel", "your_registry_panel", "your_registry_state"]


def _release_state(minor_releases: int, pinned_pct: int) -> dict[str, Any]:
    t = release_timeline(minor_releases)
    unpinned = 1 - pinned_pct / 100
    return {
        "semver_latest": t.semver_latest[-1],
        "string_latest": t.string_latest[-1],
        "releases_behind": t.releases_behind,
        "stale_unpinned_pct": 100 * t.stale_share,
        "stale_all_pct": 100 * t.stale_share * unpinned,
    }


def _release_readout(r: Any) -> str:
    head = f"after 1.{r['minor_releases']}.0: semver picks {r['semver_latest']},\na string sort {r['string_latest']}"
    if r["releases_behind"] == 0:
        return head + "\nno unpinned request has gone to a stale adapter yet"
    return (
        f"{head} ({r['releases_behind']} releases behind)\n"
        f"{r['stale_unpinned_pct']:.0f}% of unpinned traffic went to a stale adapter;\n"
        f"with {r['pinned_pct']}% of requests pinned, {r['stale_all_pct']:.0f}% of all traffic"
    )


def release_panel() -> Panel:
    """Publish 1.0.0 ... 1.N.0 and watch a string sort's "latest" fall behind (chapter 3)."""
    return Panel(
        "release_panel",
        title='"Latest" under semver and under a string sort',
        controls=[
            Control("minor_releases", "minor releases (1.1.0 to 1.N.0)", values=tuple(range(1, 31)), default=12),
            Control("pinned_pct", "requests that pin a version (%)", values=(0, 25, 50, 75, 90), default=0),
        ],
        compute=_release_state,
        readout=_release_readout,
        chart=Lines(
            "minor_releases",
            (
                Series("stale_unpinned_pct", "stale share of unpinned traffic", OKABE_ITO["vermillion"]),
                Series("stale_all_pct", "stale share of all traffic", OKABE_ITO["orange"], dashed=True),
            ),
            y_title="traffic served by a stale adapter (%)",
            y_domain=(0, 100),
        ),
    )


def _refuses(code: Implementation, attempt: Any) -> bool:
    """Tell whether ``attempt(registry, Adapter)`` on a fresh registry of ``code`` raises (a refusal)."""
    registry = code.get("AdapterRegistry")()
    registry.register_base("llama-3-8b", "sha256:7f3a")
    try:
        attempt(registry, code.get("Adapter"))
    except NotImplementedError:
        raise
    except Exception:  # noqa: BLE001 - any refusal counts; which error type is the contract suite's business
        return True
    return False


def _wrong_digest(registry: Any, adapter: Any) -> None:
    registry.register(adapter("legal-bot", "1.0.0", "llama-3-8b", "sha256:c21e", rank=16, vram_mb=16.0))


def _overwrite(registry: Any, adapter: Any) -> None:
    registry.register(adapter("support-bot", "2.1.0", "llama-3-8b", "sha256:7f3a", rank=16, vram_mb=16.0))
    registry.register(adapter("support-bot", "2.1.0", "llama-3-8b", "sha256:7f3a", rank=32, vram_mb=32.0))


def your_registry_state(lab: Implementation, minor_releases: int) -> dict[str, Any]:
    """Publish 1.0.0 ... 1.N.0 into the reference's and into ``lab``'s registry; ask each for "latest".

    Also asks each registry to accept an adapter trained on another base digest, and a published version again:
    both must be refused (chapter 3's two silent failures).

    >>> from labcore.implementation import implementation
    >>> s = your_registry_state(implementation("reference"), 12)
    >>> s["yours_latest"], s["string_behind"], s["yours_refuses_digest"]
    ('1.12.0', 3, 'refuses')
    """
    reference, yours = release_timeline(minor_releases), release_timeline(minor_releases, lab=lab)
    latest = yours.semver_latest[-1]
    behind = (
        reference.versions.index(reference.semver_latest[-1]) - reference.versions.index(latest)
        if latest in reference.versions
        else minor_releases
    )
    verdict = {True: "refuses", False: "accepts"}
    return {
        "string_behind": reference.releases_behind,
        "yours_behind": behind,
        "yours_latest": latest,
        "reference_latest": reference.semver_latest[-1],
        "string_latest": reference.string_latest[-1],
        "yours_refuses_digest": verdict[_refuses(lab, _wrong_digest)],
        "yours_refuses_overwrite": verdict[_refuses(lab, _overwrite)],
    }


def _your_readout(r: Any, lab: Implementation) -> str:
    head = (
        f"after 1.{r['minor_releases']}.0, latest: reference {r['reference_latest']},\n"
        f"a string sort {r['string_latest']} ({r['string_behind']} behind)"
    )
    if lab.is_reference:
        return head + '\nin the live version, "mine" asks your registry too'
    return (
        f"{head}\nyour registry: {r['yours_latest']} ({r['yours_behind']} behind)\n"
        f"a wrong base digest: yours {r['yours_refuses_digest']} it\n"
        f"a published version again: yours {r['yours_refuses_overwrite']} it"
    )


def your_registry_panel(lab: Implementation | None = None) -> Panel | Missing:
    """Ask ``lab``'s registry (a learner's ``lab/mine``) for "latest" as releases pile up, beside the reference (ch. 3).

    Returns the :class:`~labcore.implementation.Missing` function where the learner's registry is not written yet.
    """

    def build(code: Implementation) -> Panel:
        series = [Series("string_behind", "a string sort", OKABE_ITO["vermillion"], dashed=True)]
        if not code.is_reference:
            series.append(Series("yours_behind", "your registry", YOURS_COLOR))
        return Panel(
            "your_registry_panel",
            title='Your registry against the reference: "latest"',
            controls=[
                Control("minor_releases", "minor releases (1.1.0 to 1.N.0)", values=tuple(range(1, 21)), default=12)
            ],
            compute=lambda minor_releases: your_registry_state(code, minor_releases),
            readout=lambda r: _your_readout(r, code),
            chart=Lines("minor_releases", tuple(series), y_title="releases behind the real latest", y_domain=(0, 12)),
            variant="" if code.is_reference else code.name,
        )

    return on_your_code(lab, build)
