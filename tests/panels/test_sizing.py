"""labcore.panels.sizing: exact sizes from the model configs beside the square formula."""

from labcore.capacity import memory_split
from labcore.model_config import exact_adapter_mb, exact_sizing
from labcore.panels.sizing import adapter_vram_panel, fit_quiz_panel, gpu_split_panel


def test_adapter_panel_is_gqa_aware_and_counts_what_fits():
    panel = adapter_vram_panel()
    row = panel.lookup()
    assert (row["exact_mb"], row["naive_mb"], row["fit_exact"]) == (13.0, 16.0, 630)
    big = panel.lookup(model="llama-3-70b", rank=32, targets="q,k,v,o")
    assert big["naive_mb"] == 320.0 and big["exact_mb"] == exact_sizing("llama-3-70b", 32, "q,k,v,o").exact_mb


def test_gpu_split_never_overfills_the_gpu():
    panel = gpu_split_panel()
    for row in panel.rows():
        used = row["base_gib"] + row["kv_gib"] + row["adapters"] * row["adapter_mb"] / 1024
        assert used <= row["gpu_gib"] + 1e-9 or row["adapters"] == 0


def test_gpu_split_default_is_the_chapters_split_and_trades_kv_tokens_for_adapters():
    panel = gpu_split_panel()
    split = memory_split(adapter_mb=exact_adapter_mb("llama-3-8b", 16, ["q_proj", "v_proj"]))
    row = panel.lookup()
    assert (row["gpu_gib"], row["base_gib"], row["kv_gib"], row["adapters"]) == (
        round(split.gpu_gib, 6),
        round(split.base_gib, 6),
        24.0,
        split.adapters_that_fit,
    )
    assert row["kv_tokens"] == 24 * 8192 and row["kv_kib_per_token"] == 128 and row["tokens_per_adapter"] == 104
    more = [panel.lookup(sequences=n)["adapters"] for n in (8, 24, 48, 64)]
    assert more == sorted(more, reverse=True)
    # one more sequence of 8,192 tokens (1 GiB) costs as many adapters as 1 GiB holds
    assert panel.lookup(sequences=32)["adapters"] == memory_split(sequences=32, adapter_mb=13.0).adapters_that_fit


def test_gpu_split_sizes_sliding_window_kv_and_refuses_what_does_not_fit():
    panel = gpu_split_panel()
    mistral = panel.lookup(model="mistral-7b")  # a 4,096-token window on every layer
    assert mistral["kv_gib"] == 12.0 and "sliding window" in mistral["readout"]
    assert panel.lookup(model="mistral-7b", context_tokens=4096)["kv_gib"] == 12.0
    tight = panel.lookup(gpu="L4-24GB", sequences=64, context_tokens=32768)
    assert tight["adapters"] == 0 and "no room" in tight["readout"] and tight["adapters_plot"] is None


def test_quiz_panel_opens_below_the_answer():
    panel = fit_quiz_panel()
    assert panel.defaults()["rank"] == 16 and panel.lookup(rank=32)["fit"] == 25
