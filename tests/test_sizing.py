"""labcore.sizing beyond the contract: the GPU memory split."""

import pytest

from labcore import gpu_memory_split


def test_spare_vram_counts_the_adapters_that_fit():
    split = gpu_memory_split(80, base_vram_gb=16, kv_cache_gb=24, adapter_vram_mb=16.0)
    assert split.adapter_pool_mb == 40 * 1024 and split.adapters_that_fit == 2560


def test_70b_on_8_gb_spare_holds_25_adapters_of_320_mb():
    assert gpu_memory_split(80, base_vram_gb=0, kv_cache_gb=72, adapter_vram_mb=320.0).adapters_that_fit == 25


def test_overcommitted_gpu_is_refused_with_the_numbers():
    with pytest.raises(ValueError, match="exceed"):
        gpu_memory_split(24, base_vram_gb=16, kv_cache_gb=10, adapter_vram_mb=16.0)
