"""labcore.peft_files.safetensors_header reads a safetensors header from untrusted bytes, with the stdlib only."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labcore.peft_files import MAX_HEADER_BYTES, AdapterFileError, read_safetensors_header

from .conftest import assert_file_error, lora_tensors, raw_file, safetensors_bytes


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
        (
            raw_file(
                None,
                b"\0" * 16,
                text=b'{"w": ' + json.dumps(OK_ENTRY).encode() + b', "w": ' + json.dumps(OK_ENTRY).encode() + b"}",
            ),
            ("duplicate key 'w'",),
        ),
        (
            raw_file({"w": {"dtype": "F4", "shape": [2], "data_offsets": [0, 1]}}, b"\0"),
            ("unknown or unsupported dtype 'F4'",),
        ),
        (raw_file({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, b"\0" * 8), ("is 12 bytes", "span 8")),
        (raw_file({"w": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}}, b"\0" * 8), ("shape must be",)),
        (raw_file({"w": {"dtype": "F32", "shape": [2.0], "data_offsets": [0, 8]}}, b"\0" * 8), ("shape must be",)),
        (raw_file({"w": {"dtype": "F32", "shape": [True], "data_offsets": [0, 4]}}, b"\0" * 4), ("shape must be",)),
        (
            raw_file({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8, 9]}}, b"\0" * 8),
            ("data_offsets must be",),
        ),
        (raw_file({"w": {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]}}, b"\0" * 8), ("begin <= end",)),
        (raw_file({"w": {"dtype": "F32", "shape": [2]}}, b"\0" * 8), ("exactly dtype, shape and data_offsets",)),
        (raw_file({"w": [1, 2]}, b"\0" * 8), ("exactly dtype, shape and data_offsets",)),
        (raw_file({"__metadata__": {"k": 1}, "w": OK_ENTRY}, b"\0" * 8), ("__metadata__",)),
        (
            raw_file({"w": OK_ENTRY, "v": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, b"\0" * 12),
            ("overlaps",),
        ),
        (
            raw_file({"w": OK_ENTRY, "v": {"dtype": "F32", "shape": [2], "data_offsets": [12, 20]}}, b"\0" * 20),
            ("gap of 4 bytes",),
        ),
        (raw_file({"w": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, b"\0" * 12), ("gap of 4 bytes",)),
        (raw_file({"w": OK_ENTRY}, b"\0" * 4), ("ends at offset 8", "holds 4 data bytes")),
        (raw_file({"w": OK_ENTRY}, b"\0" * 9), ("ends at offset 8", "holds 9 data bytes")),
    ],
    ids=[
        "truncated-prefix",
        "huge-header-length",
        "header-past-eof",
        "header-is-a-list",
        "header-not-json",
        "header-not-utf8",
        "duplicate-tensor",
        "unknown-dtype",
        "shape-disagrees-with-offsets",
        "negative-dim",
        "float-dim",
        "bool-dim",
        "three-offsets",
        "begin-after-end",
        "missing-offsets",
        "entry-not-object",
        "metadata-not-strings",
        "overlap",
        "gap-between",
        "gap-at-start",
        "offsets-exceed-file",
        "trailing-bytes",
    ],
)
def test_malformed_safetensors_is_refused_with_the_file_named(
    tmp_path: Path, body: bytes, words: tuple[str, ...]
) -> None:
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
def test_arbitrary_bytes_either_parse_or_raise_adapter_file_error(
    tmp_path_factory: pytest.TempPathFactory, data: bytes
) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "x.safetensors"
    path.write_bytes(data)
    try:
        header = read_safetensors_header(path)
    except AdapterFileError as exc:
        assert str(path) in str(exc)
    else:
        assert header.file_bytes == len(data)


@given(
    st.dictionaries(
        st.text(max_size=5),
        st.recursive(
            st.none() | st.integers(-3, 40) | st.text(max_size=4),
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=3),
        ),
        max_size=3,
    ),
    st.integers(0, 40),
)
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
