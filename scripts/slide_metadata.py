"""Give every chapter notebook its slide metadata and its speaker notes (the decks and RISE read both).

One rule sets ``slideshow.slide_type`` on every cell, so the same notebook is a page, a reveal.js
deck (``coursebuild/slides.py``) and a RISE slideshow:

* the title and every markdown cell that opens with a ``## `` heading start a ``slide``;
* a ``### `` heading, an exercise (``**Exercise``) and any cell that would overflow the slide it
  joins (an estimate of its height on a 960 x 700 slide) start a ``subslide``;
* hidden cells (``remove-cell``: the setup cell, hidden checks, glue), collapsed ones (``hide-cell``:
  answers and solutions, never presented) and the imports cell are ``skip``;
* speaker notes are ``notes``; everything else continues its slide (``-``).

Speaker notes come from ``scripts/speaker_notes/<stem>.yml`` (read by ``coursebuild.speaker_notes``) (per chapter: the minutes and the notes of each
``##`` section; MyST roles such as ``{glue:text}`key:fmt``` allowed). Each becomes a markdown cell
right after its section's heading cell, tagged ``remove-cell`` (the book page hides it; the decks and
RISE show it in the speaker view) and ``speaker-notes`` (how this script finds the cells it wrote and
replaces them). Glue roles are replaced by the values stored in the notebook, so a notes cell reads
the same in RISE as in the deck; re-run after re-executing a chapter. The title slide's notes list the
minutes of every section. Every notebook also gets ``metadata.rise`` (the white theme: RISE's default
theme loads web fonts).

    python scripts/slide_metadata.py                # apply to book/[0-9][0-9]_*.ipynb (and the notes file's others)
    python scripts/slide_metadata.py --check        # exit 1 if a cell has no slide type or the notes are stale
    python scripts/slide_metadata.py book/04_the_cache.ipynb

Idempotent: a second run changes nothing. Each notebook is read and written once, with nbformat.
"""

from __future__ import annotations

import argparse
import ast
import copy
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import nbformat

from coursebuild.slide_layout import SLIDE_PX, cell_px
from coursebuild.speaker_notes import NOTES_DIR, NOTES_TAG, headings, is_notes, load_notes, notes_cells_for  # noqa: F401
from coursebuild.speaker_notes import source as _source

ROOT = Path(__file__).resolve().parents[1]
#: cells no slide shows: hidden on the page too, or tagged ``deck-skip`` (on the page, left out of the deck: a long
#: table whose summary the slide shows instead)
HIDDEN_TAGS = frozenset({"remove-cell", "hide-cell", "deck-skip"})
RISE_METADATA = {"theme": "white", "transition": "none", "scroll": True, "start_slideshow_at": "beginning"}


def _tags(cell: Mapping[str, Any]) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def is_imports(source: str) -> bool:
    """Tell whether a code cell only imports (and sets the course's plot style): not worth a slide.

    >>> is_imports("%matplotlib inline\\nimport json\\nfrom labcore import x\\n\\nuse_course_style()")
    True
    >>> is_imports("plan = fleet_plan(x)")
    False
    """
    lines = [line for line in source.split("\n") if not line.lstrip().startswith("%")]
    try:
        body = ast.parse("\n".join(lines)).body
    except SyntaxError:
        return False

    def harmless(node: ast.stmt) -> bool:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return True
        return (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id == "use_course_style"
        )

    return bool(body) and all(harmless(node) for node in body)


def slide_types(cells: list[Mapping[str, Any]]) -> list[str]:
    """Return the slide type the rule gives each cell (see the module doc).

    Visible cells are laid out in units: a markdown cell and the code cell right after it (the prose
    that introduces the code) stay on one slide; a unit that would overflow the slide starts a subslide.
    """
    types: list[str | None] = [None] * len(cells)
    visible: list[int] = []
    first_code = True  # the first visible code cell: the imports cell, when it only imports
    for i, cell in enumerate(cells):
        if is_notes(cell):
            types[i] = "notes"
        elif _tags(cell) & HIDDEN_TAGS:
            types[i] = "skip"
        elif cell.get("cell_type") == "code" and first_code and is_imports(_source(cell)):
            types[i] = "skip"
        else:
            visible.append(i)
        if cell.get("cell_type") == "code" and types[i] != "notes" and not _tags(cell) & HIDDEN_TAGS:
            first_code = False
    units: list[list[int]] = []
    for i in visible:
        previous = units[-1] if units else None
        if (
            previous
            and len(previous) == 1
            and cells[i].get("cell_type") == "code"
            and cells[previous[0]].get("cell_type") == "markdown"
        ):
            previous.append(i)
        else:
            units.append([i])
    units = [
        part
        for unit in units
        for part in ([unit] if sum(cell_px(cells[i]) for i in unit) <= SLIDE_PX else [[i] for i in unit])
    ]
    used = 0
    for n, unit in enumerate(units):
        first = _source(cells[unit[0]]).lstrip()
        markdown = cells[unit[0]].get("cell_type") == "markdown"
        height = sum(cell_px(cells[i]) for i in unit)
        if n == 0 or (markdown and re.match(r"#{1,2} ", first)):
            kind, used = "slide", height
        elif markdown and (first.startswith("### ") or first.startswith("**Exercise")):
            kind, used = "subslide", height
        elif used and used + height > SLIDE_PX:
            kind, used = "subslide", height
        else:
            kind, used = "-", used + height
        types[unit[0]] = kind
        for i in unit[1:]:
            types[i] = "-"
    return [kind or "-" for kind in types]


