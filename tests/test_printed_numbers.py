"""The instructors' pages print numbers as the chapters do: no glued float at full precision, the same rounding."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from coursebuild.lite.notebooks import glue_values
from coursebuild.myst_text import to_commonmark

BOOK = Path(__file__).resolve().parent.parent / "book"
PAGES = ["cheat_sheet", "instructors"]
_ROLE = re.compile(r"\{glue:text\}`(?P<key>[^`:]+)(?::(?P<spec>[^`]*))?`")


@pytest.mark.parametrize("stem", PAGES)
def test_no_glued_number_prints_at_full_precision(stem: str) -> None:
    """A float glued without a format prints every digit (79.6474609375): each must carry a format such as ``:.1f``."""
    nb = nbformat.read(BOOK / f"{stem}.ipynb", as_version=4)
    values = glue_values(nb)
    raw = [
        f"{m['key']} = {values[m['key']]}"
        for cell in nb.cells
        if cell.cell_type == "markdown"
        for m in _ROLE.finditer(cell.source)
        if not m["spec"] and re.fullmatch(r"-?\d+\.\d{4,}", values[m["key"]])
    ]
    assert not raw, f"{stem} prints these at full precision: {raw}"


def test_the_cheat_sheets_gpu_split_reads_as_chapter_2s() -> None:
    """0.9 × 79.6 − 15.0 − 24 = 32.7 GiB on the cheat sheet, as chapter 2 prints the same split."""
    sheet = nbformat.read(BOOK / "cheat_sheet.ipynb", as_version=4)
    chapter = nbformat.read(BOOK / "02_adapter_is_a_delta.ipynb", as_version=4)
    text = to_commonmark(sheet.cells[0].source, glue_values(sheet))
    ours = to_commonmark(
        "{glue:text}`ch02_memory_fraction:g` × {glue:text}`ch02_gpu_gib:.1f` − "
        "{glue:text}`ch02_base_gib:.1f` − {glue:text}`ch02_kv_gib:.0f` = "
        "{glue:text}`ch02_h100_pool_gb:.1f` GiB",
        glue_values(chapter),
    )
    assert ours in " ".join(text.split()), f"the cheat sheet does not print chapter 2's split {ours!r}"
