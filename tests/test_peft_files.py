"""labcore.peft_files reads PEFT adapter directories from untrusted bytes, with the stdlib only."""

from __future__ import annotations

import json
import math
import pickle
import struct
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labcore.adapter import Adapter
from labcore.errors import LabcoreError
from labcore.peft_files import (
    LOW_RANK_ROLES,
    MAX_HEADER_BYTES,
    UNSUPPORTED_FEATURES,
    SAFETENSORS_DTYPE_BYTES,
    AdapterFileError,
    UnsafeAdapterFormatError,
    adapter_from_dir,
    is_targeted,
    module_rank_and_alpha,
    read_peft_adapter,
    read_safetensors_header,
)
from labcore.sizing import MIB

ROOT = Path(__file__).resolve().parents[1]
PREFIX = "base_model.model.model.layers.{i}.self_attn.{m}"


def safetensors_bytes(tensors: dict[str, tuple[str, list[int]]], *, metadata: dict | None = None) -> bytes:
    """Build a valid safetensors file by hand: tensors laid out in the given order."""
    header: dict = {}
    if metadata is not None:
        header["__metadata__"] = metadata
    offset = 0
    for name, (dtype, shape) in tensors.items():
        n = math.prod(shape) * SAFETENSORS_DTYPE_BYTES[dtype]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n]}
        offset += n
    raw = json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + bytes(range(256)) * (offset // 256) + bytes(offset % 256)


def raw_file(header: object, data: bytes, *, text: bytes | None = None) -> bytes:
    raw = text if text is not None else json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + data


def lora_tensors(rank: int = 4, hidden: int = 16, kv: int = 8, layers: int = 2, dtype: str = "F32") -> dict:
    out = {}
    for i in range(layers):
        for module, width in (("q_proj", hidden), ("v_proj", kv)):
            out[PREFIX.format(i=i, m=module) + ".lora_A.weight"] = (dtype, [rank, hidden])
            out[PREFIX.format(i=i, m=module) + ".lora_B.weight"] = (dtype, [width, rank])
    return out


def write_adapter(folder: Path, *, config: dict | None = None, tensors: dict | None = None, weights: bytes | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    cfg = {
        "peft_type": "LORA",
        "r": 4,
        "lora_alpha": 8,
        "target_modules": ["q_proj", "v_proj"],
        "base_model_name_or_path": "tiny-llama-demo",
        "revision": None,
    }
    cfg.update(config or {})
    (folder / "adapter_config.json").write_text(json.dumps(cfg))
    body = weights if weights is not None else safetensors_bytes(tensors if tensors is not None else lora_tensors())
    (folder / "adapter_model.safetensors").write_bytes(body)
    return folder


def assert_file_error(exc_info: pytest.ExceptionInfo, path: Path, *words: str) -> None:
    exc = exc_info.value
    assert isinstance(exc, AdapterFileError) and isinstance(exc, LabcoreError) and isinstance(exc, ValueError)
    assert exc.path == str(path)
    assert str(path) in str(exc)
    for word in words:
        assert word in str(exc), (word, str(exc))


# -- a well-formed adapter -----------------------------------------------------------------------


def test_reads_rank_alpha_targets_base_and_modules(tmp_path: Path) -> None:
    files = read_peft_adapter(write_adapter(tmp_path / "a"))
    assert (files.rank, files.lora_alpha, files.scaling) == (4, 8, 2.0)
    assert files.target_modules == ("q_proj", "v_proj") and files.target_names == ("q_proj", "v_proj")
    assert files.base_model_name_or_path == "tiny-llama-demo" and files.revision is None
    assert [(m.target, m.in_features, m.out_features, m.rank) for m in files.modules] == [
        ("q_proj", 16, 16, 4), ("v_proj", 16, 8, 4), ("q_proj", 16, 16, 4), ("v_proj", 16, 8, 4)
    ]
    assert files.extra_tensors == ()


def test_sizes_are_exact_from_shapes_and_dtypes(tmp_path: Path) -> None:
    files = read_peft_adapter(write_adapter(tmp_path / "a"))
    params = 2 * (4 * (16 + 16) + 4 * (16 + 8))
    assert files.param_count == params == sum(m.param_count for m in files.modules)
    assert files.tensor_bytes == 4 * params  # stored F32
    assert files.file_bytes == (tmp_path / "a" / "adapter_model.safetensors").stat().st_size
    assert files.file_bytes == 8 + files.weights.header_bytes + files.tensor_bytes
    assert files.serving_bytes("bf16") == 2 * params and files.serving_bytes("fp32") == 4 * params
    assert files.serving_mb("fp16") == 2 * params / MIB


def test_stored_dtype_does_not_change_serving_size(tmp_path: Path) -> None:
    f32 = read_peft_adapter(write_adapter(tmp_path / "f32"))
    bf16 = read_peft_adapter(write_adapter(tmp_path / "bf16", tensors=lora_tensors(dtype="BF16")))
    assert bf16.tensor_bytes * 2 == f32.tensor_bytes
    assert bf16.serving_bytes("bf16") == f32.serving_bytes("bf16")


def test_to_adapter_and_adapter_from_dir_give_the_exact_vram(tmp_path: Path) -> None:
    folder = write_adapter(tmp_path / "a")
    adapter = adapter_from_dir(
        folder, name="support-bot", version="1.2.0", base_model="tiny", base_digest="sha256:" + "a" * 64
    )
    assert isinstance(adapter, Adapter)
    assert adapter == Adapter("support-bot", "1.2.0", "tiny", "sha256:" + "a" * 64, rank=4, vram_mb=2 * 448 / MIB)
    fp32 = read_peft_adapter(folder).to_adapter(
        name="x", version="1.0.0", base_model="tiny", base_digest="sha256:1", serving_dtype="fp32"
    )
    assert fp32.vram_mb == 2 * adapter.vram_mb


def test_unknown_serving_dtype_is_refused(tmp_path: Path) -> None:
    files = read_peft_adapter(write_adapter(tmp_path / "a"))
    with pytest.raises(ValueError, match="'int3'.*bf16"):
        files.serving_bytes("int3")


def test_rank_pattern_allows_mixed_ranks_and_rank_is_the_largest(tmp_path: Path) -> None:
    tensors = lora_tensors(rank=4)
    tensors[PREFIX.format(i=1, m="v_proj") + ".lora_A.weight"] = ("F32", [12, 16])
    tensors[PREFIX.format(i=1, m="v_proj") + ".lora_B.weight"] = ("F32", [8, 12])
    folder = write_adapter(tmp_path / "a", tensors=tensors, config={"rank_pattern": {"layers.1.self_attn.v_proj": 12}})
    assert read_peft_adapter(folder).rank == 12
    with pytest.raises(AdapterFileError) as info:
        read_peft_adapter(write_adapter(tmp_path / "b", tensors=tensors))
    assert_file_error(info, tmp_path / "b" / "adapter_model.safetensors", "rank 12", "r=4")


def test_modules_to_save_copies_are_counted_apart_from_the_lora_bytes(tmp_path: Path) -> None:
    tensors = lora_tensors()
    tensors["base_model.model.lm_head.weight"] = ("F32", [256, 16])
    files = read_peft_adapter(write_adapter(tmp_path / "a", tensors=tensors, config={"modules_to_save": ["lm_head"]}))
    assert files.extra_tensors == ("base_model.model.lm_head.weight",)
    assert files.roles["base_model.model.lm_head.weight"] == "module_copy" and files.modules_to_save == ("lm_head",)
    assert files.param_count == 448 + 256 * 16 and files.lora_param_count == 448
    assert (files.lora_bytes, files.module_copy_bytes) == (4 * 448, 4 * 256 * 16)
    assert files.serving_bytes("bf16") == 2 * (448 + 256 * 16)
    assert files.serving_bytes("bf16", include=LOW_RANK_ROLES) == 2 * 448
    assert files.serving_bytes("bf16", include=("module_copy",)) == 2 * 256 * 16
    assert files.to_adapter(name="x", version="1.0.0", base_model="t", base_digest="sha256:1",
                            include=LOW_RANK_ROLES).vram_mb == 2 * 448 / MIB


@pytest.mark.parametrize("include", ["lora", ("lora", "weights"), 3])
def test_serving_roles_must_be_named(tmp_path: Path, include: object) -> None:
    files = read_peft_adapter(write_adapter(tmp_path / "a"))
    with pytest.raises(ValueError, match="include"):
        files.serving_bytes("bf16", include=include)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("extra", "config", "words"),
    [
        ({"base_model.model.model.norm.weight": ("F32", [16])}, {}, "is neither a LoRA tensor nor accounted for"),
        ({"base_model.model.model.layers.0.self_attn.k_proj.bias": ("F32", [8])}, {}, "has bias='none'"),
        ({"base_model.model.model.layers.0.self_attn.k_proj.bias": ("F32", [8])}, {"bias": "lora_only"},
         "bias of a module without LoRA"),
        ({PREFIX.format(i=0, m="q_proj") + ".lora_magnitude_vector": ("F32", [16])}, {}, "use_dora=false"),
        ({PREFIX.format(i=0, m="q_proj") + ".lora_B.bias": ("F32", [16])}, {}, "lora_bias=false"),
        ({"base_model.model.model.embed_tokens.token_adapter.trainable_tokens_delta": ("F32", [2, 16])}, {},
         "no trainable_token_indices"),
        ({"base_model.model.model.embed_tokens.token_adapter.trainable_tokens_delta": ("F32", [2, 16])},
         {"trainable_token_indices": [1, 2, 3]}, "gives 3 rows"),
        ({PREFIX.format(i=0, m="q_proj") + ".lora_magnitude_vector": ("F32", [8])}, {"use_dora": True}, "a DoRA magnitude"),
        ({}, {"use_dora": True}, "has no DoRA magnitude vector"),
    ],
)
def test_tensors_the_config_does_not_account_for_are_refused(tmp_path: Path, extra: dict, config: dict, words: str) -> None:
    folder = write_adapter(tmp_path / "a", tensors={**lora_tensors(), **extra}, config=config)
    with pytest.raises(AdapterFileError) as info:
        read_peft_adapter(folder)
    assert_file_error(info, folder / "adapter_model.safetensors", words)


@pytest.mark.parametrize("feature", sorted(UNSUPPORTED_FEATURES))
def test_unsupported_features_are_refused_by_name(tmp_path: Path, feature: str) -> None:
    value = ["experts.gate_up_proj"] if feature == "target_parameters" else True
    folder = write_adapter(tmp_path / "a", config={feature: value})
    with pytest.raises(AdapterFileError) as info:
        read_peft_adapter(folder)
    assert_file_error(info, folder / "adapter_config.json", feature, "not supported")


def test_rslora_and_patterns_give_per_module_scaling(tmp_path: Path) -> None:
    rs = read_peft_adapter(write_adapter(tmp_path / "rs", config={"r": 4, "lora_alpha": 8, "use_rslora": True}))
    assert rs.scaling == 8 / 2 and all(m.scaling == 4.0 for m in rs.modules)
    tensors = lora_tensors()
    tensors[PREFIX.format(i=1, m="v_proj") + ".lora_A.weight"] = ("F32", [16, 16])
    tensors[PREFIX.format(i=1, m="v_proj") + ".lora_B.weight"] = ("F32", [8, 16])
    files = read_peft_adapter(write_adapter(tmp_path / "p", tensors=tensors, config={
        "rank_pattern": {"layers.1.self_attn.v_proj": 16}, "alpha_pattern": {"q_proj": 2}}))
    got = {(m.key.split(".")[2], m.target): (m.rank, m.lora_alpha, m.scaling) for m in files.modules}
    assert got == {("0", "q_proj"): (4, 2, 0.5), ("0", "v_proj"): (4, 8, 2.0),
                   ("1", "q_proj"): (4, 2, 0.5), ("1", "v_proj"): (16, 8, 0.5)}
    assert files.rank == 16 and files.default_rank == 4
    with pytest.raises(AdapterFileError, match="different scalings"):
        files.scaling


@pytest.mark.parametrize(
    ("targets", "key", "expected"),
    [
        (["q_proj"], "model.layers.0.self_attn.q_proj", True),
        (["self_attn.q_proj"], "model.layers.0.self_attn.q_proj", True),
        (["attn.q_proj"], "model.layers.0.self_attn.q_proj", False),  # a suffix must start at a '.'
        (["model.layers.0.self_attn.q_proj"], "model.layers.0.self_attn.q_proj", True),
        (["q"], "model.layers.0.self_attn.q_proj", False),
        ("q_proj", "model.layers.0.self_attn.q_proj", False),  # a string is a full-match regex
        (r".*q_proj", "model.layers.0.self_attn.q_proj", True),
        ("all-linear", "model.layers.0.mlp.down_proj", True),
        ("all-linear", "lm_head", False),
    ],
)
def test_target_matching_follows_peft(targets: object, key: str, expected: bool) -> None:
    assert is_targeted({"r": 4, "lora_alpha": 8, "target_modules": targets}, key) is expected


def test_layers_exclude_and_modules_to_save_narrow_the_targets() -> None:
    base = {"r": 4, "lora_alpha": 8, "target_modules": ["q_proj"]}
    assert not is_targeted({**base, "layers_to_transform": [1]}, "model.layers.0.self_attn.q_proj")
    assert is_targeted({**base, "layers_to_transform": 1}, "model.layers.1.self_attn.q_proj")
    assert is_targeted({**base, "target_modules": ["model.layers.0.self_attn.q_proj"], "layers_to_transform": [1]},
                       "model.layers.0.self_attn.q_proj")  # an exact path ignores layers_to_transform, as in peft
    assert is_targeted({**base, "layers_to_transform": [2], "layers_pattern": "h"}, "transformer.h.2.attn.q_proj")
    assert not is_targeted({**base, "exclude_modules": ["q_proj"]}, "model.layers.0.self_attn.q_proj")
    assert not is_targeted({**base, "exclude_modules": r".*\.0\..*"}, "model.layers.0.self_attn.q_proj")
    assert not is_targeted({**base, "target_modules": ["lm_head"], "modules_to_save": ["lm_head"]}, "lm_head")
    assert module_rank_and_alpha({**base, "rank_pattern": {"q_proj": 8, "layers.0.self_attn.q_proj": 2}},
                                 "model.layers.0.self_attn.q_proj") == (8, 8)  # the first matching key wins


def test_an_embedding_only_adapter_reads_with_the_embedding_rank(tmp_path: Path) -> None:
    tensors = {"base_model.model.model.embed_tokens.lora_embedding_A": ("F32", [32, 256]),
               "base_model.model.model.embed_tokens.lora_embedding_B": ("F32", [16, 32]),
               "base_model.model.model.embed_tokens.base_layer.weight": ("F32", [256, 16])}
    files = read_peft_adapter(write_adapter(tmp_path / "e", tensors=tensors, config={
        "r": 8, "target_modules": ["embed_tokens"], "rank_pattern": {"embed_tokens": 32}}))
    (m,) = files.modules
    assert (m.kind, m.rank, m.in_features, m.out_features, m.target) == ("embedding", 32, 256, 16, "embed_tokens")
    assert files.rank == 32 and files.target_names == ("embed_tokens",)
    assert files.bytes_by_role()["embedding_lora"] == 4 * 32 * (256 + 16)
    assert files.module_copy_bytes == 4 * 256 * 16


def test_metadata_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "m.safetensors"
    path.write_bytes(safetensors_bytes({"w": ("F16", [2, 2])}, metadata={"format": "pt"}))
    header = read_safetensors_header(path)
    assert header.metadata == {"format": "pt"} and header.tensor("w").shape == (2, 2)
    with pytest.raises(KeyError, match="'nope'"):
        header.tensor("nope")


def test_scalar_and_empty_tensors_are_valid(tmp_path: Path) -> None:
    path = tmp_path / "s.safetensors"
    path.write_bytes(safetensors_bytes({"scalar": ("F64", []), "empty": ("F32", [0, 3])}))
    header = read_safetensors_header(path)
    assert {t.name: t.nbytes for t in header.tensors} == {"scalar": 8, "empty": 0}


# -- malformed safetensors -----------------------------------------------------------------------

OK_ENTRY = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b"\x10\x00\x00", ("shorter than the 8-byte",)),
        (struct.pack("<Q", 2**64 - 1) + b"{}", ("exceeds the", "limit")),
        (struct.pack("<Q", 500) + b"{}", ("runs past the end",)),
        (raw_file(None, b"", text=b"[1, 2]"), ("must start with '{'",)),
        (raw_file(None, b"", text=b"{not json"), ("not valid UTF-8 JSON",)),
        (raw_file(None, b"", text=b'{"a": "\xff"}'), ("not valid UTF-8 JSON",)),
        (raw_file(None, b"\0" * 16, text=b'{"w": ' + json.dumps(OK_ENTRY).encode() + b', "w": '
                  + json.dumps(OK_ENTRY).encode() + b"}"), ("duplicate key 'w'",)),
        (raw_file({"w": {"dtype": "F4", "shape": [2], "data_offsets": [0, 1]}}, b"\0"), ("unknown or unsupported dtype 'F4'",)),
        (raw_file({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, b"\0" * 8), ("is 12 bytes", "span 8")),
        (raw_file({"w": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}}, b"\0" * 8), ("shape must be",)),
        (raw_file({"w": {"dtype": "F32", "shape": [2.0], "data_offsets": [0, 8]}}, b"\0" * 8), ("shape must be",)),
        (raw_file({"w": {"dtype": "F32", "shape": [True], "data_offsets": [0, 4]}}, b"\0" * 4), ("shape must be",)),
        (raw_file({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8, 9]}}, b"\0" * 8), ("data_offsets must be",)),
        (raw_file({"w": {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]}}, b"\0" * 8), ("begin <= end",)),
        (raw_file({"w": {"dtype": "F32", "shape": [2]}}, b"\0" * 8), ("exactly dtype, shape and data_offsets",)),
        (raw_file({"w": [1, 2]}, b"\0" * 8), ("exactly dtype, shape and data_offsets",)),
        (raw_file({"__metadata__": {"k": 1}, "w": OK_ENTRY}, b"\0" * 8), ("__metadata__",)),
        (raw_file({"w": OK_ENTRY, "v": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, b"\0" * 12), ("overlaps",)),
        (raw_file({"w": OK_ENTRY, "v": {"dtype": "F32", "shape": [2], "data_offsets": [12, 20]}}, b"\0" * 20), ("gap of 4 bytes",)),
        (raw_file({"w": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, b"\0" * 12), ("gap of 4 bytes",)),
        (raw_file({"w": OK_ENTRY}, b"\0" * 4), ("ends at offset 8", "holds 4 data bytes")),
        (raw_file({"w": OK_ENTRY}, b"\0" * 9), ("ends at offset 8", "holds 9 data bytes")),
    ],
    ids=[
        "truncated-prefix", "huge-header-length", "header-past-eof", "header-is-a-list", "header-not-json",
        "header-not-utf8", "duplicate-tensor", "unknown-dtype", "shape-disagrees-with-offsets", "negative-dim",
        "float-dim", "bool-dim", "three-offsets", "begin-after-end", "missing-offsets", "entry-not-object",
        "metadata-not-strings", "overlap", "gap-between", "gap-at-start", "offsets-exceed-file", "trailing-bytes",
    ],
)
def test_malformed_safetensors_is_refused_with_the_file_named(tmp_path: Path, body: bytes, words: tuple[str, ...]) -> None:
    path = tmp_path / "adapter_model.safetensors"
    path.write_bytes(body)
    with pytest.raises(AdapterFileError) as info:
        read_safetensors_header(path)
    assert_file_error(info, path, *words)


