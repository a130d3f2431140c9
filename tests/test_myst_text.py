"""coursebuild.myst_text: MyST prose becomes plain CommonMark, with glue values pasted and no markup left."""

from __future__ import annotations

import re

import pytest

from coursebuild.myst_text import role_text, to_commonmark

GLUE = {"pct": "97.456", "gpus": "40", "model": "'llama-3-8b'"}


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("saves {glue:text}`pct:.1f`%", "saves 97.5%"),
        ("{glue}`gpus` GPUs", "40 GPUs"),
        ("on {glue:text}`model`", "on llama-3-8b"),
        ("a {term}`slot`", "a slot"),
        ("the {term}`base <base model>` model", "the base model"),
        ("see {ref}`the cache <ch-cache>` and {doc}`04_the_cache`", "see the cache and 04_the_cache"),
        ("{numref}`fig-1`, {abbr}`GQA (grouped-query attention)`", "fig-1, GQA (grouped-query attention)"),
        ("{math}`r^2` and {code}`x = 1`", "$r^2$ and `x = 1`"),
        ("as {cite}`punica2023` shows", "as [punica2023] shows"),
    ],
)
def test_roles_become_plain_text(source: str, expected: str) -> None:
    assert to_commonmark(source, GLUE) == expected


def test_code_spans_and_fences_keep_their_markup() -> None:
    text = 'Write `{term}` roles.\n\n```python\nx = "{glue:text}`pct`"\n```\n\n``{ref}`x` `` stays'
    assert to_commonmark(text, GLUE) == text


def test_admonitions_become_block_quotes_with_a_title() -> None:
    out = to_commonmark(":::{warning}\nThe budget is a **wall**.\n:::\nAfter.", GLUE)
    assert "> **Warning.** The budget is a **wall**." in out
    assert out.rstrip().endswith("\n\nAfter.")  # a paragraph of its own, not a lazy continuation of the quote
    titled = to_commonmark("```{admonition} Why 1%?\n:class: tip\nBecause p99.\n```", GLUE)
    assert titled.strip() == "> **Why 1%?** Because p99."


def test_glossary_becomes_term_and_definition_lines() -> None:
    out = to_commonmark(
        ":::{glossary}\nslot\n  Room for one adapter\n  in a batch.\n\nthrash\n  Evicting what is needed next.\n:::",
        GLUE,
    )
    assert "**slot**: Room for one adapter in a batch." in out and "**thrash**: Evicting what is needed next." in out


def test_nested_directives_options_targets_comments_breaks_disappear() -> None:
    text = "(sec-cache)=\n% a comment\n+++\n::::{note}\n:class: dropdown\n:::{tip}\nInner {term}`tip`.\n:::\n::::"
    out = to_commonmark(text, GLUE)
    assert "Inner tip." in out and not re.search(r"[{}]|:::|\(sec-cache\)=|% a comment|\+\+\+|:class:", out)


def test_dropped_directives_vanish_with_their_content() -> None:
    text = "Before.\n\n```{solution} ex-1\n:class: dropdown\nThe answer is 42.\n```\n\nAfter."
    out = to_commonmark(text, GLUE, drop={"solution"})
    assert "42" not in out and "Before." in out and "After." in out


def test_math_code_and_figure_directives() -> None:
    assert to_commonmark("```{math}\nx^2\n```").strip() == "$$\nx^2\n$$"
    assert to_commonmark("```{code-block} python\n:linenos:\nx = 1\n```").strip() == "```python\nx = 1\n```"
    assert to_commonmark(":::{figure} plot.svg\nThe cliff.\n:::").strip().startswith("![The cliff.](plot.svg)")


def test_unknown_glue_key_fails_loudly_and_no_values_leave_a_note() -> None:
    with pytest.raises(KeyError, match="nope"):
        to_commonmark("{glue:text}`nope`", GLUE)
    assert role_text("glue:text", "pct", None) == "*[pct: see the book page]*"
