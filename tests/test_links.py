"""Tests for labcore.links: the course's one table of transfer assumptions and the Link arithmetic."""

from __future__ import annotations

import math

import pytest

from labcore import Adapter
from labcore.cache import AdapterCache
from labcore.links import (
    LAB_HOST_TO_GPU,
    LINKS,
    NVME,
    OBJECT_STORE,
    PCIE4_X16,
    PCIE5_X16,
    TRANSFER_ASSUMPTIONS,
    Link,
    serial,
    transfer_table,
)
from labcore.sim import CACHE_TRANSFER_MB_PER_MS, route_examples


def test_link_converts_decimal_gb_per_s_to_mib_per_ms_once():
    assert math.isclose(PCIE4_X16.mb_per_ms, 25e9 / 2**20 / 1000)
    assert math.isclose(Link("x", overhead_ms=2.0, gb_per_s=1.0).transfer_ms(1000 * 1e6 / 2**20), 1002.0)
    assert (
        PCIE5_X16.transfer_ms(160) < PCIE4_X16.transfer_ms(160) < NVME.transfer_ms(160) < OBJECT_STORE.transfer_ms(160)
    )


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(overhead_ms=-1, gb_per_s=1), "overhead_ms"),
        (dict(overhead_ms=0, gb_per_s=0), "gb_per_s"),
        (dict(overhead_ms=0, gb_per_s=math.inf), "gb_per_s"),
        (dict(overhead_ms=0, gb_per_s=1, hop=3), "hop"),
    ],
)
def test_link_rejects_bad_numbers(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Link("bad", **kwargs)


def test_transfer_of_a_negative_size_is_refused_by_name():
    with pytest.raises(ValueError, match="size_mb must be .* got -1"):
        PCIE4_X16.transfer_ms(-1)


def test_the_lab_figure_is_exactly_8_mib_per_ms_a_16_mib_adapter_in_2_ms():
    assert LAB_HOST_TO_GPU.mb_per_ms == 8.0 and LAB_HOST_TO_GPU.transfer_ms(16.0) == 2.0
    # the lab's chapters take their cache bandwidth from this row, not from a second constant
    assert CACHE_TRANSFER_MB_PER_MS == LAB_HOST_TO_GPU.mb_per_ms
    assert route_examples()["dynamic miss"].adapter_load_ms == LAB_HOST_TO_GPU.transfer_ms(16.0)


def test_pinned_pcie_is_faster_than_the_lab_copy_and_storage_slower():
    assert (
        PCIE4_X16.transfer_ms(16)
        < LAB_HOST_TO_GPU.transfer_ms(16)
        < NVME.transfer_ms(16)
        < OBJECT_STORE.transfer_ms(16)
    )


def test_every_assumption_says_its_hop_basis_and_source():
    assert len({link.name for link in TRANSFER_ASSUMPTIONS}) == len(TRANSFER_ASSUMPTIONS) == len(LINKS)
    for link in TRANSFER_ASSUMPTIONS:
        assert "→" in link.hop and len(link.basis) > 40 and len(link.source) > 20, link.name
    hops = {link.hop for link in TRANSFER_ASSUMPTIONS}
    assert {"host RAM → GPU", "pinned host RAM → GPU", "local disk → host RAM", "object store → host RAM"} <= hops


def test_serial_hops_add_overheads_and_times():
    overhead_ms, mb_per_ms = serial(NVME, PCIE4_X16)
    cache = AdapterCache(64, mb_per_ms, load_overhead_ms=overhead_ms)

    a = Adapter("a", "1.0.0", "m", "sha256:1", rank=16, vram_mb=16.0)
    assert math.isclose(cache.transfer_ms(a), NVME.transfer_ms(16) + PCIE4_X16.transfer_ms(16))


def test_transfer_table_has_one_row_per_link_with_its_load_time():
    rows = transfer_table(160.0)
    assert [r["link"] for r in rows] == [link.name for link in TRANSFER_ASSUMPTIONS]
    assert [r["load_ms"] for r in rows] == [round(link.transfer_ms(160.0), 2) for link in TRANSFER_ASSUMPTIONS]
    with pytest.raises(ValueError, match="size_mb"):
        transfer_table(0)
