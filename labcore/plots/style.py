"""The course look, set once: the palettes, a stable colour per tenant and per mode, axis units, dollars.

Every figure module of :mod:`labcore.plots` draws with these, and the panels of
:mod:`labcore.panels` take their colours from here too.

>>> use_course_style()
>>> tenant_color("support-bot") == tenant_color("support-bot")
True
>>> MODE_COLORS["dynamic"]
'#009E73'
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

try:  # optional: without matplotlib (the offline live version) every plot_* prints a note instead
    import matplotlib
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
    from matplotlib.rcsetup import cycler
    from matplotlib.ticker import FuncFormatter
except ImportError:
    matplotlib = plt = Patch = FuncFormatter = cycler = None  # type: ignore[assignment,misc]

from .._validate import choice, text
from ..router import MODE_BASE, MODE_DEDICATED, MODE_DYNAMIC
from ..sizing import MB_PER_GB
from .offline import figure_skipped_note

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

__all__ = [
    "figure_alt",
    "OKABE_ITO",
    "GREY",
    "MODE_COLORS",
    "MEMORY_COLORS",
    "course_rc",
    "use_course_style",
    "tenant_color",
    "mode_color",
    "axis_label",
    "set_axis_units",
    "usd_formatter",
    "legend_patches",
]

# Okabe & Ito (2008), "Color Universal Design": distinguishable under the common colour-vision deficiencies.
OKABE_ITO: dict[str, str] = {
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
    "black": "#000000",
}
GREY = "#999999"

# One colour per serving mode, used by every chapter (the router's MODE_* strings are the keys).
MODE_COLORS: dict[str, str] = {
    MODE_BASE: OKABE_ITO["blue"],
    MODE_DYNAMIC: OKABE_ITO["bluish_green"],
    MODE_DEDICATED: OKABE_ITO["vermillion"],
}
# One colour per slice of GPU memory.
MEMORY_COLORS: dict[str, str] = {
    "base": OKABE_ITO["blue"],
    "kv_cache": OKABE_ITO["sky_blue"],
    "adapters": OKABE_ITO["bluish_green"],
    "free": "#DDDDDD",
}
# Tenants hash into the palette minus yellow (too pale on white for thin lines).
_TENANT_PALETTE: tuple[str, ...] = tuple(c for k, c in OKABE_ITO.items() if k != "yellow")


def course_rc() -> dict[RcKeyType, Any]:
    """Return the course's matplotlib rcParams as a dict (for ``matplotlib.rc_context``).

    >>> course_rc()["axes.grid"]
    True
    """
    return {
        "axes.prop_cycle": cycler(color=list(OKABE_ITO.values())),
        "font.family": "DejaVu Sans",
        "font.size": 11,
        "text.hinting": "none",  # ~20% faster text drawing, which dominates a slider redraw
        "axes.titlesize": 12,
        "axes.titleweight": "bold",
        "axes.labelsize": 11,
        "axes.grid": True,
        "grid.color": "#DDDDDD",
        "grid.linewidth": 0.8,
        "axes.axisbelow": True,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "legend.frameon": False,
        "figure.figsize": (6.4, 3.6),
        "figure.dpi": 100,
        "savefig.bbox": "standard",
        "figure.autolayout": False,
        "figure.constrained_layout.use": True,
        # Figures are SVG in the book (crisp at any width): text stays text, ids are reproducible.
        "svg.fonttype": "none",
        "svg.hashsalt": "labcore",
    }


def use_course_style() -> None:
    """Apply the course style to every later matplotlib figure (call once, in the imports cell).

    >>> use_course_style()
    >>> import matplotlib
    >>> matplotlib.rcParams["axes.spines.top"]
    False

    Without matplotlib it prints one line saying figures will be skipped.
    """
    if matplotlib is None:
        print(figure_skipped_note().replace("(figure skipped:", "(figures will be skipped:"))
        return
    matplotlib.rcParams.update(course_rc())
    try:  # in a notebook, figures are shown as SVG (vector: sharp on any screen, any zoom)
        from IPython import get_ipython  # optional, as matplotlib_inline: a kernel's packages
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:  # pragma: no cover - no IPython here
        return
    shell = get_ipython()
    if shell is not None:  # no date in the SVG's metadata: the same figure gives the same file
        set_matplotlib_formats("svg", metadata={"Date": None})
        svg = shell.display_formatter.formatters["image/svg+xml"]
        drawn = svg.lookup_by_type(matplotlib.figure.Figure)
        # the same SVG, with the figure's text alternative in the output's metadata (the book's pages write it as alt)
        svg.for_type(matplotlib.figure.Figure, lambda fig: (drawn(fig), {"alt": figure_alt(fig)}))


def figure_alt(fig: Any) -> str:
    """Return a figure's text alternative: its titles, which state its point (the course's rule), and its axes.

    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(); _ = ax.set_title("Hit rate falls past the working set"); _ = ax.set_xlabel("budget (MiB)")
    >>> _ = ax.set_ylabel("hit rate (%)"); figure_alt(fig)
    'Hit rate falls past the working set: hit rate (%) against budget (MiB).'
    >>> plt.close(fig)
    """
    parts = []
    suptitle = getattr(fig, "_suptitle", None)
    if suptitle is not None and suptitle.get_text().strip():
        parts.append(" ".join(suptitle.get_text().split()))
    for ax in fig.axes:
        title = " ".join(" ".join(ax.get_title(loc) for loc in ("left", "center", "right")).split())
        y, x = (" ".join(label.split()) for label in (ax.get_ylabel(), ax.get_xlabel()))
        axes = f"{y} against {x}" if y and x else y or x
        if title or axes:
            parts.append(f"{title}: {axes}" if title and axes else title or axes)
    return (". ".join(parts) + ".") if parts else "A figure of the chapter (its numbers are in the text around it)."


def tenant_color(name: str) -> str:
    """Return the stable colour of a tenant: the same name gets the same colour in every chapter and run.

    Python's ``hash`` is salted per process, so the colour comes from a BLAKE2 digest instead.

    >>> tenant_color("tenant-07") in OKABE_ITO.values()
    True
    """
    text("tenant name", name, blank_ok=True)
    digest = hashlib.blake2b(name.encode("utf-8"), digest_size=2).digest()
    return _TENANT_PALETTE[int.from_bytes(digest, "big") % len(_TENANT_PALETTE)]


def mode_color(mode: str) -> str:
    """Return the colour of a serving mode (``"base"``, ``"dynamic"`` or ``"dedicated"``).

    >>> mode_color("dedicated")
    '#D55E00'
    """
    return MODE_COLORS[choice("serving mode", mode, sorted(MODE_COLORS))]


def axis_label(quantity: str, unit: str | None = None) -> str:
    """Return an axis label with its unit in parentheses.

    >>> axis_label("Adapter VRAM", "MiB")
    'Adapter VRAM (MiB)'
    >>> axis_label("Tenants")
    'Tenants'
    """
    return f"{quantity} ({unit})" if unit else quantity


def set_axis_units(
    ax: Axes, *, x: tuple[str, str | None] | None = None, y: tuple[str, str | None] | None = None
) -> None:
    """Label an axes' x and/or y axis as ``(quantity, unit)`` pairs."""
    if x is not None:
        ax.set_xlabel(axis_label(*x))
    if y is not None:
        ax.set_ylabel(axis_label(*y))


def _usd(value: float, _pos: object = None) -> str:
    if abs(value) >= 1e6:
        return f"${value / 1e6:.1f}M"
    if abs(value) >= 1e3:
        return f"${value / 1e3:.0f}k"
    return f"${value:.0f}"


def usd_formatter() -> FuncFormatter:
    """Return a tick formatter that writes dollars compactly ($2k, $93k, $1.2M).

    >>> usd_formatter()(93440, None)
    '$93k'
    """
    return FuncFormatter(_usd)


def _axes(ax: Axes | None) -> tuple[Figure, Axes]:
    if ax is None:
        fig, ax = plt.subplots()
        return fig, ax
    # the figure that holds ``ax`` (a SubFigure if ax is in one: the plots only draw on it and hand it back)
    return cast("Figure", ax.figure), ax


def _fmt_mb(mb: float) -> str:
    return f"{mb / MB_PER_GB:,.1f} GiB" if mb >= MB_PER_GB else f"{mb:,.1f} MiB"


def legend_patches(colors: Mapping[str, str]) -> list[Any]:
    """Return legend handles for a ``{label: colour}`` mapping."""
    return [Patch(color=c, label=k) for k, c in colors.items()]
