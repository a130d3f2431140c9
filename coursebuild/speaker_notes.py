"""Speaker notes: read each deck's notes file and turn it into the notes cells its slides carry.

One file per deck, ``scripts/speaker_notes/<notebook stem>.yml`` (see its README.md): ``title`` (the title
slide's notes) and ``sections``, one per ``## `` heading, each with ``minutes``, ``notes`` and optionally
``at`` (notes for the slide of one cell: ``{"<snippet of that cell's source>": "notes"}``). MyST glue roles
in the notes are replaced by the values stored in the notebook. ``scripts/slide_metadata.py`` writes the
cells; :mod:`coursebuild.session_plans` reads the minutes and :mod:`coursebuild.session_deck` re-times the cue of a section it borrows.

>>> pace_cue("Counting bytes", 3, elapsed=9.5, total=40)
'**Speaker notes: Counting bytes** (about 3 min; 9.5 of 40 min by its end)'
>>> retime(pace_cue("Counting bytes", 3, elapsed=9.5, total=40) + "\\n\\nAsk.", elapsed=21, total=60)
'**Speaker notes: Counting bytes** (about 3 min; 21 of 60 min by its end)\\n\\nAsk.'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from .lite.notebooks import glue_values
from .myst_text import to_commonmark

ROOT = Path(__file__).resolve().parent.parent
NOTES_DIR = ROOT / "scripts" / "speaker_notes"  # one <notebook stem>.yml per deck (see its README.md)
NOTES_TAG = "speaker-notes"  # the tag of the notes cells slide_metadata.py writes (and replaces)
TITLE = "title"  # the notes file's key for the title slide
_HEADING = re.compile(r"^(#{1,6}) +(.+?)\s*$", re.M)
_CUE = re.compile(
    r"^\*\*Speaker notes: (?P<heading>.+?)\*\* \(about (?P<minutes>[\d.]+) min; [\d.]+ of [\d.]+ min "
    r"by its end\)"
)


def source(cell: Mapping[str, Any]) -> str:
    """Return a notebook cell's source as one string."""
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def is_notes(cell: Mapping[str, Any]) -> bool:
    """Tell whether a cell holds speaker notes written from a notes file."""
    return NOTES_TAG in set(cell.get("metadata", {}).get("tags", []))


def headings(cell: Mapping[str, Any], level: int = 2) -> list[str]:
    """Return the text of a markdown cell's headings of one level (``## Text`` -> ``Text``).

    >>> headings({"cell_type": "markdown", "source": "## Summary\\n\\n- a\\n\\n## What comes next"})
    ['Summary', 'What comes next']
    """
    if cell.get("cell_type") != "markdown":
        return []
    text = re.sub(r"^(```|~~~).*?^\1", "", source(cell), flags=re.M | re.S)  # not inside code fences
    return [m[2] for m in _HEADING.finditer(text) if len(m[1]) == level]


def load_notes(folder: Path = NOTES_DIR) -> dict[str, Any]:
    """Return every deck's notes: ``{notebook stem: {"title": text, "sections": {heading: {minutes, notes}}}}``."""

    return {path.stem: yaml.safe_load(path.read_text(encoding="utf-8")) or {} for path in sorted(folder.glob("*.yml"))}


def section_minutes(entry: Mapping[str, Any]) -> dict[str, float]:
    """Return ``{section heading: minutes}`` of one deck's notes, in the file's order."""
    return {heading: float(section["minutes"]) for heading, section in (entry.get("sections") or {}).items()}


def minutes_text(value: float) -> str:
    """Return a duration as the notes print it (``3 min``, ``2.5 min``)."""
    return f"{value:g} min"


def pace_cue(heading: str, minutes: float, *, elapsed: float, total: float) -> str:
    """Return the first line of a section's notes: its minutes, and the minutes gone by its end out of the total."""
    return f"**Speaker notes: {heading}** (about {minutes_text(minutes)}; {elapsed:g} of {total:g} min by its end)"


def retime(notes: str, *, elapsed: float, total: float) -> str:
    """Return a section's notes with its pace cue counted in another session's clock (notes without a cue as given)."""
    match = _CUE.match(notes)
    if match is None:
        return notes
    cue = pace_cue(match["heading"], float(match["minutes"]), elapsed=elapsed, total=total)
    return cue + notes[match.end() :]


def as_written(markdown: str) -> str:
    r"""Return notes markdown with a line-leading ``#`` escaped: "#41 joins" is a customer, not a heading.

    >>> print(as_written("#41 joins the replica\n- then p99 jumps"))
    \#41 joins the replica
    - then p99 jumps
    """
    return "\n".join("\\" + line if line.lstrip().startswith("#") else line for line in markdown.split("\n"))


def notes_cells_for(nb: Mapping[str, Any], entry: Mapping[str, Any], stem: str) -> dict[int, list[str]]:
    """Return ``{index of the cell a note follows: [notes markdown, ...]}`` for one notebook (glue substituted).

    Indices count the notebook's cells other than notes cells. Raises ``ValueError`` naming what is
    missing: a ``##`` section without notes, notes for a section the notebook no longer has, or an
    ``at`` snippet that no cell, or more than one, of its section holds.
    """

    glue = glue_values(nb)
    sections = dict(entry.get("sections") or {})
    cells = [c for c in nb["cells"] if not is_notes(c)]
    where: dict[str, int] = {}
    for index, cell in enumerate(cells):
        for heading in headings(cell):
            where.setdefault(heading, index)
    missing = [h for h in where if h not in sections]
    unknown = [h for h in sections if h not in where]
    if missing or unknown:
        raise ValueError(
            f"{stem}: speaker notes out of step with the chapter's ## sections: "
            f"no notes for {missing}; notes for sections it does not have: {unknown} "
            f"(edit scripts/speaker_notes/{stem}.yml)"
        )
    minutes = section_minutes(entry)
    title_index = next((i for i, c in enumerate(cells) if headings(c, level=1)), 0)
    total = sum(minutes.values())
    timing = "\n".join(f"- {heading}: {minutes_text(minutes[heading])}" for heading in where)
    out: dict[int, list[str]] = {
        title_index: [
            f"**Speaker notes** (about {minutes_text(total)} in all)\n\n"
            + as_written(to_commonmark(str(entry.get(TITLE, "")).strip(), glue))
            + f"\n\n**Timing**\n\n{timing}"
        ]
    }
    starts = sorted(where.values()) + [len(cells)]
    elapsed = 0.0
    for heading, index in where.items():
        section = sections[heading]
        elapsed += minutes[heading]
        body = as_written(to_commonmark(str(section.get("notes", "")).strip(), glue))
        cue = pace_cue(heading, minutes[heading], elapsed=elapsed, total=total)
        out.setdefault(index, []).append(cue + (f"\n\n{body}" if body else ""))
        end = starts[starts.index(index) + 1]
        for anchor, text in (section.get("at") or {}).items():
            hits = [i for i in range(index, end) if anchor in source(cells[i])]
            if len(hits) != 1:
                raise ValueError(
                    f"{stem}: the notes of section {heading!r} are placed 'at' {anchor!r}, which "
                    f"{'no' if not hits else 'more than one'} cell of that section holds"
                )
            note = as_written(to_commonmark(str(text).strip(), glue))
            out.setdefault(hits[0], []).append(f"**Speaker notes: {heading}, on this slide**\n\n{note}")
    return out
