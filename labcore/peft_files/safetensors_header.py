"""Read a safetensors header with the standard library only, treating every byte as untrusted.

A safetensors file is an 8-byte little-endian header length ``N``, ``N`` bytes of JSON (dtype,
shape and ``[begin, end)`` data offsets per tensor), then the raw tensor bytes. Everything needed
to size the tensors is in the header, so :func:`read_safetensors_header` reads only ``8 + N``
bytes, whatever the file's size; :func:`safetensors_bytes` writes such a file.

>>> blob = safetensors_bytes({"w": ("BF16", [4, 8], bytes(64))})
>>> import pathlib, tempfile
>>> p = pathlib.Path(tempfile.mkdtemp()) / "w.safetensors"
>>> _ = p.write_bytes(blob)
>>> header = read_safetensors_header(p)
>>> header.tensor("w").shape, header.data_bytes
((4, 8), 64)
"""

from __future__ import annotations

import json
import math
import os
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._validate import choice
from ..errors import AdapterFileError

__all__ = [
    "SAFETENSORS_DTYPE_BYTES",
    "MAX_HEADER_BYTES",
    "TensorInfo",
    "SafetensorsHeader",
    "reject_duplicate_keys",
    "is_count",
    "read_safetensors_header",
    "safetensors_bytes",
]

#: Bytes per element of every whole-byte dtype the safetensors format defines.
SAFETENSORS_DTYPE_BYTES: Mapping[str, int] = {
    "BOOL": 1,
    "U8": 1,
    "I8": 1,
    "F8_E4M3": 1,
    "F8_E5M2": 1,
    "F8_E8M0": 1,
    "I16": 2,
    "U16": 2,
    "F16": 2,
    "BF16": 2,
    "I32": 4,
    "U32": 4,
    "F32": 4,
    "I64": 8,
    "U64": 8,
    "F64": 8,
}

#: Largest safetensors header accepted (the reference implementation caps it at 100 MB too).
#: A LoRA header costs about 130 bytes per tensor, so even 100,000 tensors stay far below it.
MAX_HEADER_BYTES = 100_000_000

_LEN_PREFIX = 8


@dataclass(frozen=True, slots=True)
class TensorInfo:
    """Describe one tensor of a safetensors file: name, dtype, shape and its byte range in the data.

    >>> TensorInfo("w", "BF16", (4, 8), 0, 64).nbytes
    64
    """

    name: str
    dtype: str
    shape: tuple[int, ...]
    begin: int
    end: int

    def __post_init__(self) -> None:
        choice(f"tensor {self.name!r}: dtype", self.dtype, sorted(SAFETENSORS_DTYPE_BYTES))
        if not 0 <= self.begin <= self.end:
            raise ValueError(
                f"tensor {self.name!r}: data_offsets [{self.begin}, {self.end}] must satisfy 0 <= begin <= end"
            )
        if self.numel * SAFETENSORS_DTYPE_BYTES[self.dtype] != self.end - self.begin:
            raise ValueError(
                f"tensor {self.name!r}: shape {list(self.shape)} at {self.dtype} is "
                f"{self.numel * SAFETENSORS_DTYPE_BYTES[self.dtype]} bytes but its data_offsets span {self.end - self.begin}"
            )

    @property
    def numel(self) -> int:
        """Return the number of elements (1 for a scalar of shape ``()``)."""
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        """Return the bytes the tensor occupies in the file."""
        return self.end - self.begin


@dataclass(frozen=True, slots=True)
class SafetensorsHeader:
    """Hold a validated safetensors header: tensors in data order, metadata and the byte layout."""

    path: str
    tensors: tuple[TensorInfo, ...]
    metadata: Mapping[str, str]
    header_bytes: int
    file_bytes: int

    @property
    def data_bytes(self) -> int:
        """Return the bytes of tensor data (the file minus the length prefix and the header)."""
        return self.file_bytes - _LEN_PREFIX - self.header_bytes

    def tensor(self, name: str) -> TensorInfo:
        """Return the tensor called ``name``; ``KeyError`` names the valid ones if it is absent."""
        for t in self.tensors:
            if t.name == name:
                return t
        raise KeyError(f"{self.path}: no tensor {name!r}; tensors: {[t.name for t in self.tensors][:8]}...")


def reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Build a JSON object from its key/value pairs, refusing a key given twice (a ``json.loads`` hook).

    >>> json.loads('{"r": 1, "r": 2}', object_pairs_hook=reject_duplicate_keys)
    Traceback (most recent call last):
    ...
    ValueError: duplicate key 'r'
    """
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


def is_count(value: Any) -> bool:
    """Return whether ``value`` is an int ``>= 0`` (a JSON ``true`` is not one).

    >>> is_count(0), is_count(True), is_count(2.0)
    (True, False, False)
    """
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def read_safetensors_header(
    path: str | os.PathLike[str], *, max_header_bytes: int = MAX_HEADER_BYTES
) -> SafetensorsHeader:
    """Read and validate a safetensors header without reading the tensor data.

    Checks: the length prefix is present and at most ``max_header_bytes``; the header is UTF-8
    JSON object text starting with ``{`` with no duplicate keys; every tensor has a known dtype, a
    shape of non-negative ints and ``[begin, end]`` offsets whose span equals the shape's bytes;
    the tensors tile the data region exactly (no gap, no overlap) and end where the file ends.

    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.safetensors"
    >>> _ = p.write_bytes(b"\\xff" * 8)
    >>> read_safetensors_header(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    labcore.errors.AdapterFileError: .../x.safetensors: header length 18446744073709551615 exceeds the 100000000-byte limit; not a safetensors file or a hostile one
    """
    path = Path(path)
    try:
        file_bytes = path.stat().st_size
        with path.open("rb") as fh:
            prefix = fh.read(_LEN_PREFIX)
            if len(prefix) < _LEN_PREFIX:
                raise AdapterFileError(
                    path, f"file is {file_bytes} bytes, shorter than the 8-byte header length prefix"
                )
            (n,) = struct.unpack("<Q", prefix)
            if n > max_header_bytes:
                raise AdapterFileError(
                    path,
                    f"header length {n} exceeds the {max_header_bytes}-byte limit; not a safetensors file or a hostile one",
                )
            if _LEN_PREFIX + n > file_bytes:
                raise AdapterFileError(path, f"header length {n} runs past the end of the {file_bytes}-byte file")
            raw = fh.read(n)
    except OSError as exc:
        raise AdapterFileError(path, f"cannot read: {exc.strerror or exc}") from exc
    if not raw.startswith(b"{"):
        raise AdapterFileError(path, f"header must start with '{{', starts with {raw[:16]!r}")
    try:
        header = json.loads(raw.decode("utf-8"), object_pairs_hook=reject_duplicate_keys)
    except (UnicodeDecodeError, ValueError) as exc:
        raise AdapterFileError(path, f"header is not valid UTF-8 JSON: {exc}") from exc
    if not isinstance(header, dict):
        raise AdapterFileError(path, f"header must be a JSON object, got {type(header).__name__}")

    metadata = header.pop("__metadata__", {})
    if not isinstance(metadata, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()
    ):
        raise AdapterFileError(path, "__metadata__ must map strings to strings")

    tensors: list[TensorInfo] = []
    for name, entry in header.items():
        if not isinstance(entry, dict) or set(entry) != {"dtype", "shape", "data_offsets"}:
            raise AdapterFileError(
                path, f"tensor {name!r} must have exactly dtype, shape and data_offsets, got {entry!r}"
            )
        dtype, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
        if dtype not in SAFETENSORS_DTYPE_BYTES:
            raise AdapterFileError(
                path,
                f"tensor {name!r} has unknown or unsupported dtype {dtype!r}; valid: {sorted(SAFETENSORS_DTYPE_BYTES)}",
            )
        if not isinstance(shape, list) or not all(is_count(d) for d in shape):
            raise AdapterFileError(path, f"tensor {name!r} shape must be a list of non-negative ints, got {shape!r}")
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(is_count(o) for o in offsets)):
            raise AdapterFileError(
                path, f"tensor {name!r} data_offsets must be [begin, end] ints >= 0, got {offsets!r}"
            )
        try:
            tensors.append(TensorInfo(name=name, dtype=dtype, shape=tuple(shape), begin=offsets[0], end=offsets[1]))
        except ValueError as exc:
            raise AdapterFileError(path, str(exc)) from exc

    tensors.sort(key=lambda t: (t.begin, t.end))
    cursor = 0
    for t in tensors:
        if t.begin != cursor:
            what = "overlaps the previous tensor" if t.begin < cursor else f"leaves a gap of {t.begin - cursor} bytes"
            raise AdapterFileError(
                path, f"tensor {t.name!r} starts at {t.begin} but the previous data ends at {cursor}: it {what}"
            )
        cursor = t.end
    data_bytes = file_bytes - _LEN_PREFIX - n
    if cursor != data_bytes:
        raise AdapterFileError(
            path, f"tensor data ends at offset {cursor} but the file holds {data_bytes} data bytes after the header"
        )
    return SafetensorsHeader(
        path=str(path), tensors=tuple(tensors), metadata=dict(metadata), header_bytes=n, file_bytes=file_bytes
    )


def safetensors_bytes(
    tensors: Mapping[str, tuple[str, Sequence[int], bytes]], *, metadata: Mapping[str, str] | None = None
) -> bytes:
    """Return a safetensors file holding ``tensors`` (name -> (dtype, shape, raw bytes)), laid out in the given order.

    The header is padded with spaces to a multiple of 8 bytes, as the reference writer does.

    >>> blob = safetensors_bytes({"w": ("F16", [2], bytes(4))}, metadata={"format": "pt"})
    >>> len(blob) % 8, blob[8:9]
    (4, b'{')
    """
    header: dict[str, Any] = {}
    if metadata is not None:
        header["__metadata__"] = dict(metadata)
    chunks: list[bytes] = []
    offset = 0
    for name, (dtype, shape, data) in tensors.items():
        info = TensorInfo(
            name=name, dtype=dtype, shape=tuple(shape), begin=offset, end=offset + len(data)
        )  # checks dtype and size
        header[name] = {"dtype": info.dtype, "shape": list(info.shape), "data_offsets": [info.begin, info.end]}
        chunks.append(bytes(data))
        offset = info.end
    raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
    raw += b" " * (-len(raw) % 8)
    return struct.pack("<Q", len(raw)) + raw + b"".join(chunks)
