"""The "on your code" panels: each chapter's experiment on a learner's lab/mine, beside the reference.

A learner's copy is written into an unpacked lab folder (``lab_folder``): labcore's own modules where the learner
is right, the lab's two classic mistakes where not (a FIFO cache, a string-comparing ``versions.py``), a router that
forgets the LoRA overhead; and the skeleton where nothing is written yet.
"""

from __future__ import annotations

import pytest

from labcore.contract import LAB_MODULES
from labcore.implementation import Missing, implementation
from labcore.panels import (
    PANELS,
    your_cache_panel,
    your_fleet_panel,
    your_registry_panel,
    your_router_panel,
    your_simulator_panel,
)

from .. import lab_samples

YOURS = (your_registry_panel, your_cache_panel, your_router_panel, your_fleet_panel, your_simulator_panel)


def _mine(lab_folder, **files):
    for module in LAB_MODULES:
        lab_samples.write(lab_folder, module, files.get(module) or lab_samples.reference(module))
    return implementation("mine", root=lab_folder)


@pytest.mark.parametrize("factory", YOURS, ids=lambda f: f.__name__)
def test_on_the_reference_each_panel_shows_the_reference_alone(factory):
    panel = factory()
    assert panel.variant == "" and factory.__name__ in PANELS
    assert not any(s.field.startswith("yours_") for s in panel.chart.series)
    assert '"mine"' in panel.row()["readout"]  # it says how to add your own code


@pytest.mark.parametrize("factory", YOURS, ids=lambda f: f.__name__)
def test_on_a_right_copy_your_line_is_the_reference(factory, lab_folder):
    panel = factory(_mine(lab_folder))
    row = panel.row()
    assert panel.variant == "mine" and panel.grid_key() != factory().grid_key()
    twins = {"yours_hit_pct": "lru_hit_pct", "yours_latest": "reference_latest"}  # the reference's line of each
    compared = [k for k in row if k.startswith("yours_") and (k in twins or k.removeprefix("yours_") in row)]
    assert compared, row
    for field in compared:
        assert row[field] == row[twins.get(field, field.removeprefix("yours_"))], field


@pytest.mark.parametrize("factory", YOURS, ids=lambda f: f.__name__)
def test_on_the_skeleton_each_panel_names_the_function_to_write(factory, lab_folder):
    missing = factory(implementation("mine", root=lab_folder))  # lab/mine is the skeleton
    assert isinstance(missing, Missing) and missing.function.count(".") >= 1
    assert missing.function.split(".")[0] in LAB_MODULES and "TODO(lab)" in missing._repr_markdown_()


def test_a_fifo_cache_draws_the_fifo_curve(lab_folder):
    row = your_cache_panel(_mine(lab_folder, cache=lab_samples.fifo_cache())).row()
    assert row["yours_hit_pct"] == row["fifo_hit_pct"] < row["lru_hit_pct"]


def test_a_string_comparing_versions_module_sends_latest_to_a_stale_release(lab_folder):
    row = your_registry_panel(_mine(lab_folder, versions=lab_samples.VERSIONS_COMPARING_STRINGS)).row()
    assert row["yours_behind"] == row["string_behind"] == 3 and row["yours_latest"] == "1.9.0"
    assert row["yours_refuses_digest"] == "refuses"  # the registry itself is right about digests


def test_a_router_without_overhead_is_faster_in_every_chapter_that_routes(lab_folder):
    mine = _mine(lab_folder, router=lab_samples.router_without_overhead())
    route = your_router_panel(mine).row()
    assert route["yours_hit_ms"] == 40.0 < route["hit_ms"]
    replay = your_simulator_panel(mine).row()
    assert replay["yours_p99_before_ms"] < replay["p99_before_ms"]
