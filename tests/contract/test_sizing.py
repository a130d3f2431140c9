"""Contract: adapter_vram_mb is layers * targets * 2 * rank * hidden * bytes / 2**20 MiB."""

import pytest


def test_adapter_vram_mb_matches_the_brief(lab):
    assert lab.adapter_vram_mb(16, 4096, 32, 2) == 16.0
    assert lab.adapter_vram_mb(32, 8192, 80, 4) == 320.0


def test_targets_may_be_module_names(lab):
    assert lab.adapter_vram_mb(16, 4096, 32, ["q_proj", "v_proj"]) == lab.adapter_vram_mb(16, 4096, 32, 2)
    assert lab.adapter_vram_mb(16, 4096, 32, ("q", "k", "v", "o")) == 32.0


def test_size_scales_linearly_with_each_factor(lab):
    base = lab.adapter_vram_mb(16, 4096, 32, 2, bytes=2)
    assert lab.adapter_vram_mb(16, 4096, 32, 2, bytes=4) == 2 * base
    assert lab.adapter_vram_mb(32, 4096, 32, 2) == 2 * base
    assert lab.adapter_vram_mb(16, 4096, 64, 2) == 2 * base


def test_70b_qkvo_r32_adapters_in_8_gb(lab):
    size = lab.adapter_vram_mb(32, 8192, 80, ["q", "k", "v", "o"])
    assert size == 320.0
    assert int(8 * 1024 // size) == 25


@pytest.mark.parametrize(
    "args",
    [
        (0, 4096, 32, 2),
        (-16, 4096, 32, 2),
        (16, 0, 32, 2),
        (16, 4096, 0, 2),
        (16, 4096, 32, 0),
        (16, 4096, 32, []),
        (16, 4096, -1, 2),
    ],
)
def test_adapter_vram_mb_rejects_non_positive(lab, args):
    with pytest.raises(ValueError):
        lab.adapter_vram_mb(*args)


def test_adapter_vram_mb_rejects_non_positive_bytes(lab):
    with pytest.raises(ValueError):
        lab.adapter_vram_mb(16, 4096, 32, 2, bytes=0)
