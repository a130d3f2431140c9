"""Read a PEFT LoRA adapter directory with the standard library only: no torch, no unpickling.

A PEFT adapter directory holds ``adapter_config.json`` (rank, alpha, target modules, the base it
*names*) and ``adapter_model.safetensors``. A safetensors file is an 8-byte little-endian header
length ``N``, ``N`` bytes of JSON (dtype, shape and ``[begin, end)`` data offsets per tensor), then
the raw tensor bytes. Everything needed to size an adapter is in the header, so this module reads
only ``8 + N`` bytes of the weights file, whatever its size, and treats every byte as untrusted.

>>> import json, pathlib, struct, tempfile
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "adapter_config.json").write_text(json.dumps({"peft_type": "LORA", "r": 2,
...     "lora_alpha": 4, "target_modules": ["q_proj"], "base_model_name_or_path": "tiny"}))
>>> header = {"m.layers.0.q_proj.lora_A.weight": {"dtype": "F32", "shape": [2, 8], "data_offsets": [0, 64]},
...           "m.layers.0.q_proj.lora_B.weight": {"dtype": "F32", "shape": [8, 2], "data_offsets": [64, 128]}}
>>> raw = json.dumps(header).encode()
>>> _ = (d / "adapter_model.safetensors").write_bytes(struct.pack("<Q", len(raw)) + raw + bytes(128))
>>> files = read_peft_adapter(d)
>>> files.rank, files.lora_alpha, files.target_names, files.param_count, files.tensor_bytes
(2, 4, ('q_proj',), 32, 128)
>>> files.serving_bytes("bf16")
64
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

from .adapter import Adapter
from .errors import AdapterFileError, UnsafeAdapterFormatError
from .sizing import MIB

__all__ = [
    "ADAPTER_CONFIG_NAME",
    "ADAPTER_WEIGHTS_NAME",
    "PICKLE_WEIGHTS_NAMES",
    "SAFETENSORS_DTYPE_BYTES",
    "SERVING_DTYPE_BYTES",
    "MAX_HEADER_BYTES",
    "AdapterFileError",
    "UnsafeAdapterFormatError",
    "TensorInfo",
    "SafetensorsHeader",
    "LoraModule",
    "PeftAdapterFiles",
    "read_safetensors_header",
    "safetensors_bytes",
    "read_peft_adapter",
    "adapter_from_dir",
    "DEMO_RESULTS_FORMAT",
    "DemoResults",
    "load_demo_results",
]

ADAPTER_CONFIG_NAME = "adapter_config.json"
ADAPTER_WEIGHTS_NAME = "adapter_model.safetensors"
PICKLE_WEIGHTS_NAMES = ("adapter_model.bin", "adapter_model.pt", "adapter_model.pth")

#: Bytes per element of every whole-byte dtype the safetensors format defines.
SAFETENSORS_DTYPE_BYTES: Mapping[str, int] = {
    "BOOL": 1, "U8": 1, "I8": 1, "F8_E4M3": 1, "F8_E5M2": 1, "F8_E8M0": 1,
    "I16": 2, "U16": 2, "F16": 2, "BF16": 2,
    "I32": 4, "U32": 4, "F32": 4,
    "I64": 8, "U64": 8, "F64": 8,
}

#: Bytes per parameter when an adapter is held in GPU memory at a given dtype.
SERVING_DTYPE_BYTES: Mapping[str, int] = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1}

#: Largest safetensors header accepted (the reference implementation caps it at 100 MB too).
#: A LoRA header costs about 130 bytes per tensor, so even 100,000 tensors stay far below it.
MAX_HEADER_BYTES = 100_000_000

_LEN_PREFIX = 8
_LORA_A, _LORA_B = ".lora_A.weight", ".lora_B.weight"


# -- records -----------------------------------------------------------------------------------


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
        if self.dtype not in SAFETENSORS_DTYPE_BYTES:
            raise ValueError(f"tensor {self.name!r}: unknown dtype {self.dtype!r}; valid: {sorted(SAFETENSORS_DTYPE_BYTES)}")
        if not 0 <= self.begin <= self.end:
            raise ValueError(f"tensor {self.name!r}: data_offsets [{self.begin}, {self.end}] must satisfy 0 <= begin <= end")
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


@dataclass(frozen=True, slots=True)
class LoraModule:
    """Describe one adapted linear layer: its ``A`` (rank x in) and ``B`` (out x rank) pair.

    >>> LoraModule("layers.0.self_attn.v_proj", in_features=4096, out_features=1024, rank=16).param_count
    81920
    """

    name: str
    in_features: int
    out_features: int
    rank: int

    @property
    def target(self) -> str:
        """Return the module's own name, e.g. ``'v_proj'``."""
        return self.name.rsplit(".", 1)[-1]

    @property
    def param_count(self) -> int:
        """Return ``rank * (in_features + out_features)``."""
        return self.rank * (self.in_features + self.out_features)


