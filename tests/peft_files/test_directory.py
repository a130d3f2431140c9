"""labcore.peft_files.directory reads a whole PEFT adapter directory, sizes it exactly, and never unpickles."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from labcore.adapter import Adapter
from labcore.peft_files import (
    TENSOR_ROLES,
    AdapterFileError,
    PeftAdapterFiles,
    UnsafeAdapterFormatError,
    adapter_from_dir,
    read_peft_adapter,
)
from labcore.sizing import MIB

from .conftest import assert_file_error, lora_tensors, write_adapter


def test_reads_rank_alpha_targets_base_and_modules(plain_adapter: PeftAdapterFiles) -> None:
    files = plain_adapter
    assert (files.rank, files.lora_alpha, files.scaling) == (4, 8, 2.0)
    assert files.target_modules == ("q_proj", "v_proj") and files.target_names == ("q_proj", "v_proj")
    assert files.base_model_name_or_path == "tiny-llama-demo" and files.revision is None
    assert [(m.target, m.in_features, m.out_features, m.rank) for m in files.modules] == [
        ("q_proj", 16, 16, 4),
        ("v_proj", 16, 8, 4),
        ("q_proj", 16, 16, 4),
        ("v_proj", 16, 8, 4),
    ]
    assert files.extra_tensors == ()


def test_sizes_are_exact_from_shapes_and_dtypes(tmp_path: Path, plain_adapter: PeftAdapterFiles) -> None:
    files = plain_adapter
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


@pytest.mark.parametrize(
    ("dtype", "include", "match"),
    [
        ("int3", TENSOR_ROLES, "serving dtype must be one of 'bf16'.*, got 'int3'"),
        ("bf16", "lora", "include"),
        ("bf16", ("lora", "weights"), "include"),
        ("bf16", 3, "include"),
    ],
    ids=["unknown-dtype", "roles-as-a-string", "unknown-role", "roles-as-an-int"],
)
def test_unknown_serving_dtypes_and_roles_are_refused(
    plain_adapter: PeftAdapterFiles, dtype: str, include: object, match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        plain_adapter.serving_bytes(dtype, include=include)  # type: ignore[arg-type]


class _Payload:
    """Unpickling this writes a marker file: proof that a loader executed the pickle."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (self.marker, "pwned"))


def test_pickle_weights_are_refused_and_never_unpickled(tmp_path: Path) -> None:
    folder = tmp_path / "a"
    folder.mkdir()
    (folder / "adapter_config.json").write_text(
        json.dumps({"peft_type": "LORA", "r": 4, "lora_alpha": 8, "target_modules": ["q_proj"]})
    )
    marker = tmp_path / "marker.txt"
    (folder / "adapter_model.bin").write_bytes(pickle.dumps(_Payload(marker)))
    with pytest.raises(UnsafeAdapterFormatError) as info:
        read_peft_adapter(folder)
    assert_file_error(info, folder / "adapter_model.bin", "pickle", "arbitrary code", "safetensors")
    assert not marker.exists()


@pytest.mark.parametrize(
    ("missing", "word"),
    [(None, "not a directory"), ("adapter_config.json", "missing"), ("adapter_model.safetensors", "missing")],
    ids=["no-directory", "no-config", "no-weights"],
)
def test_missing_pieces_are_named(tmp_path: Path, missing: str | None, word: str) -> None:
    if missing is None:
        folder = named = tmp_path / "none"
    else:
        folder = write_adapter(tmp_path / "a")
        named = folder / missing
        named.unlink()
    with pytest.raises(AdapterFileError) as info:
        read_peft_adapter(folder)
    assert_file_error(info, named, word)