def test_header_size_bound_is_a_parameter(tmp_path: Path) -> None:
    path = tmp_path / "w.safetensors"
    path.write_bytes(safetensors_bytes(lora_tensors()))
    assert read_safetensors_header(path).tensors
    with pytest.raises(AdapterFileError) as info:
        read_safetensors_header(path, max_header_bytes=64)
    assert_file_error(info, path, "exceeds the 64-byte limit")
    assert MAX_HEADER_BYTES == 100_000_000


def test_missing_file_is_an_adapter_file_error(tmp_path: Path) -> None:
    with pytest.raises(AdapterFileError) as info:
        read_safetensors_header(tmp_path / "nope.safetensors")
    assert_file_error(info, tmp_path / "nope.safetensors", "cannot read")


@given(st.binary(max_size=200))
def test_arbitrary_bytes_either_parse_or_raise_adapter_file_error(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "x.safetensors"
    path.write_bytes(data)
    try:
        header = read_safetensors_header(path)
    except AdapterFileError as exc:
        assert str(path) in str(exc)
    else:
        assert header.file_bytes == len(data)


@given(st.dictionaries(st.text(max_size=5), st.recursive(st.none() | st.integers(-3, 40) | st.text(max_size=4),
       lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=3)), max_size=3),
       st.integers(0, 40))
