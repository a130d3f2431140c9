"""What still runs without matplotlib (e.g. the live version's kernel): the book's figure, or a note, per figure.

Every ``plot_*`` function is defined under :func:`needs_matplotlib`. With matplotlib installed the
decorator returns the function unchanged; without it, the function draws nothing and returns
``None``, and :func:`offline_pyplot` stands in for ``matplotlib.pyplot`` so notebook cells still run.

What such a cell shows instead of its figure: when the environment variable ``LABCORE_BOOK_FIGURES``
names an index of the figures the book build drew (written by the live site's staging: the key
of each figure cell's source, :func:`cell_key`, to its stored SVG/PNG files) and the running
cell's source is in it, the cell shows those images with the one-line :data:`BOOK_FIGURE_CAPTION`
(at ``plt.show()``, or when the cell ends); otherwise it prints :func:`figure_skipped_note`.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ..site import FIGURES_ENV  # the index of the book's figures: {"figures": {cell_key: [file, ...]}}

try:
    import matplotlib
except ImportError:
    matplotlib = None  # type: ignore[assignment]

__all__ = ["HAVE_MATPLOTLIB", "needs_matplotlib", "figure_skipped_note", "OfflinePyplot", "offline_pyplot"]

#: Whether matplotlib could be imported in this interpreter.
HAVE_MATPLOTLIB: bool = matplotlib is not None
#: The line under a figure shown from the book build instead of drawn.
BOOK_FIGURE_CAPTION = (
    "(the book's figure for this cell, drawn with the default values when the book was built: "
    "this live kernel has no matplotlib; the panels compute live)"
)

_Plot = TypeVar("_Plot", bound=Callable[..., Any])


def figure_skipped_note() -> str:
    """Return the one line printed in place of a figure when matplotlib is missing (and the book has none to show).

    >>> figure_skipped_note().startswith("(figure skipped: ")
    True
    """
    if sys.platform == "emscripten":
        return (
            "(figure skipped: this live kernel has no matplotlib — a cell whose code is the book's "
            "shows the book's figure instead)"
        )
    return "(figure skipped: matplotlib is not installed here — pip install matplotlib)"


def cell_key(source: str) -> str:
    """Return the key of a cell's source in the book's figure index (a digest of the source, stripped).

    >>> cell_key("plt.show()\\n") == cell_key("plt.show()")
    True
    """
    return hashlib.sha256(source.strip().encode("utf-8")).hexdigest()[:16]


def book_figure_files(source: str) -> list[Path]:
    """Return the image files the book build drew for a cell whose source is ``source`` (none without an index).

    >>> book_figure_files("plt.show()") if FIGURES_ENV not in os.environ else []
    []
    """
    index_path = os.environ.get(FIGURES_ENV)
    if not index_path:
        return []
    try:
        index = json.loads(Path(index_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    names = index.get("figures", {}).get(cell_key(source), []) if isinstance(index, dict) else []
    return [Path(index_path).parent / name for name in names]


class _CellFigures:
    """Show the book's figures of the running IPython cell once: at ``plt.show()`` or when the cell ends."""

    def __init__(self) -> None:
        self.shown_for: int | None = None  # the history position of the last cell whose figures were shown
        self.hooked = False

    @staticmethod
    def _shell() -> Any:
        try:
            from IPython import get_ipython  # optional: IPython exists only in a kernel
        except ImportError:
            return None
        return get_ipython()

    def running(self) -> tuple[int, str] | None:
        """Return ``(history position, source)`` of the cell being run, or None outside IPython."""
        shell = self._shell()
        if shell is None:
            return None
        raw = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None) or shell.user_ns.get("In")
        return (len(raw), raw[-1]) if raw else None

    def files(self) -> list[Path]:
        """Return the book's figure files for the running cell (none outside IPython)."""
        cell = self.running()
        return book_figure_files(cell[1]) if cell is not None else []

    def pending(self) -> bool:
        """Note that the running cell draws; return True when the book's figure will be shown for it."""
        shell = self._shell()
        if shell is None or not self.files():
            return False
        if not self.hooked:  # a cell that draws without plt.show() gets its figure when it ends
            shell.events.register("post_run_cell", lambda *args: self.show())
            self.hooked = True
        return True

    def show(self) -> bool:
        """Display the running cell's book figures and caption (once per cell); return whether the book has any."""
        cell = self.running()
        if cell is None:
            return False
        files = book_figure_files(cell[1])
        if not files or cell[0] == self.shown_for:
            return bool(files)
        self.shown_for = cell[0]
        from IPython.display import SVG, Image, display  # optional: only in a kernel (a hooked cell runs in one)

        for path in files:
            display(SVG(filename=str(path)) if path.suffix == ".svg" else Image(filename=str(path)))
        print(BOOK_FIGURE_CAPTION)
        return True


