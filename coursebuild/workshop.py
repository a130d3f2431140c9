"""Running a workshop in a room: the message to send before the day, and what serving the site offline costs.

:func:`first_visit` reads what one browser downloads on its first visit (``results/first_visit.json``, measured
on the built site by ``scripts/measure_first_visit.py``); :func:`message_markdown` is the message the instructors'
page gives to send a week before, with the site's address when ``_config.yml`` sets one (and none otherwise);
:data:`SERVE_COMMAND` serves a built site from the instructor's laptop (:mod:`coursebuild.serve`, gzip-compressed).

>>> SERVE_COMMAND
'make serve'
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .handouts import site_address

__all__ = ["FIRST_VISIT_FILE", "SERVE_COMMAND", "CHECK_PAGE", "FirstVisit", "first_visit", "message_markdown"]

ROOT = Path(__file__).resolve().parent.parent
FIRST_VISIT_FILE = ROOT / "results" / "first_visit.json"
#: serve the built site to the room, from the repository's folder (coursebuild/serve.py, on every network, port 8000)
SERVE_COMMAND = "make serve"
#: the page a learner opens before the day (book/check_laptop.md), from the site's root
CHECK_PAGE = "book/check_laptop.html"


@dataclass(frozen=True, slots=True)
class FirstVisit:
    """What one browser downloads on its first visit: the chapter page, then its Live version; and the site's size."""

    chapter: str
    static_bytes: int
    live_bytes: int
    live_files: int
    site_bytes: int
    lite_bytes: int
    measured: str
    #: the response bodies the room's server sent (``make serve``): compressed, and with its compression off
    static_sent_bytes: int = 0
    live_sent_bytes: int = 0
    live_sent_plain_bytes: int = 0

    def __post_init__(self) -> None:
        for name in ("static_bytes", "live_bytes", "site_bytes", "lite_bytes"):
            if getattr(self, name) <= 0:
                raise ValueError(f"first visit: {name} must be positive, got {getattr(self, name)!r}")

    @property
    def total_bytes(self) -> int:
        """Return what one learner's browser downloads for the page and the Live version together."""
        return self.static_bytes + self.live_bytes

    def room_bytes(self, people: int) -> int:
        """Return what the instructor's laptop serves when ``people`` browsers each visit for the first time."""
        return people * self.total_bytes

    @property
    def sent_bytes(self) -> int:
        """Return what the room's server sends one learner's browser, compressed, for the page and the Live version."""
        return self.static_sent_bytes + self.live_sent_bytes


def first_visit(path: Path = FIRST_VISIT_FILE) -> FirstVisit:
    """Return the recorded first visit (``scripts/measure_first_visit.py`` writes it)."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    return FirstVisit(
        raw["chapter"],
        raw["static_bytes"],
        raw["live_bytes"],
        raw["live_files"],
        raw["site_bytes"],
        raw["lite_bytes"],
        raw["measured"],
        raw.get("static_sent_bytes", 0),
        raw.get("live_sent_bytes", 0),
        raw.get("live_sent_plain_bytes", 0),
    )


def message_markdown(address: str | None = None) -> str:
    """Return the message to send learners a week before the workshop (the site's address only when one is set)."""
    address = site_address() if address is None else address
    site = f"the course site, {address}" if address else "the course site"
    check = (
        f"{address.rstrip('/')}/{CHECK_PAGE}" if address else "its page *Check your laptop* (under *Using this course*)"
    )
    return "\n".join(
        [
            "> **Subject: before the multi-LoRA workshop: check your laptop (5 minutes)**",
            ">",
            f"> The workshop runs in your browser, from {site}: nothing to install. Please, before the day, open "
            f"{check} on the laptop and in the browser you will bring, in a normal (not private) window. It says "
            "whether this browser can run the course's Live version. Then open one chapter's **Live** version and "
            "wait for its first cell to run once, to see it work on your laptop.",
            ">",
            "> If a line of the check says **No**, reply to this message with what it says. Bring a charger. No "
            "laptop? Come anyway: you will pair with a neighbour.",
        ]
    )