@dataclass(frozen=True, slots=True)
class PeftAdapterFiles:
    """Hold what a PEFT LoRA directory says about itself, read without torch.

    ``rank`` is the largest rank of any adapted module (what a server's ``--max-lora-rank`` must
    admit); ``base_model_name_or_path`` is only a *name*: nothing in the files identifies the weights.
    """

    directory: str
    peft_type: str
    rank: int
    lora_alpha: float
    target_modules: tuple[str, ...]
    base_model_name_or_path: str | None
    revision: str | None
    modules: tuple[LoraModule, ...]
    extra_tensors: tuple[str, ...]
    weights: SafetensorsHeader

    @property
    def scaling(self) -> float:
        """Return ``lora_alpha / rank``, the factor PEFT multiplies ``B @ A`` by."""
        return self.lora_alpha / self.rank

    @property
    def target_names(self) -> tuple[str, ...]:
        """Return the sorted names of the adapted modules as found in the tensors (``'q_proj'``...)."""
        return tuple(sorted({m.target for m in self.modules}))

    @property
    def param_count(self) -> int:
        """Return the number of stored parameters (every tensor in the file)."""
        return sum(t.numel for t in self.weights.tensors)

    @property
    def tensor_bytes(self) -> int:
        """Return the bytes of tensor data as stored (PEFT saves F32 by default)."""
        return self.weights.data_bytes

    @property
    def file_bytes(self) -> int:
        """Return the size of ``adapter_model.safetensors`` including its header."""
        return self.weights.file_bytes

    def serving_bytes(self, dtype: str = "bf16") -> int:
        """Return the exact bytes the adapter occupies when held at ``dtype`` (``'fp32'``, ``'bf16'``...)."""
        return self.param_count * _serving_dtype_bytes(dtype)

    def serving_mb(self, dtype: str = "bf16") -> float:
        """Return :meth:`serving_bytes` in MiB."""
        return self.serving_bytes(dtype) / MIB

    def to_adapter(
        self, *, name: str, version: str, base_model: str, base_digest: str, serving_dtype: str = "bf16"
    ) -> Adapter:
        """Return a registry ``Adapter`` with the file's rank and its exact size at ``serving_dtype``.

        ``base_model`` is the *served* base name and ``base_digest`` the digest of the checkpoint the
        adapter was trained on (from ``labcore.digest``); neither can be read from PEFT's files.
        """
        return Adapter(
            name, version, base_model, base_digest, rank=self.rank, vram_mb=self.serving_mb(serving_dtype)
        )


def _serving_dtype_bytes(dtype: str) -> int:
    try:
        return SERVING_DTYPE_BYTES[dtype]
    except (KeyError, TypeError):
        raise ValueError(f"serving dtype {dtype!r} is not one of {sorted(SERVING_DTYPE_BYTES)}") from None


# -- safetensors --------------------------------------------------------------------------------


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _is_count(value: Any) -> bool:
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
                raise AdapterFileError(path, f"file is {file_bytes} bytes, shorter than the 8-byte header length prefix")
            (n,) = struct.unpack("<Q", prefix)
            if n > max_header_bytes:
                raise AdapterFileError(
                    path, f"header length {n} exceeds the {max_header_bytes}-byte limit; not a safetensors file or a hostile one"
                )
            if _LEN_PREFIX + n > file_bytes:
                raise AdapterFileError(path, f"header length {n} runs past the end of the {file_bytes}-byte file")
            raw = fh.read(n)
    except OSError as exc:
        raise AdapterFileError(path, f"cannot read: {exc.strerror or exc}") from exc
    if not raw.startswith(b"{"):
        raise AdapterFileError(path, f"header must start with '{{', starts with {raw[:16]!r}")
    try:
        header = json.loads(raw.decode("utf-8"), object_pairs_hook=_reject_duplicates)
    except (UnicodeDecodeError, ValueError) as exc:
        raise AdapterFileError(path, f"header is not valid UTF-8 JSON: {exc}") from exc
    if not isinstance(header, dict):
        raise AdapterFileError(path, f"header must be a JSON object, got {type(header).__name__}")

    metadata = header.pop("__metadata__", {})
    if not isinstance(metadata, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
        raise AdapterFileError(path, "__metadata__ must map strings to strings")

    tensors: list[TensorInfo] = []
    for name, entry in header.items():
        if not isinstance(entry, dict) or set(entry) != {"dtype", "shape", "data_offsets"}:
            raise AdapterFileError(path, f"tensor {name!r} must have exactly dtype, shape and data_offsets, got {entry!r}")
        dtype, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
        if dtype not in SAFETENSORS_DTYPE_BYTES:
            raise AdapterFileError(
                path, f"tensor {name!r} has unknown or unsupported dtype {dtype!r}; valid: {sorted(SAFETENSORS_DTYPE_BYTES)}"
            )
        if not isinstance(shape, list) or not all(_is_count(d) for d in shape):
            raise AdapterFileError(path, f"tensor {name!r} shape must be a list of non-negative ints, got {shape!r}")
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(_is_count(o) for o in offsets)):
            raise AdapterFileError(path, f"tensor {name!r} data_offsets must be [begin, end] ints >= 0, got {offsets!r}")
        try:
            tensors.append(TensorInfo(name, dtype, tuple(shape), offsets[0], offsets[1]))
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
    return SafetensorsHeader(str(path), tuple(tensors), dict(metadata), n, file_bytes)


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
        info = TensorInfo(name, dtype, tuple(shape), offset, offset + len(data))  # checks dtype and size
        header[name] = {"dtype": info.dtype, "shape": list(info.shape), "data_offsets": [info.begin, info.end]}
        chunks.append(bytes(data))
        offset = info.end
    raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
    raw += b" " * (-len(raw) % 8)
    return struct.pack("<Q", len(raw)) + raw + b"".join(chunks)


