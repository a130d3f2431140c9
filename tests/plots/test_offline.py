"""Tests for labcore.plots.offline: without matplotlib, labcore.plots imports and every plot_* prints one note."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import labcore.plots as plots
from labcore.plots.offline import BOOK_FIGURE_CAPTION, cell_key, needs_matplotlib


def _run_without_matplotlib(code: str) -> str:
    """Run ``code`` in a fresh interpreter where ``import matplotlib`` fails; return its stdout."""
    prelude = "import sys\nsys.modules['matplotlib'] = None\n"
    done = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True, check=True
    )
    return done.stdout


def test_with_matplotlib_the_decorator_returns_the_function_itself():
    def plot_x():
        return "drawn"

    assert needs_matplotlib(plot_x) is plot_x


def test_every_plot_function_is_reexported_and_decorated_at_its_definition():
    names = [n for n in plots.__all__ if n.startswith("plot_")]
    assert len(names) == 26
    assert all(getattr(plots, n).__module__.startswith("labcore.plots.") for n in names)


def test_labcore_plots_imports_without_matplotlib_and_every_plot_prints_one_note():
    out = _run_without_matplotlib("""
        import labcore.plots as plots, labcore.panels
        plots.use_course_style()
        names = [n for n in plots.__all__ if n.startswith("plot_")]
        print(all(getattr(plots, n)() is None for n in names), len(names))
    """)
    lines = out.splitlines()
    assert lines[0] == "(figures will be skipped: matplotlib is not installed here — pip install matplotlib)"
    assert lines[1:-1] == ["(figure skipped: matplotlib is not installed here — pip install matplotlib)"] * 26
    assert lines[-1] == "True 26"


def test_drawing_on_stand_in_axes_prints_the_note_once():
    out = _run_without_matplotlib("""
        from labcore.plots import offline_pyplot, plot_ms_bars
        plt = offline_pyplot()
        fig, (left, right) = plt.subplots(1, 2)
        print(plot_ms_bars({"a": 1.0}, title="t", ax=left), plot_ms_bars({"a": 1.0}, title="t", ax=right))
        plt.show()
    """)
    assert out.splitlines() == [
        "(figure skipped: matplotlib is not installed here — pip install matplotlib)",
        "None None",
    ]


def test_a_cell_the_book_drew_shows_the_books_figure_and_an_edited_cell_the_note(tmp_path):
    """Without matplotlib, in IPython: a cell whose source the figure index knows shows the stored image (once, with
    its caption) at plt.show() or at the cell's end; an edited cell prints the skipped note instead."""

    book_cell = "fig, ax = plt.subplots()\nplot_ms_bars({'a': 1.0}, title='t', ax=ax)\nplt.show()"
    no_show = "plot_ms_bars({'a': 1.0}, title='t')"
    (tmp_path / "ch").mkdir()
    (tmp_path / "ch" / "one.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/>')
    index = tmp_path / "ch.json"
    index.write_text(json.dumps({"figures": {cell_key(book_cell): ["ch/one.svg"], cell_key(no_show): ["ch/one.svg"]}}))
    out = _run_without_matplotlib(f"""
        import os
        os.environ["LABCORE_BOOK_FIGURES"] = {str(index)!r}
        from IPython.core.interactiveshell import InteractiveShell
        from IPython.utils.capture import capture_output
        shell = InteractiveShell.instance()
        shell.run_cell("from labcore.plots import offline_pyplot, plot_ms_bars\\nplt = offline_pyplot()")
        for source in ({book_cell!r}, {no_show!r}, {book_cell!r} + "\\n# edited"):
            with capture_output() as cap:
                shell.run_cell(source, store_history=True)
            print([sorted(o.data) for o in cap.outputs], repr(cap.stdout))
    """)
    caption = repr(BOOK_FIGURE_CAPTION + "\n")
    assert out.splitlines() == [
        f"[['image/svg+xml', 'text/plain']] {caption}",  # at plt.show()
        f"[['image/svg+xml', 'text/plain']] {caption}",  # no plt.show(): when the cell ends
        "[] '(figure skipped: matplotlib is not installed here — pip install matplotlib)\\n'",
    ]
