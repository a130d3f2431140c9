"""labcore.gpus: the GPU records a fleet plan and the panels pick from."""

from __future__ import annotations

import dataclasses

import pytest

from labcore.errors import LabcoreError
from labcore.gpus import Gpu, UnknownGpuError, known_gpus, load_gpu


def test_the_gpus_the_course_names_are_shipped_with_their_memory() -> None:
    expected = {
        "H100-80GB": 80,
        "H200-141GB": 141,
        "A100-40GB": 40,
        "A100-80GB": 80,
        "L4-24GB": 24,
        "L40S-48GB": 48,
        "A10G-24GB": 24,
    }
    assert set(known_gpus()) == set(expected)
    for name, gb in expected.items():
        gpu = load_gpu(name)
        assert gpu.name == name and gpu.memory_gb == gb
        assert str(gb) in name and len(gpu.source) > 30 and "http" not in gpu.source


def test_every_gpu_has_its_driver_reported_total_with_a_source() -> None:
    expected = {
        "H100-80GB": 81559,
        "H200-141GB": 143771,
        "A100-40GB": 40960,
        "A100-80GB": 81920,
        "L4-24GB": 23034,
        "L40S-48GB": 46068,
        "A10G-24GB": 23028,
    }
    for name, mib in expected.items():
        gpu = load_gpu(name)
        assert gpu.usable_mib == mib and gpu.usable_bytes == mib * 2**20
        assert str(mib) in gpu.usable_source and "http" not in gpu.usable_source
    assert load_gpu("H100-80GB").usable_gib == 81559 / 1024


def test_the_spec_sheet_gb_is_not_the_usable_memory() -> None:
    h100 = load_gpu("H100-80GB")
    assert h100.usable_bytes > h100.memory_gb * 10**9 > h100.memory_gib * 2**30 - 1  # 85.5e9 bytes reported
    assert all(load_gpu(n).usable_mib <= load_gpu(n).memory_gb * 1024 for n in known_gpus())


def test_gib_reads_the_vendor_gb_as_decimal() -> None:
    assert load_gpu("H100-80GB").memory_gib == 80e9 / 2**30
    assert load_gpu("L4-24GB").memory_gib < 24


def test_records_are_frozen_and_equal_by_value() -> None:
    gpu = load_gpu("A100-80GB")
    assert gpu == load_gpu("A100-80GB")
    with pytest.raises(dataclasses.FrozenInstanceError):
        gpu.memory_gb = 1  # type: ignore[misc]


def test_names_are_ordered_by_memory() -> None:
    sizes = [load_gpu(n).memory_gb for n in known_gpus()]
    assert sizes == sorted(sizes) and known_gpus()[-1] == "H200-141GB"


def test_an_unknown_gpu_names_the_valid_ones() -> None:
    with pytest.raises(UnknownGpuError, match=r"unknown GPU 'B300'; valid: \[.*'H100-80GB'") as info:
        load_gpu("B300")
    assert isinstance(info.value, LabcoreError) and isinstance(info.value, KeyError)
    with pytest.raises(UnknownGpuError):
        load_gpu(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"name": ""}, "a GPU's name must be a non-empty string, got ''"),
        ({"memory_gb": 0}, "memory_gb must be"),
        ({"memory_gb": True}, "memory_gb must be"),
        ({"source": " "}, "source must be"),
        ({"usable_mib": 0}, r"X: usable_mib must be an int in \[1, 1024\], got 0"),
        ({"usable_mib": 2000, "usable_source": "x"}, r"got 2000"),
        ({"usable_mib": 900}, "usable_source must name"),
    ],
)
def test_bad_records_are_refused(kwargs: dict, match: str) -> None:
    base = {"name": "X", "memory_gb": 1, "memory_type": "HBM", "source": "a datasheet"}
    with pytest.raises(ValueError, match=match):
        Gpu(**{**base, **kwargs})


def test_a_card_without_a_driver_total_says_why() -> None:
    gpu = Gpu("X-1GB", memory_gb=1, memory_type="HBM", source="a datasheet", usable_source="no nvidia-smi log found")
    with pytest.raises(ValueError, match="no driver-reported memory total is recorded \\(no nvidia-smi log found\\)"):
        _ = gpu.usable_bytes  # reading the property raises