def test_arbitrary_json_headers_either_parse_or_raise_adapter_file_error(
    tmp_path_factory: pytest.TempPathFactory, header: dict, data_len: int
) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "x.safetensors"
    path.write_bytes(raw_file(header, b"\0" * data_len))
    try:
        parsed = read_safetensors_header(path)
    except AdapterFileError:
        return
    assert sum(t.nbytes for t in parsed.tensors) == data_len


# -- malformed adapter directories ---------------------------------------------------------------


class _Payload:
    """Unpickling this writes a marker file: proof that a loader executed the pickle."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (self.marker, "pwned"))


def test_pickle_weights_are_refused_and_never_unpickled(tmp_path: Path) -> None:
    folder = tmp_path / "a"
    folder.mkdir()
    (folder / "adapter_config.json").write_text(json.dumps({"peft_type": "LORA", "r": 4, "lora_alpha": 8,
                                                             "target_modules": ["q_proj"]}))
    marker = tmp_path / "marker.txt"
    (folder / "adapter_model.bin").write_bytes(pickle.dumps(_Payload(marker)))
    with pytest.raises(UnsafeAdapterFormatError) as info:
        read_peft_adapter(folder)
    assert_file_error(info, folder / "adapter_model.bin", "pickle", "arbitrary code", "safetensors")
    assert not marker.exists()


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"peft_type": "PREFIX_TUNING"}, ("peft_type is 'PREFIX_TUNING'", "'LORA'")),
        ({"r": 0}, ("r must be a positive int, got 0",)),
        ({"r": "16"}, ("r must be a positive int, got '16'",)),
        ({"lora_alpha": -1}, ("lora_alpha must be a positive number",)),
        ({"target_modules": []}, ("target_modules must be",)),
        ({"target_modules": [3]}, ("target_modules must be",)),
        ({"base_model_name_or_path": 42}, ("base_model_name_or_path must be a string or null",)),
        ({"rank_pattern": [1]}, ("rank_pattern must be an object",)),
    ],
)
def test_bad_adapter_config_is_refused_with_the_file_named(tmp_path: Path, config: dict, words: tuple[str, ...]) -> None:
    folder = write_adapter(tmp_path / "a", config=config)
    with pytest.raises(AdapterFileError) as info:
        read_peft_adapter(folder)
    assert_file_error(info, folder / "adapter_config.json", *words)


@pytest.mark.parametrize("text", [b"{oops", b"[1]", b"\xff\xfe", b'{"r": 1, "r": 2}'])
def test_unparseable_adapter_config_is_refused(tmp_path: Path, text: bytes) -> None:
    folder = write_adapter(tmp_path / "a")
    (folder / "adapter_config.json").write_bytes(text)
    with pytest.raises(AdapterFileError) as info:
        read_peft_adapter(folder)
    assert_file_error(info, folder / "adapter_config.json")


def test_missing_pieces_are_named(tmp_path: Path) -> None:
    with pytest.raises(AdapterFileError) as info:
        read_peft_adapter(tmp_path / "none")
    assert_file_error(info, tmp_path / "none", "not a directory")
    folder = write_adapter(tmp_path / "a")
    (folder / "adapter_config.json").unlink()
    with pytest.raises(AdapterFileError) as info:
        read_peft_adapter(folder)
    assert_file_error(info, folder / "adapter_config.json", "missing")
    folder = write_adapter(tmp_path / "b")
    (folder / "adapter_model.safetensors").unlink()
    with pytest.raises(AdapterFileError) as info:
        read_peft_adapter(folder)
    assert_file_error(info, folder / "adapter_model.safetensors", "missing")


def test_tensor_layout_problems_name_the_weights_file(tmp_path: Path) -> None:
    weights = "adapter_model.safetensors"
    unpaired = lora_tensors()
    del unpaired[PREFIX.format(i=0, m="q_proj") + ".lora_B.weight"]
    cases = [
        (unpaired, "unpaired"),
        ({"base_model.model.lm_head.weight": ("F32", [4, 4])}, "no LoRA tensors"),
        ({"x.q_proj.lora_A.weight": ("F32", [4, 16]), "x.q_proj.lora_B.weight": ("F32", [16, 3])}, "(out x r)"),
        ({"x.k_proj.lora_A.weight": ("F32", [4, 16]), "x.k_proj.lora_B.weight": ("F32", [8, 4])}, "['k_proj']"),
    ]
    for i, (tensors, word) in enumerate(cases):
        folder = write_adapter(tmp_path / str(i), tensors=tensors)
        with pytest.raises(AdapterFileError) as info:
            read_peft_adapter(folder)
        assert_file_error(info, folder / weights, word)


def test_malformed_weights_inside_a_directory_name_the_weights_file(tmp_path: Path) -> None:
    folder = write_adapter(tmp_path / "a", weights=b"\x01\x00")
    with pytest.raises(AdapterFileError) as info:
        read_peft_adapter(folder)
    assert_file_error(info, folder / "adapter_model.safetensors", "shorter than")


def test_regex_target_modules_are_kept_as_written(tmp_path: Path) -> None:
    folder = write_adapter(tmp_path / "a", config={"target_modules": r".*\.(q_proj|v_proj)"})
    files = read_peft_adapter(folder)
    assert files.target_modules == (r".*\.(q_proj|v_proj)",) and files.target_names == ("q_proj", "v_proj")


@pytest.mark.parametrize("init", ["pissa", "pissa_niter_4", "olora", "corda", "loftq"])
def test_inits_that_rewrite_the_base_are_refused(tmp_path: Path, init: str) -> None:
    folder = write_adapter(tmp_path / "a", config={"init_lora_weights": init})
    with pytest.raises(AdapterFileError) as info:
        read_peft_adapter(folder)
    assert_file_error(info, folder / "adapter_config.json", f"init_lora_weights={init!r}", "modified base")


@pytest.mark.parametrize("init", [True, False, "gaussian", "eva", "orthogonal", "lora_ga"])
def test_inits_that_leave_the_base_alone_are_read(tmp_path: Path, init: object) -> None:
    assert read_peft_adapter(write_adapter(tmp_path / "a", config={"init_lora_weights": init})).rank == 4
