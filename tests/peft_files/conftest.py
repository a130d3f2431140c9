"""Shared builders for the labcore.peft_files tests: safetensors files and adapter directories made by hand.

The tests' own writer (not labcore's ``safetensors_bytes``) builds the files the reader is
tested on, so a bug shared by labcore's reader and writer cannot hide.
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import pytest

from labcore.errors import LabcoreError
from labcore.peft_files import SAFETENSORS_DTYPE_BYTES, AdapterFileError, PeftAdapterFiles, read_peft_adapter

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


def write_adapter(
    folder: Path, *, config: dict | None = None, tensors: dict | None = None, weights: bytes | None = None
) -> Path:
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


@pytest.fixture
def plain_adapter(tmp_path: Path) -> PeftAdapterFiles:
    """Read the default adapter, written to ``tmp_path / "a"``: r=4 on q_proj and v_proj of 2 layers, F32."""
    return read_peft_adapter(write_adapter(tmp_path / "a"))
