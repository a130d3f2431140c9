"""Contract: Adapter is a frozen, hashable, validated record keyed by its name and parsed version (name@version)."""

import dataclasses
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from .conftest import BASE, DIGEST


def test_adapter_key_is_name_at_version(lab, make):
    key = make("support-bot", "2.1.0").key
    assert key == lab.AdapterKey("support-bot", (2, 1, 0)), "Adapter.key is the value AdapterKey(name, parsed version)"
    assert str(key) == "support-bot@2.1.0" and (key.name, key.version) == ("support-bot", (2, 1, 0))


def test_adapter_is_frozen(make):
    adapter = make()
    with pytest.raises(dataclasses.FrozenInstanceError):
        adapter.version = "9.9.9"


def test_equal_adapters_are_equal_and_hash_alike(make):
    assert make("a", "1.0.0") == make("a", "1.0.0")
    assert len({make("a", "1.0.0"), make("a", "1.0.0"), make("a", "1.0.1")}) == 2


def test_adapter_merged_defaults_to_false(lab):
    assert lab.Adapter("a", "1.0.0", BASE, DIGEST, 16, 16.0).merged is False


@pytest.mark.parametrize(
    "field, value",
    [
        ("name", ""),
        ("name", "support:bot"),
        ("name", "support@bot"),
        ("version", "1.0"),
        ("version", "v1.0.0"),
        ("rank", 0),
        ("rank", -8),
        ("vram_mb", 0),
        ("vram_mb", -1.0),
        ("base", ""),
        ("digest", ""),
    ],
)
def test_adapter_rejects_invalid_fields(make, field, value):
    with pytest.raises(ValueError) as info:
        make(**{field: value})
    assert str(value) in str(info.value) or repr(value) in str(info.value)


ref_text = st.text(alphabet=string.ascii_letters + string.digits + ":@.-_ v0", max_size=30)


@given(
    name=st.text(max_size=20),
    version=st.one_of(st.text(max_size=12), ref_text),
    rank=st.integers(-4, 64),
    vram_mb=st.floats(allow_nan=True, allow_infinity=True),
)
def test_adapter_validates_or_raises_value_error(lab, name, version, rank, vram_mb):
    try:
        adapter = lab.Adapter(name, version, BASE, DIGEST, rank, vram_mb)
    except ValueError:
        return
    assert ":" not in adapter.name and "@" not in adapter.name and adapter.rank > 0 and adapter.vram_mb > 0
