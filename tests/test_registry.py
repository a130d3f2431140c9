"""labcore.registry beyond the contract: resolve reads a ref through the adapter key helpers, find takes it parsed,
the generation counter, and the error messages that name what is known."""

from __future__ import annotations

import json

import pytest

from labcore.adapter import Adapter
from labcore.errors import AdapterNotFoundError, InvalidVersionError, RegistryFileError, UnknownBaseError
from labcore.registry import REGISTRY_FORMAT, AdapterRegistry

BASE, DIGEST = "llama-3-8b", "sha256:1111"


def lora(name: str = "support-bot", version: str = "1.0.0", **kw) -> Adapter:
    return Adapter(name, version, kw.pop("base", BASE), kw.pop("digest", DIGEST), rank=16, vram_mb=16.0, **kw)


@pytest.fixture
def registry() -> AdapterRegistry:
    reg = AdapterRegistry()
    reg.register_base(BASE, DIGEST)
    for version in ("1.9.0", "1.10.0", "2.0.0"):
        reg.register(lora(version=version))
    return reg


def test_find_takes_the_parsed_version_that_resolve_reads(registry):
    assert registry.find("support-bot") is registry.resolve("support-bot") is registry.resolve("support-bot@2.0.0")
    assert registry.find("support-bot", (1, 10, 0)) is registry.resolve("support-bot@1.10.0")


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda r: r.find("support-bot", (3, 0, 0)),
            AdapterNotFoundError,
            "support-bot@3.0.0 is not registered; support-bot has versions ['1.9.0', '1.10.0', '2.0.0']",
        ),
        (
            lambda r: r.find("ghost"),
            AdapterNotFoundError,
            "no adapter named 'ghost' is registered; known adapters: ['support-bot']",
        ),
        (lambda r: r.resolve("support-bot@2.0"), InvalidVersionError, "invalid version '2.0'"),
        (lambda r: r.resolve("support-bot@"), InvalidVersionError, "invalid version ''"),
        (lambda r: r.resolve(7), AdapterNotFoundError, "adapter ref must be a string"),
        (
            lambda r: r.base_digest("mistral-7b"),
            UnknownBaseError,
            "base 'mistral-7b' is not registered; known bases: ['llama-3-8b']",
        ),
    ],
)
def test_every_refusal_names_the_input_and_what_is_known(registry, call, error, message):
    with pytest.raises(error) as info:
        call(registry)
    assert message in str(info.value)


def test_the_generation_moves_on_every_change_and_only_then(registry):
    before = registry.generation
    registry.register_base(BASE, DIGEST)  # the same digest again: no change
    assert registry.generation == before
    registry.register(lora("legal-bot"))
    registry.register_base("llama-3-70b", "sha256:70b")
    assert registry.generation == before + 2


def test_membership_iteration_and_listing(registry):
    assert "support-bot@1.9.0" in registry and "support-bot" in registry and lora(version="1.9.0") in registry
    assert "support-bot@9.9.9" not in registry and "support-bot@x" not in registry and 42 not in registry
    assert [a.version for a in registry] == ["1.9.0", "1.10.0", "2.0.0"] == registry.versions("support-bot")
    assert len(registry) == 3 and repr(registry) == "AdapterRegistry(bases=1, adapters=3)"
    assert registry.bases == {BASE: DIGEST}


def test_a_saved_registry_is_reread_and_revalidated(registry, tmp_path):
    path = tmp_path / "registry.json"
    registry.save(path)
    assert json.loads(path.read_text())["format"] == REGISTRY_FORMAT
    assert AdapterRegistry.load(path).adapters() == registry.adapters()
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(RegistryFileError, match="malformed JSON"):
        AdapterRegistry.load(path)
    with pytest.raises(RegistryFileError, match="not a labcore registry"):
        AdapterRegistry.from_json({"format": "other/1"})
