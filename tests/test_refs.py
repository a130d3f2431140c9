"""labcore.refs: the reference values (AdapterKey, ModelRef) and Version; no module splits a key's text again."""

import ast
import pickle
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import labcore
from labcore import Adapter, AdapterCache, AdapterRegistry, MultiLoRARouter
from labcore.errors import InvalidAdapterError, InvalidVersionError
from labcore.refs import AdapterKey, ModelRef, adapter_ref_parts, parse_adapter_ref
from labcore.versions import Version, format_version, parse_version

LABCORE = Path(labcore.__file__).parent
parts = st.integers(min_value=0, max_value=10**4)
versions = st.tuples(parts, parts, parts)
names = st.sampled_from(["a", "b", "support-bot", "tenant-01", "tenant-10"])


# -- Version ---------------------------------------------------------------------------------------
def test_a_version_is_a_tuple_that_prints_as_its_text():
    v = parse_version("1.10.0")
    assert type(v) is Version and isinstance(v, tuple)
    assert v == (1, 10, 0) and hash(v) == hash((1, 10, 0)) and repr(v) == "(1, 10, 0)"
    assert str(v) == "1.10.0" == format_version(v) == f"{v}"


@given(versions, versions)
def test_versions_order_as_semver_and_round_trip_through_their_text(a, b):
    va, vb = Version(a), Version(b)
    assert (va < vb) == (a < b) and (va == vb) == (a == b)
    assert parse_version(str(va)) == va


# -- AdapterKey ------------------------------------------------------------------------------------
def test_a_key_is_a_frozen_hashable_value_that_prints_as_name_at_version():
    key = AdapterKey("support-bot", (2, 1, 0))
    assert str(key) == "support-bot@2.1.0" and f"{key:>20}" == "   support-bot@2.1.0"
    assert type(key.version) is Version
    assert key == AdapterKey("support-bot", Version((2, 1, 0))) == AdapterKey.parse("support-bot@2.1.0")
    assert hash(key) == hash(AdapterKey.parse("support-bot@2.1.0"))
    assert key != "support-bot@2.1.0"  # a value, not its text
    assert pickle.loads(pickle.dumps(key)) == key
    with pytest.raises(AttributeError):
        key.name = "other"  # type: ignore[misc]


@given(names, versions, names, versions)
def test_keys_order_by_name_then_semver(name_a, va, name_b, vb):
    a, b = AdapterKey(name_a, va), AdapterKey(name_b, vb)
    assert (a < b) == ((name_a, va) < (name_b, vb))
    assert (a == b) == ((name_a, va) == (name_b, vb)) and ((a == b) <= (hash(a) == hash(b)))


@given(names, versions)
def test_a_key_round_trips_through_its_text(name, version):
    key = AdapterKey(name, version)
    assert AdapterKey.parse(str(key)) == key


def test_semver_not_string_order():
    keys = [AdapterKey.parse(t) for t in ("a@1.9.0", "a@1.10.0", "a@1.2.0")]
    assert [str(k) for k in sorted(keys)] == ["a@1.2.0", "a@1.9.0", "a@1.10.0"]


@pytest.mark.parametrize(
    "name, version, error, named",
    [
        ("", (1, 0, 0), InvalidAdapterError, "''"),
        ("a@b", (1, 0, 0), InvalidAdapterError, "'a@b'"),
        ("a:b", (1, 0, 0), InvalidAdapterError, "'a:b'"),
        (None, (1, 0, 0), InvalidAdapterError, "None"),
        ("a", (1, 0), InvalidVersionError, "(1, 0)"),
        ("a", (1, 0, 0, 0), InvalidVersionError, "(1, 0, 0, 0)"),
        ("a", [1, 0, 0], InvalidVersionError, "[1, 0, 0]"),
        ("a", None, InvalidVersionError, "None"),
        ("a", "1.0.0", InvalidVersionError, "'1.0.0'"),
    ],
)
def test_a_bad_key_names_the_bad_value(name, version, error, named):
    with pytest.raises(error) as info:
        AdapterKey(name, version)
    assert named in str(info.value)


