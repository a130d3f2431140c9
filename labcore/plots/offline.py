"""What still runs without matplotlib (the live version read offline): a note in place of each figure.

Every ``plot_*`` function is defined under :func:`needs_matplotlib`. With matplotlib installed the
decorator returns the function unchanged; without it, the function prints one note and returns
``None``, and :func:`offline_pyplot` stands in for ``matplotlib.pyplot`` so notebook cells still run.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

try:
    import matplotlib
except ImportError:
    matplotlib = None  # type: ignore[assignment]

__all__ = ["HAVE_MATPLOTLIB", "needs_matplotlib", "figure_skipped_note", "OfflinePyplot", "offline_pyplot"]

#: Whether matplotlib could be imported in this interpreter.
HAVE_MATPLOTLIB: bool = matplotlib is not None

_Plot = TypeVar("_Plot", bound=Callable[..., Any])


def figure_skipped_note() -> str:
    """Return the one line printed in place of each figure when matplotlib is missing.

    >>> figure_skipped_note().startswith("(figure skipped: matplotlib is not")
    True
    """
    if sys.platform == "emscripten":
        return "(figure skipped: matplotlib is not available here — the live version loads it from the internet)"
    return "(figure skipped: matplotlib is not installed here — pip install matplotlib)"


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

    ``show()`` and every other call do nothing; ``subplots()`` prints :func:`figure_skipped_note`
    once and returns stand-in axes, which the ``plot_*`` functions accept without a second note.

    >>> plt_offline = offline_pyplot()
    >>> plt_offline.show()
    >>> fig, axes = plt_offline.subplots(1, 2)  # doctest: +ELLIPSIS
    (figure skipped: matplotlib is not ...)
    >>> len(axes)
    2
    """

    def show(self, *args: Any, **kwargs: Any) -> None:
        """Do nothing (there is no figure to show)."""

    def subplots(self, nrows: int = 1, ncols: int = 1, **kwargs: Any) -> tuple[Any, Any]:
        """Print the figure-skipped note and return ``(figure, axes)`` stand-ins shaped like pyplot's."""
        print(figure_skipped_note())
        if nrows == 1 and ncols == 1:
            return _OfflineArtist(), _OfflineArtist()
        if nrows == 1 or ncols == 1:
            return _OfflineArtist(), tuple(_OfflineArtist() for _ in range(nrows * ncols))
        return _OfflineArtist(), tuple(tuple(_OfflineArtist() for _ in range(ncols)) for _ in range(nrows))


def offline_pyplot() -> OfflinePyplot:
    """Return a stand-in for ``matplotlib.pyplot`` whose ``show()`` does nothing (use it when the import fails).

    >>> offline_pyplot().show() is None
    True
    """
    return OfflinePyplot()


def needs_matplotlib(plot: _Plot) -> _Plot:
    """Return ``plot`` itself when matplotlib is installed; otherwise a stand-in that prints one note.

    The stand-in returns ``None``; drawing on axes from :func:`offline_pyplot` prints nothing
    more (``subplots()`` already said it).

    >>> @needs_matplotlib
    ... def plot_nothing(): return "drawn"
    >>> plot_nothing() == ("drawn" if HAVE_MATPLOTLIB else None)
    True
    """
    if HAVE_MATPLOTLIB:
        return plot

    @functools.wraps(plot)
    def skipped(*args: Any, **kwargs: Any) -> None:
        if not any(isinstance(a, _OfflineArtist) for a in (*args, *kwargs.values())):
            print(figure_skipped_note())  # drawing on stand-in axes: subplots() already said it
        return None

    return skipped  # type: ignore[return-value]
