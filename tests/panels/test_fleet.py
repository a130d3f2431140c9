"""labcore.panels.fleet: the lab's headline at the defaults, and load shrinking the saving."""

from labcore.panels.fleet import fleet_load_panel, fleet_savings_panel


def test_defaults_read_the_lab_headline():
    """The states read here are computed one by one (``row``); the grid's rows equal them (tests/panels/test_catalogue)."""
    row = fleet_savings_panel().row()
    assert (row["tenants"], row["gpu_hourly_usd"], row["dedicated_gpus"], row["multi_lora_gpus"]) == (40, 3.2, 40, 1)
    assert row["savings_pct"] == 97.5 and "97.5% cheaper" in row["readout"]


def test_load_panel_needs_more_shared_gpus_as_load_rises():
    panel = fleet_load_panel()
    gpus = [panel.row(tenant_qps=q)["multi_lora_gpus"] for q in (0.5, 5.0, 20.0)]
    assert gpus == sorted(gpus) and gpus[1] == 10 and panel.row(tenant_qps=20.0)["savings_pct"] == 0.0