@pytest.mark.parametrize(
    "text, error",
    [
        ("tenant-01", InvalidAdapterError),
        ("tenant-01@", InvalidVersionError),
        ("tenant-01@1.0", InvalidVersionError),
        ("@1.0.0", InvalidAdapterError),
        ("a@1.0.0@2.0.0", InvalidVersionError),
        (42, InvalidAdapterError),
    ],
)
def test_parse_refuses_text_that_is_not_a_key_naming_it(text, error):
    with pytest.raises(error) as info:
        AdapterKey.parse(text)  # type: ignore[arg-type]
    assert any(part in str(info.value) for part in (repr(text), repr(str(text).partition("@")[2]), "''"))


def test_adapter_ref_parts_and_parse_adapter_ref():
    assert adapter_ref_parts("a@1.0.0") == ("a", "1.0.0") and adapter_ref_parts("a") == ("a", None)
    assert parse_adapter_ref("a@1.10.0") == ("a", (1, 10, 0)) and parse_adapter_ref("a") == ("a", None)
    assert type(parse_adapter_ref("a@1.10.0")[1]) is Version


# -- ModelRef --------------------------------------------------------------------------------------
def test_model_ref_is_one_value_under_three_names():
    assert labcore.ModelRef is labcore.router.ModelRef is ModelRef
    ref = labcore.parse_model_ref("llama-3-8b:support-bot@2.1.0")
    assert ref.key == AdapterKey("support-bot", (2, 1, 0)) and str(ref) == "llama-3-8b:support-bot@2.1.0"
    assert labcore.parse_model_ref("llama-3-8b:support-bot").key is None


def test_workload_and_canary_take_model_ref_without_the_router():
    for module in ("sim/workload.py", "canary.py"):
        tree = ast.parse((LABCORE / module).read_text())
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert "router" not in {m.rsplit(".", 1)[-1] for m in imported if m}, module


# -- keys travel as values -------------------------------------------------------------------------
def test_cache_log_and_decisions_carry_keys():
    reg = AdapterRegistry()
    reg.register_base("llama-3-8b", "sha256:1")
    for name in "abc":
        reg.register(Adapter(name, "1.0.0", "llama-3-8b", "sha256:1", rank=16, vram_mb=16.0))
    router = MultiLoRARouter(reg, AdapterCache(32, 8.0), "llama-3-8b", base_latency_ms=40, dynamic_overhead=0.05)
    decisions = [router.route(f"llama-3-8b:{name}") for name in "abc"]
    assert all(type(d.adapter) is AdapterKey for d in decisions)
    assert decisions[-1].evicted == (AdapterKey("a", (1, 0, 0)),)
    assert all(type(k) is AdapterKey for k in router.cache.eviction_log + router.cache.resident)
    assert reg.resolve(decisions[0].adapter) is reg.resolve("a@1.0.0") and decisions[0].adapter in reg


def _splits_at_sign(node: ast.AST) -> bool:
    """A call ``<x>.split("@")``, ``.partition("@")`` or ``.rpartition("@")`` (or with ``'@'``)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in {"split", "rsplit", "partition", "rpartition"}
        and any(isinstance(a, ast.Constant) and a.value == "@" for a in node.args)
    )


def test_no_module_splits_a_key_again():
    """Only labcore.refs cuts a reference's text at ``@``; the cut itself is called only by the two parsers."""
    splitters, cutters = [], []
    for path in sorted(LABCORE.rglob("*.py")):
        name = path.relative_to(LABCORE).as_posix()
        tree = ast.parse(path.read_text())
        if name != "refs.py":
            splitters += [f"{name}:{n.lineno}" for n in ast.walk(tree) if _splits_at_sign(n)]
        for fn in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
            calls = [
                n
                for n in ast.walk(fn)
                if isinstance(n, ast.Call) and getattr(n.func, "id", None) in {"adapter_ref_parts", "split_key"}
            ]
            if calls and (name, fn.name) not in {("refs.py", "parse_adapter_ref"), ("router.py", "parse_model_ref")}:
                cutters.append(f"{name}:{fn.name}")
    assert splitters == [], f"these split a key's text at '@' again; carry the AdapterKey instead: {splitters}"
    assert cutters == [], f"only the parsers cut a reference's text: {cutters}"
    assert not hasattr(labcore.adapter, "split_key") and not hasattr(labcore.adapter, "adapter_key")