# -- PEFT directory -----------------------------------------------------------------------------


def _read_config(path: Path) -> dict[str, Any]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise AdapterFileError(path, "missing; a PEFT adapter directory needs adapter_config.json") from None
    except OSError as exc:
        raise AdapterFileError(path, f"cannot read: {exc.strerror or exc}") from exc
    if len(raw) > MAX_HEADER_BYTES:
        raise AdapterFileError(path, f"{len(raw)} bytes is too large for an adapter config")
    try:
        config = json.loads(raw.decode("utf-8"), object_pairs_hook=_reject_duplicates)
    except (UnicodeDecodeError, ValueError) as exc:
        raise AdapterFileError(path, f"not valid UTF-8 JSON: {exc}") from exc
    if not isinstance(config, dict):
        raise AdapterFileError(path, f"must be a JSON object, got {type(config).__name__}")
    return config


def _modules(header: SafetensorsHeader, path: Path) -> tuple[tuple[LoraModule, ...], tuple[str, ...]]:
    a_of: dict[str, TensorInfo] = {}
    b_of: dict[str, TensorInfo] = {}
    extra: list[str] = []
    for t in header.tensors:
        if t.name.endswith(_LORA_A):
            a_of[t.name[: -len(_LORA_A)]] = t
        elif t.name.endswith(_LORA_B):
            b_of[t.name[: -len(_LORA_B)]] = t
        else:
            extra.append(t.name)
    if set(a_of) != set(b_of):
        lonely = sorted(set(a_of) ^ set(b_of))
        raise AdapterFileError(path, f"LoRA tensors come in lora_A/lora_B pairs; unpaired: {lonely[:4]}")
    if not a_of:
        raise AdapterFileError(path, "holds no LoRA tensors (*.lora_A.weight / *.lora_B.weight)")
    modules = []
    for prefix in sorted(a_of):
        a, b = a_of[prefix], b_of[prefix]
        if len(a.shape) != 2 or len(b.shape) != 2 or a.shape[0] != b.shape[1] or a.shape[0] == 0:
            raise AdapterFileError(
                path, f"{prefix}: lora_A {list(a.shape)} and lora_B {list(b.shape)} must be (r x in) and (out x r) with r > 0"
            )
        modules.append(LoraModule(prefix, in_features=a.shape[1], out_features=b.shape[0], rank=a.shape[0]))
    return tuple(modules), tuple(sorted(extra))


