"""labcore.adapter beyond the contract: tenant fleets for examples and simulations."""

import pytest

from labcore import tenant_adapters
from labcore.errors import InvalidAdapterError


def test_tenant_adapters_are_numbered_and_sized():
    adapters = tenant_adapters(3, vram_mb=8.0, rank=8)
    assert [str(a.key) for a in adapters] == ["tenant-01@1.0.0", "tenant-02@1.0.0", "tenant-03@1.0.0"]
    assert {(a.vram_mb, a.rank) for a in adapters} == {(8.0, 8)}
    assert tenant_adapters(120)[-1].name == "tenant-120"


@pytest.mark.parametrize("count", [0, -1, 1.5, True])
def test_tenant_adapters_refuses_bad_counts(count):
    with pytest.raises(ValueError, match="count"):
        tenant_adapters(count)


def test_tenant_adapters_gives_a_fresh_list_of_the_same_adapters():
    first = tenant_adapters(3, vram_mb=13.0)
    first.append("not an adapter")  # the caller's list is the caller's
    again = tenant_adapters(3, vram_mb=13.0)
    assert len(again) == 3 and [str(a.key) for a in again] == ["tenant-01@1.0.0", "tenant-02@1.0.0", "tenant-03@1.0.0"]
    assert type(tenant_adapters(1, vram_mb=16)[0].vram_mb) is int  # 16 and 16.0 are not one cache entry
    assert type(tenant_adapters(1, vram_mb=16.0)[0].vram_mb) is float


@pytest.mark.parametrize("bad", [[1.0], {"mb": 1}, -1.0])
def test_tenant_adapters_names_a_bad_size_cached_or_not(bad):
    with pytest.raises(InvalidAdapterError, match="vram_mb"):
        tenant_adapters(2, vram_mb=bad)
