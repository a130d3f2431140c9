"""Contract: the registry versions adapters by semver and binds each to its base digest."""

import json
import os

import pytest

from .conftest import BASE, DIGEST, OTHER_DIGEST


def test_register_then_resolve_exact_version(registry, make):
    adapter = make("support-bot", "2.1.0")
    registry.register(adapter)
    assert registry.resolve("support-bot@2.1.0") == adapter


def test_bare_name_resolves_highest_semver_not_highest_string(registry, make):
    for version in ["1.9.0", "1.10.0", "1.2.0"]:
        registry.register(make("support-bot", version))
    assert registry.resolve("support-bot").version == "1.10.0"


def test_registry_rejects_wrong_base_digest(lab, registry, make):
    # The soul test: same base *name*, another checkpoint. At serving time this adapter would
    # raise nothing and answer with fluent garbage; registration is the only cheap place to stop it.
    wrong = make("support-bot", "2.1.0", digest=OTHER_DIGEST)
    with pytest.raises(lab.BaseDigestMismatchError) as info:
        registry.register(wrong)
    assert OTHER_DIGEST in str(info.value) and DIGEST in str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, lab.LabcoreError)
    assert len(registry) == 0
    assert "support-bot@2.1.0" not in registry
    with pytest.raises(lab.AdapterNotFoundError):
        registry.resolve("support-bot")


def test_register_for_undeclared_base_raises_unknown_base(lab, registry, make):
    with pytest.raises(lab.UnknownBaseError) as info:
        registry.register(make(base="mistral-7b"))
    assert "mistral-7b" in str(info.value)
    assert len(registry) == 0


def test_versions_are_immutable(lab, registry, make):
    original = make("support-bot", "2.1.0", rank=16)
    registry.register(original)
    with pytest.raises(lab.VersionExistsError) as info:
        registry.register(make("support-bot", "2.1.0", rank=32, vram_mb=32.0))
    assert "support-bot@2.1.0" in str(info.value)
    assert registry.resolve("support-bot@2.1.0") == original
    assert len(registry) == 1


def test_rejected_adapters_leave_no_trace(lab, registry, make):
    registry.register(make("support-bot", "1.0.0"))
    before = (len(registry), registry.versions("support-bot"))
    for bad in [make("support-bot", "2.0.0", digest=OTHER_DIGEST), make("support-bot", "3.0.0", base="other")]:
        with pytest.raises(lab.LabcoreError):
            registry.register(bad)
    assert (len(registry), registry.versions("support-bot")) == before
    assert registry.resolve("support-bot").version == "1.0.0"


def test_register_base_same_digest_is_a_noop(registry, make, key):
    registry.register(make())
    registry.register_base(BASE, DIGEST)
    assert registry.resolve("support-bot").key == key("support-bot@1.0.0")


def test_register_base_never_silently_repoints(lab, registry, make):
    with pytest.raises(ValueError) as info:
        registry.register_base(BASE, OTHER_DIGEST)
    assert OTHER_DIGEST in str(info.value)
    registry.register(make())  # still bound to the original digest
    with pytest.raises(lab.BaseDigestMismatchError):
        registry.register(make("x", digest=OTHER_DIGEST))


@pytest.mark.parametrize("ref", ["nope", "nope@1.0.0", "support-bot@9.9.9"])
def test_resolve_unknown_raises_adapter_not_found(lab, registry, make, ref):
    registry.register(make("support-bot", "1.0.0"))
    with pytest.raises(lab.AdapterNotFoundError) as info:
        registry.resolve(ref)
    assert isinstance(info.value, KeyError)
    assert ref.partition("@")[0] in str(info.value)


def test_versions_lists_in_semver_order(registry, make):
    for version in ["2.0.0", "1.10.0", "1.9.0", "1.9.1"]:
        registry.register(make("support-bot", version))
    assert registry.versions("support-bot") == ["1.9.0", "1.9.1", "1.10.0", "2.0.0"]


def test_len_and_contains(registry, make):
    registry.register(make("a", "1.0.0"))
    registry.register(make("a", "1.1.0"))
    registry.register(make("b", "0.1.0"))
    assert len(registry) == 3
    assert "a@1.1.0" in registry and "b@0.1.0" in registry
    assert "a@2.0.0" not in registry and "c@1.0.0" not in registry


def test_save_and_load_round_trip(lab, registry, make, tmp_path):
    adapters = [make("a", "1.0.0"), make("a", "1.10.0"), make("m", "3.0.0", merged=True, rank=64, vram_mb=64.0)]
    for adapter in adapters:
        registry.register(adapter)
    path = tmp_path / "registry.json"
    registry.save(path)
    loaded = lab.AdapterRegistry.load(path)
    assert len(loaded) == 3
    assert [loaded.resolve(a.key) for a in adapters] == adapters
    assert loaded.resolve("a").version == "1.10.0"


def _edit(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_load_refuses_an_edited_wrong_digest(lab, registry, make, tmp_path):
    registry.register(make("a", "1.0.0"))
    path = tmp_path / "registry.json"
    registry.save(path)
    _edit(path, lambda d: d["adapters"][0].update(base_digest=OTHER_DIGEST))
    with pytest.raises(lab.BaseDigestMismatchError) as info:
        lab.AdapterRegistry.load(path)
    assert OTHER_DIGEST in str(info.value)


def test_load_refuses_a_duplicated_version(lab, registry, make, tmp_path):
    registry.register(make("a", "1.0.0"))
    path = tmp_path / "registry.json"
    registry.save(path)
    _edit(path, lambda d: d["adapters"].append(dict(d["adapters"][0])))
    with pytest.raises(lab.VersionExistsError):
        lab.AdapterRegistry.load(path)


def test_load_refuses_malformed_json_naming_the_file(lab, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"bases": {')
    with pytest.raises(ValueError) as info:
        lab.AdapterRegistry.load(path)
    assert "broken.json" in str(info.value)


def test_save_is_atomic(registry, make, tmp_path, monkeypatch):
    registry.register(make("a", "1.0.0"))
    path = tmp_path / "registry.json"
    registry.save(path)
    good = path.read_text()
    registry.register(make("a", "2.0.0"))

    def crash(*args, **kwargs):
        raise OSError("simulated crash before the rename")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        registry.save(path)
    assert path.read_text() == good  # the old file is intact
    assert sorted(p.name for p in tmp_path.iterdir()) == ["registry.json"]  # no half-written temp file left
