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

__all__ = ["Control", "Lines", "LivePanel", "PANELS", "Panel", "Series", "Text", "live_panel", "show", "spec_grid_key", *sorted([
    "admission_panel", "affinity_panel", "fleet_calculator_panel", "batch_panel", "lru_thrash_panel", "canary_panel", "fleet_load_panel",
    "fleet_savings_panel", "release_panel", "route_latency_panel", "customer41_panel", "onboarding_panel",
    "adapter_vram_panel", "fit_quiz_panel", "gpu_fit_panel", "gpu_split_panel", "spill_panel", "slot_cliff_panel",
    "launch_panel", "your_registry_panel", "your_cache_panel", "your_router_panel", "your_fleet_panel", "your_simulator_panel"])]

#: Every panel factory by name (the browser tests and the benchmark iterate over it).
PANELS: dict[str, Callable[[], Panel]] = {f.__name__: f for f in (
    fleet_savings_panel, adapter_vram_panel, gpu_split_panel, release_panel, lru_thrash_panel, route_latency_panel,
    customer41_panel, fleet_load_panel, fit_quiz_panel, onboarding_panel, spill_panel, affinity_panel, canary_panel,
    batch_panel, admission_panel, fleet_calculator_panel, gpu_fit_panel, slot_cliff_panel, launch_panel,
    your_registry_panel, your_cache_panel, your_router_panel, your_fleet_panel, your_simulator_panel)}


def show(name: str, **options: object) -> Panel:
    """Build the panel called ``name`` (display the result to draw it).

    >>> show("no_such_panel")
    Traceback (most recent call last):
    ...
    KeyError: "no panel 'no_such_panel'; panels: ['adapter_vram_panel', ...]"
    """
    if name not in PANELS:
        raise KeyError(f"no panel {name!r}; panels: {sorted(PANELS)[:1] + ['...']}")
    return PANELS[name](**options)  # type: ignore[arg-type]
