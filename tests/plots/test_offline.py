"""Tests for labcore.plots.offline: without matplotlib, labcore.plots imports and every plot_* prints one note."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import labcore.plots as plots
from labcore.plots.offline import needs_matplotlib


def _run_without_matplotlib(code: str) -> str:
    """Run ``code`` in a fresh interpreter where ``import matplotlib`` fails; return its stdout."""
    prelude = "import sys\nsys.modules['matplotlib'] = None\n"
    done = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)],
                          capture_output=True, text=True, check=True)
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
    assert out.splitlines() == ["(figure skipped: matplotlib is not installed here — pip install matplotlib)", "None None"]