def apply(nb: Any, stem: str, notes: Mapping[str, Any] | None) -> Any:
    """Return notebook ``nb`` (nbformat v4) with the rule's slide types, its notes and RISE's metadata."""

    cells = [c for c in nb.cells if not is_notes(c)]
    if notes is not None:
        by_index = notes_cells_for(nb, notes, stem)
        merged = []
        for index, cell in enumerate(cells):
            merged.append(cell)
            for n, text in enumerate(by_index.get(index, [])):
                note = nbformat.v4.new_markdown_cell(text, metadata={"tags": ["remove-cell", NOTES_TAG]})
                note.id = f"notes-{index}-{n}"
                merged.append(note)
        cells = merged
    for cell, kind in zip(cells, slide_types(cells), strict=True):
        cell.metadata["slideshow"] = {"slide_type": kind}
    nb.cells = cells
    nb.metadata["rise"] = dict(RISE_METADATA)
    return nb


def problems(path: Path, notes: Mapping[str, Any]) -> list[str]:
    """Return what ``--check`` reports for one notebook: cells without a slide type, missing or stale notes."""

    nb = nbformat.read(path, as_version=4)
    found = [
        f"{path.name}: cell {i} ({c.cell_type}, {_source(c)[:40]!r}) has no slideshow.slide_type"
        for i, c in enumerate(nb.cells)
        if not (c.metadata.get("slideshow") or {}).get("slide_type")
    ]
    entry = notes.get(path.stem)
    if entry is None:
        return found + [f"{path.name}: no speaker notes in scripts/speaker_notes/{path.stem}.yml"]
    try:
        want = apply(copy.deepcopy(nb), path.stem, entry)
    except ValueError as error:
        return found + [str(error)]
    have_notes = [(i, c.source) for i, c in enumerate(nb.cells) if is_notes(c)]
    want_notes = [(i, c.source) for i, c in enumerate(want.cells) if is_notes(c)]
    if have_notes != want_notes:
        found.append(
            f"{path.name}: speaker notes missing or stale ({len(have_notes)} notes cells, "
            f"{len(want_notes)} expected): run python scripts/slide_metadata.py book/{path.name}"
        )
    if nb.metadata.get("rise") != RISE_METADATA:
        found.append(f"{path.name}: metadata.rise is not {RISE_METADATA}")
    return found


def default_notebooks(notes: Mapping[str, Any]) -> list[Path]:
    """Return the chapters and the other notebooks the notes file covers, in name order."""
    chapters = set((ROOT / "book").glob("[0-9][0-9]_*.ipynb"))
    others = {ROOT / "book" / f"{stem}.ipynb" for stem in notes}
    return sorted(p for p in chapters | others if p.is_file())


def main(argv: list[str] | None = None) -> int:
    """Apply (or ``--check``) the slide metadata and speaker notes."""

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", type=Path, nargs="*")
    parser.add_argument("--check", action="store_true", help="report, change nothing; exit 1 on any problem")
    parser.add_argument(
        "--notes", type=Path, default=NOTES_DIR, help="the folder of notes files (default scripts/speaker_notes)"
    )
    args = parser.parse_args(argv)
    notes = load_notes(args.notes)
    paths = [p.resolve() for p in args.notebooks] or default_notebooks(notes)
    if args.check:
        found = [problem for path in paths for problem in problems(path, notes)]
        print("\n".join(found) or f"slide metadata and speaker notes up to date in {len(paths)} notebooks")
        return 1 if found else 0
    changed, failed = [], []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        before = nbformat.writes(nb)
        try:
            apply(nb, path.stem, notes.get(path.stem))
        except (ValueError, KeyError) as error:  # sections out of step, or a glue key the notebook lacks
            failed.append(f"{path.name}: {error}")
            continue
        if nbformat.writes(nb) != before:
            nbformat.write(nb, path)
            changed.append(path.name)
    print(f"slide metadata and notes written to: {', '.join(changed) or 'none (already up to date)'}")
    if failed:
        print("not written (fix the notes file, then run again):\n" + "\n".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
