"""coursebuild.math_svg: the book's formulas typeset at build time by the site's MathJax under Node."""

from __future__ import annotations

import shutil

import pytest

from coursebuild.math_svg import MATHJAX, formula_key, has_tex_error, typeset


@pytest.fixture(scope="module")
def typeset_two():
    if shutil.which("node") is None or not (MATHJAX / "node-main.js").is_file():
        pytest.skip("node or node_modules/mathjax is missing (npm ci)")
    return typeset([(r"\Delta W = \frac{\alpha}{r} B A", False), ("h = W x", True)])


def test_each_formula_is_an_svg_with_a_mathml_copy_for_screen_readers(typeset_two):
    css, html = typeset_two
    inline = html[formula_key(r"\Delta W = \frac{\alpha}{r} B A", False)]
    svg = inline[inline.find("<svg ") : inline.find(">", inline.find("<svg ")) + 1]
    assert inline.startswith("<mjx-container") and 'aria-hidden="true"' in svg and 'role="img"' not in inline
    assert "<mjx-assistive-mml" in inline and "<mfrac>" in inline and 'fill="currentColor"' in inline
    assert 'display="true"' in html[formula_key("h = W x", True)]
    assert "mjx-assistive-mml" in css


def test_bad_tex_is_told_apart_so_the_build_can_warn(typeset_two):
    _css, html = typeset([(r"\frac{a}", False)])
    drawn = next(iter(html.values()))
    assert has_tex_error(drawn) and drawn.count('aria-hidden="true"') == 1
    assert not any(has_tex_error(h) for h in typeset_two[1].values())


def test_no_formula_needs_no_node():
    assert typeset([]) == ("", {})
