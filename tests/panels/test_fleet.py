"""labcore.panels.fleet: the chapters' experiment at the defaults, and load (with its overhead) shrinking the saving."""

import math

from labcore.capacity import DYNAMIC_OVERHEAD
from labcore.panels.fleet import QUIET_TENANT_QPS, fleet_calculator_panel, fleet_load_panel, fleet_savings_panel


def test_defaults_read_the_chapters_experiment():
    """The states read here are computed one by one (``row``); the grid's rows equal them (tests/panels/test_catalogue)."""
    row = fleet_savings_panel().row()
    assert (row["tenants"], row["gpu_hourly_usd"], row["tenant_qps"]) == (40, 3.2, QUIET_TENANT_QPS)
    assert (row["dedicated_gpus"], row["multi_lora_gpus"]) == (40, 1)
    assert row["savings_pct"] == 97.5 and "97.5% cheaper" in row["readout"]
    assert "40 × 0.25 × 1.05 = 10.5 req/s" in row["readout"]
    assert fleet_load_panel().row()["savings_pct"] == 97.5


def test_load_panel_needs_more_shared_gpus_as_load_rises():
    panel = fleet_load_panel()
    gpus = [panel.row(tenant_qps=q)["multi_lora_gpus"] for q in (0.25, 5.0, 20.0)]
    assert gpus == sorted(gpus) == [1, math.ceil(40 * 5 * (1 + DYNAMIC_OVERHEAD) / 20), 42]
    full = panel.row(tenant_qps=20.0)  # every dedicated GPU busy: the shared fleet costs the overhead more
    assert full["savings_pct"] == -5.0 and "5.0% dearer" in full["readout"]
    assert panel.row(tenant_qps=10.0)["savings_pct"] == 47.5  # the idle share (50%) less the overhead


def test_the_calculator_opens_on_the_capstones_load_with_the_overhead():
    row = fleet_calculator_panel().row()  # 40 tenants at 0.5 req/s: 21 req/s with the overhead, 2 GPUs of 20
    assert (row["tenants"], row["tenant_qps"], row["multi_lora_gpus"], row["binding"]) == (40, 0.5, 2, "load")
