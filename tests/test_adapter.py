"""labcore.adapter beyond the contract: tenant fleets for examples and simulations."""

import pytest

from labcore import tenant_adapters


def test_tenant_adapters_are_numbered_and_sized():
    adapters = tenant_adapters(3, vram_mb=8.0, rank=8)
    assert [a.key for a in adapters] == ["tenant-01@1.0.0", "tenant-02@1.0.0", "tenant-03@1.0.0"]
    assert {(a.vram_mb, a.rank) for a in adapters} == {(8.0, 8)}
    assert tenant_adapters(120)[-1].name == "tenant-120"


@pytest.mark.parametrize("count", [0, -1, 1.5, True])
def test_tenant_adapters_refuses_bad_counts(count):
    with pytest.raises(ValueError, match="count"):
        tenant_adapters(count)