def read_peft_adapter(
    directory: str | os.PathLike[str], *, max_header_bytes: int = MAX_HEADER_BYTES
) -> PeftAdapterFiles:
    """Read a PEFT LoRA adapter directory: config, tensor layout, per-module ranks and sizes.

    The config's ``r`` must agree with every module's tensors unless it declares a
    ``rank_pattern``. A directory that only has ``adapter_model.bin`` is refused: that file is a
    pickle, and unpickling runs arbitrary code. Errors are ``AdapterFileError`` naming the file.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise AdapterFileError(directory, "is not a directory (a PEFT adapter is a directory)")
    config_path = directory / ADAPTER_CONFIG_NAME
    weights_path = directory / ADAPTER_WEIGHTS_NAME
    if not weights_path.is_file():
        for pickled in PICKLE_WEIGHTS_NAMES:
            if (directory / pickled).exists():
                raise UnsafeAdapterFormatError(
                    directory / pickled,
                    "pickle-based weights are refused: loading them can run arbitrary code. Ask for "
                    "adapter_model.safetensors (re-save with save_pretrained(..., safe_serialization=True))",
                )
        raise AdapterFileError(weights_path, "missing; a PEFT adapter directory needs adapter_model.safetensors")
    config = _read_config(config_path)

    peft_type = config.get("peft_type")
    if peft_type != "LORA":
        raise AdapterFileError(config_path, f"peft_type is {peft_type!r}; only 'LORA' adapters are supported")
    rank = config.get("r")
    if isinstance(rank, bool) or not isinstance(rank, int) or rank <= 0:
        raise AdapterFileError(config_path, f"r must be a positive int, got {rank!r}")
    alpha = config.get("lora_alpha")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not math.isfinite(alpha) or alpha <= 0:
        raise AdapterFileError(config_path, f"lora_alpha must be a positive number, got {alpha!r}")
    targets = config.get("target_modules")
    if isinstance(targets, str):
        targets = [targets]  # a regex or "all-linear"; kept as written
    if not isinstance(targets, list) or not targets or not all(isinstance(t, str) and t for t in targets):
        raise AdapterFileError(config_path, f"target_modules must be a non-empty list of names or a string, got {targets!r}")
    base = config.get("base_model_name_or_path")
    revision = config.get("revision")
    for label, value in (("base_model_name_or_path", base), ("revision", revision)):
        if value is not None and not isinstance(value, str):
            raise AdapterFileError(config_path, f"{label} must be a string or null, got {value!r}")
    rank_pattern = config.get("rank_pattern") or {}
    if not isinstance(rank_pattern, dict):
        raise AdapterFileError(config_path, f"rank_pattern must be an object, got {rank_pattern!r}")

    header = read_safetensors_header(weights_path, max_header_bytes=max_header_bytes)
    modules, extra = _modules(header, weights_path)
    if not rank_pattern:
        for m in modules:
            if m.rank != rank:
                raise AdapterFileError(
                    weights_path, f"{m.name} has rank {m.rank} but {ADAPTER_CONFIG_NAME} says r={rank} (and no rank_pattern)"
                )
    if isinstance(config.get("target_modules"), list):
        named = set(config["target_modules"])
        stray = sorted({m.target for m in modules} - named)
        if stray:
            raise AdapterFileError(
                weights_path, f"adapts modules {stray} that {ADAPTER_CONFIG_NAME} target_modules {sorted(named)} does not name"
            )
    return PeftAdapterFiles(
        directory=str(directory),
        peft_type=peft_type,
        rank=max(m.rank for m in modules),
        lora_alpha=alpha,
        target_modules=tuple(targets),
        base_model_name_or_path=base,
        revision=revision,
        modules=modules,
        extra_tensors=extra,
        weights=header,
    )


def adapter_from_dir(
    directory: str | os.PathLike[str],
    *,
    name: str,
    version: str,
    base_model: str,
    base_digest: str,
    serving_dtype: str = "bf16",
) -> Adapter:
    """Read a PEFT directory and return its registry ``Adapter`` with the exact ``vram_mb``.

    The digest must come from the checkpoint the adapter was trained on (``labcore.digest``):
    PEFT's files name a base but never identify its weights.
    """
    return read_peft_adapter(directory).to_adapter(
        name=name, version=version, base_model=base_model, base_digest=base_digest, serving_dtype=serving_dtype
    )


# -- results of scripts/real_lora_demo.py ----------------------------------------------------

DEMO_RESULTS_FORMAT = "labcore.real_lora_demo/1"


@dataclass(frozen=True, slots=True)
class DemoResults:
    """Hold the measured results of ``scripts/real_lora_demo.py`` for the chapter to quote.

    ``deterministic`` holds what a rerun reproduces (metrics, sizes, weight changes, registry
    outcomes); ``timings`` holds machine-dependent wall-clock figures; ``environment`` the versions.
    """

    path: str
    deterministic: Mapping[str, Any]
    timings: Mapping[str, Any]
    environment: Mapping[str, Any]

    def __getitem__(self, dotted: str) -> Any:
        """Return a field by dotted path, e.g. ``results["metrics.adapter_on_A.exact_match"]``."""
        node: Any = self.deterministic
        for part in dotted.split("."):
            if not isinstance(node, Mapping) or part not in node:
                raise KeyError(f"{self.path}: no field {dotted!r} (stopped at {part!r})")
            node = node[part]
        return node


def load_demo_results(path: str | os.PathLike[str]) -> DemoResults:
    """Load ``results/real_lora.json`` and check its format tag and sections."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AdapterFileError(path, "missing; run scripts/real_lora_demo.py to create it") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise AdapterFileError(path, f"not valid JSON: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != DEMO_RESULTS_FORMAT:
        raise AdapterFileError(path, f"format must be {DEMO_RESULTS_FORMAT!r}")
    for section in ("deterministic", "timings", "environment"):
        if not isinstance(data.get(section), dict):
            raise AdapterFileError(path, f"section {section!r} is missing or not an object")
    return DemoResults(str(path), data["deterministic"], data["timings"], data["environment"])
