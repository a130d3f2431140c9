"""labcore.panels.sizing: exact sizes from the model configs beside the square formula."""

from labcore.panels.sizing import adapter_vram_panel, fit_quiz_panel, gpu_split_panel
from labcore.model_config import exact_sizing


def test_adapter_panel_is_gqa_aware_and_counts_what_fits():
    panel = adapter_vram_panel()
    row = panel.lookup()
    assert (row["exact_mb"], row["naive_mb"], row["fit_exact"]) == (13.0, 16.0, 630)
    big = panel.lookup(model="llama-3-70b", rank=32, targets="q,k,v,o")
    assert big["naive_mb"] == 320.0 and big["exact_mb"] == exact_sizing("llama-3-70b", 32, "q,k,v,o").exact_mb


def test_gpu_split_never_overfills_the_gpu():
    panel = gpu_split_panel()
    for row in panel.rows():
        assert row["base_gb"] + row["kv_gb"] + row["pool_gb"] <= max(row["gpu_vram_gb"], row["base_vram_gb"]) + 1e-9


def test_quiz_panel_opens_below_the_answer():
    panel = fit_quiz_panel()
    assert panel.defaults()["rank"] == 16 and panel.lookup(rank=32)["fit"] == 25
