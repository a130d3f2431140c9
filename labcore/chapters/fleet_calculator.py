"""The fleet calculator's manifest: a page beside the chapters (no number), with three panels and no exercise."""

from __future__ import annotations

from ..panels.fleet import fleet_calculator_panel
from ..panels.launch import launch_panel
from ..panels.sizing import gpu_fit_panel
from ._chapter import Chapter

CHAPTER = Chapter(number=None, slug="fleet_calculator", panels=(fleet_calculator_panel, gpu_fit_panel, launch_panel))
