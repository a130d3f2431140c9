"""Long prose is split into slides that fit, never inside a code fence, with the notes on the section's first slide."""

from __future__ import annotations

from coursebuild.slide_layout import SLIDE_PX, markdown_px, split_markdown, split_tall_prose


def _para(words: int) -> str:
    return " ".join(["word"] * words)


def test_every_part_fits_and_together_they_are_the_text() -> None:
    text = "\n\n".join(_para(120) for _ in range(8))
    parts = split_markdown(text)
    assert len(parts) > 1 and all(markdown_px(p) <= SLIDE_PX for p in parts)
    assert "\n\n".join(parts) == text


def test_a_code_fence_is_never_cut() -> None:
    fence = "```python\n" + "\n\n".join(f"x{i} = {i}" for i in range(60)) + "\n```"
    parts = split_markdown(_para(200) + "\n\n" + fence, budget=300)
    assert any(p.startswith("```python") and p.endswith("```") for p in parts)
    assert all(p.count("```") in (0, 2) for p in parts)


def test_the_notes_stay_with_the_first_part_and_the_rest_are_subslides() -> None:
    long = {"cell_type": "markdown", "id": "c", "source": "## A\n\n" + "\n\n".join(_para(150) for _ in range(6)),
            "metadata": {"slideshow": {"slide_type": "slide"}}}
    notes = {"cell_type": "markdown", "id": "n", "source": "Say it.", "metadata": {"slideshow": {"slide_type": "notes"}}}
    out = split_tall_prose([long, notes])
    kinds = [c["metadata"]["slideshow"]["slide_type"] for c in out]
    assert kinds[:2] == ["slide", "notes"] and set(kinds[2:]) == {"subslide"} and len(out) > 2
    assert out[0]["source"].startswith("## A") and len({c["id"] for c in out}) == len(out)
