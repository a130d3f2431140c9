"""The course's interactive panels, one module per domain noun, each a kernel-free :class:`Panel`.

Every panel is computed by labcore over a grid of control values and displayed as a Vega-Lite
v5 spec, so it works on the static book page (no kernel, no network), in JupyterLab and in
JupyterLite. Show any of them from a blank notebook in one call:

>>> import labcore.panels as panels
>>> sorted(panels.PANELS)[:3]
['adapter_vram_panel', 'admission_panel', 'affinity_panel']
>>> panels.show("batch_panel").name
'batch_panel'

``panel.row(**values)`` computes any state, on the grid or not (a live kernel's "what if").
"""

from __future__ import annotations

from collections.abc import Callable

from ._grid import spec_grid_key
from ._panel import Control, Lines, Panel, Series, Text
from .admission import admission_panel
from .affinity import affinity_panel
from .batching import batch_panel
from .cache import lru_thrash_panel, your_cache_panel
from .canary import canary_panel
from .fleet import fleet_calculator_panel, fleet_load_panel, fleet_savings_panel, your_fleet_panel
from .launch import launch_panel
from .live import LivePanel, live_panel
from .registry import release_panel, your_registry_panel
from .router import route_latency_panel, your_router_panel
from .sim import customer41_panel, onboarding_panel, your_simulator_panel
from .sizing import adapter_vram_panel, fit_quiz_panel, gpu_fit_panel, gpu_split_panel
from .slots import slot_cliff_panel
from .tiers import spill_panel

#: Every panel factory by name (the names the package imports from its noun modules; which page shows which is
#: declared by the chapters' manifests, :data:`labcore.chapters.PANELS`, and a test holds the two equal).
PANELS: dict[str, Callable[[], Panel]] = {
    name: f
    for name, f in sorted(globals().items())
    if name.endswith("_panel") and name[0] != "_" and f is not live_panel
}

__all__ = [
    "Control",
    "Lines",
    "LivePanel",
    "PANELS",
    "Panel",
    "Series",
    "Text",
    "live_panel",
    "show",
    "spec_grid_key",
    *PANELS,
]


def show(name: str, **options: object) -> Panel:
    """Build the panel called ``name`` (display the result to draw it).

    >>> show("no_such_panel")
    Traceback (most recent call last):
    ...
    KeyError: "no panel 'no_such_panel'; panels: ['adapter_vram_panel', ...]"
    """
    if name not in PANELS:
        raise KeyError(f"no panel {name!r}; panels: {sorted(PANELS)[:1] + ['...']}")
    return PANELS[name](**options)
