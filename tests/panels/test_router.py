"""labcore.panels.router: the latency panel is the router's, with the course's one overhead rule."""

from labcore.capacity import DYNAMIC_OVERHEAD
from labcore.links import PCIE4_X16
from labcore.panels.router import route_latency_panel


def test_the_default_is_the_chapters_router():
    row = route_latency_panel().row()
    assert row["overhead_pct"] == 100 * DYNAMIC_OVERHEAD
    assert (row["base_ms"], row["hit_ms"], row["miss_ms"]) == (40.0, 40.0 * (1 + DYNAMIC_OVERHEAD), 44.0)


def test_a_link_changes_only_the_miss():
    panel = route_latency_panel()
    lab, pcie = panel.row(adapter_vram_mb=320.0), panel.row(adapter_vram_mb=320.0, link=PCIE4_X16.name)
    assert pcie["hit_ms"] == lab["hit_ms"] and pcie["miss_ms"] < lab["miss_ms"]
    assert pcie["miss_ms"] == round(40.0 * (1 + DYNAMIC_OVERHEAD) + PCIE4_X16.transfer_ms(320.0), 6)