_CELL_FIGURES = _CellFigures()


class _OfflineArtist:
    """Stand in for a matplotlib Figure or Axes without matplotlib: every method call does nothing."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # keep IPython's display machinery and copy/pickle from treating it as real
            raise AttributeError(name)
        return _offline_call

    def __getitem__(self, key: Any) -> _OfflineArtist:
        return self

    def __repr__(self) -> str:
        return "<figure skipped>"

    def _ipython_display_(self) -> None:
        """Show nothing when a cell ends with a stand-in (the note was already printed)."""


def _offline_call(*args: Any, **kwargs: Any) -> _OfflineArtist:
    return _OfflineArtist()


class OfflinePyplot(_OfflineArtist):
    """Stand in for ``matplotlib.pyplot`` where matplotlib is missing, so notebook cells still run.

    ``show()`` shows the book's figure for the running cell when there is one (see the module doc);
    every other call does nothing. ``subplots()`` prints :func:`figure_skipped_note` once (unless
    the book's figure will be shown) and returns stand-in axes, which the ``plot_*`` functions
    accept without a second note.

    >>> plt_offline = offline_pyplot()
    >>> plt_offline.show()
    >>> fig, axes = plt_offline.subplots(1, 2)  # doctest: +ELLIPSIS
    (figure skipped: matplotlib is not ...)
    >>> len(axes)
    2
    """

    def show(self, *args: Any, **kwargs: Any) -> None:
        """Show the book's figure for the running cell, if the book has one (nothing is drawn here)."""
        _CELL_FIGURES.show()

    def subplots(self, nrows: int = 1, ncols: int = 1, **kwargs: Any) -> tuple[Any, Any]:
        """Print the figure-skipped note (unless the book's figure will be shown) and return ``(figure, axes)`` stand-ins."""
        if not _CELL_FIGURES.pending():
            print(figure_skipped_note())
        if nrows == 1 and ncols == 1:
            return _OfflineArtist(), _OfflineArtist()
        if nrows == 1 or ncols == 1:
            return _OfflineArtist(), tuple(_OfflineArtist() for _ in range(nrows * ncols))
        return _OfflineArtist(), tuple(tuple(_OfflineArtist() for _ in range(ncols)) for _ in range(nrows))


def offline_pyplot() -> OfflinePyplot:
    """Return a stand-in for ``matplotlib.pyplot`` whose ``show()`` draws nothing (use it when the import fails).

    >>> offline_pyplot().show() is None
    True
    """
    return OfflinePyplot()


def needs_matplotlib(plot: _Plot) -> _Plot:
    """Return ``plot`` itself when matplotlib is installed; otherwise a stand-in that prints one note.

    The stand-in returns ``None``; drawing on axes from :func:`offline_pyplot` prints nothing
    more (``subplots()`` already said it), and neither does a cell the book has a figure for
    (that figure is shown instead).

    >>> @needs_matplotlib
    ... def plot_nothing(): return "drawn"
    >>> plot_nothing() == ("drawn" if HAVE_MATPLOTLIB else None)
    True
    """
    if HAVE_MATPLOTLIB:
        return plot

    @functools.wraps(plot)
    def skipped(*args: Any, **kwargs: Any) -> None:
        on_stand_in = any(isinstance(a, _OfflineArtist) for a in (*args, *kwargs.values()))
        if not _CELL_FIGURES.pending() and not on_stand_in:
            print(figure_skipped_note())  # drawing on stand-in axes: subplots() already said it
        return None

    return skipped  # type: ignore[return-value]
