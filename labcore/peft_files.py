"""Read a PEFT LoRA adapter directory with the standard library only: no torch, no unpickling.

A PEFT adapter directory holds ``adapter_config.json`` (rank, alpha, target modules, the base it
*names*) and ``adapter_model.safetensors``. A safetensors file is an 8-byte little-endian header
length ``N``, ``N`` bytes of JSON (dtype, shape and ``[begin, end)`` data offsets per tensor), then
the raw tensor bytes. Everything needed to size an adapter is in the header, so this module reads
only ``8 + N`` bytes of the weights file, whatever its size, and treats every byte as untrusted.

Every LoraConfig variant PEFT 0.21 writes is read exactly or refused by name: targets given as
``all-linear``, suffixes or a regex are matched as PEFT matches them; each :class:`LoraModule`
carries its own rank and scaling (``rank_pattern``, ``alpha_pattern``, ``use_rslora``), embeddings
included; every tensor gets a role (:data:`TENSOR_ROLES`: low-rank pairs, DoRA magnitudes, trained
biases, full module copies, trainable tokens) whose bytes are reported apart, and
:meth:`PeftAdapterFiles.serving_bytes` says which roles a size includes. MoE ``target_parameters``
and the other options in :data:`UNSUPPORTED_FEATURES` are refused. :func:`variant_table` sums it up.

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
import re
import struct
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
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
    "TENSOR_ROLES",
    "LOW_RANK_ROLES",
    "UNSUPPORTED_FEATURES",
    "LoraModule",
    "PeftAdapterFiles",
    "is_targeted",
    "module_rank_and_alpha",
    "VariantRow",
    "variant_table",
    "read_safetensors_header",
    "safetensors_bytes",
    "read_peft_adapter",
    "adapter_from_dir",
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


#: What each tensor of an adapter file is, as :func:`read_peft_adapter` classifies it.
TENSOR_ROLES: tuple[str, ...] = (
    "lora",              # lora_A / lora_B of a linear (or Conv1D) layer
    "embedding_lora",    # lora_embedding_A / lora_embedding_B of an embedding layer
    "dora_magnitude",    # use_dora: one magnitude vector per adapted module
    "bias",              # trained biases: bias="all" / "lora_only" (base biases) and lora_bias (lora_B.bias)
    "module_copy",       # full copies of modules: modules_to_save, and embedding layers saved whole
    "trainable_tokens",  # trainable_token_indices: the trained rows of an embedding
)
#: The low-rank part alone: what a server that supports only plain LoRA holds per adapter.
LOW_RANK_ROLES: tuple[str, ...] = ("lora", "embedding_lora")
_MODULE_KINDS = ("linear", "embedding")
_PEFT_PREFIX = "base_model.model."


@dataclass(frozen=True, slots=True)
class LoraModule:
    """Describe one adapted layer: its ``A`` (rank x in) and ``B`` (out x rank) pair, rank and scaling.

    For an embedding (``kind='embedding'``) ``in_features`` is the vocabulary and ``out_features``
    the embedding width. ``scaling`` is what PEFT multiplies ``B @ A`` by for this module:
    ``lora_alpha / rank``, or ``lora_alpha / sqrt(rank)`` under ``use_rslora``, with this module's
    own rank and alpha from ``rank_pattern`` / ``alpha_pattern``.

    >>> m = LoraModule("layers.0.self_attn.v_proj", in_features=4096, out_features=1024, rank=16,
    ...                lora_alpha=32, scaling=2.0)
    >>> m.param_count, m.target, m.scaling
    (81920, 'v_proj', 2.0)
    """

    name: str
    in_features: int
    out_features: int
    rank: int
    lora_alpha: float | None = None
    scaling: float | None = None
    kind: str = "linear"

    def __post_init__(self) -> None:
        if self.kind not in _MODULE_KINDS:
            raise ValueError(f"LoraModule {self.name!r}: kind {self.kind!r} is not one of {list(_MODULE_KINDS)}")

    @property
    def target(self) -> str:
        """Return the module's own name, e.g. ``'v_proj'``."""
        return self.name.rsplit(".", 1)[-1]

    @property
    def key(self) -> str:
        """Return the module's path in the base model (the tensor prefix without PEFT's ``base_model.model.``)."""
        return self.name.removeprefix(_PEFT_PREFIX)

    @property
    def param_count(self) -> int:
        """Return ``rank * (in_features + out_features)``."""
        return self.rank * (self.in_features + self.out_features)


@dataclass(frozen=True, slots=True)
class PeftAdapterFiles:
    """Hold what a PEFT LoRA directory says about itself, read without torch.

    ``rank`` is the largest rank of any adapted module, embeddings included (what a server's
    ``--max-lora-rank`` must admit); ``default_rank`` is the config's ``r``. Each module carries
    its own rank and scaling. ``roles`` maps every tensor to one of :data:`TENSOR_ROLES`, so the
    bytes of the low-rank pairs, DoRA magnitudes, trained biases and full module copies are
    reported apart. ``base_model_name_or_path`` is only a *name*: nothing in the files identifies
    the weights.
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
    default_rank: int = 0
    use_rslora: bool = False
    use_dora: bool = False
    bias: str = "none"
    lora_bias: bool = False
    modules_to_save: tuple[str, ...] = ()
    roles: Mapping[str, str] = field(default_factory=dict)

    @property
    def scaling(self) -> float:
        """Return the scaling every module shares; refuse if ``rank_pattern``/``alpha_pattern`` make them differ.

        Per-module values are on each :class:`LoraModule` (``files.modules[i].scaling``).
        """
        values = sorted({m.scaling for m in self.modules if m.scaling is not None})
        if len(values) == 1:
            return values[0]
        if not values:  # records built by hand, without per-module scaling
            return self.lora_alpha / (math.sqrt(self.rank) if self.use_rslora else self.rank)
        raise AdapterFileError(
            self.directory,
            f"modules have {len(values)} different scalings ({values[0]:g} to {values[-1]:g}, from rank_pattern/"
            "alpha_pattern); there is no single adapter scaling: read LoraModule.scaling per module",
        )

    @property
    def target_names(self) -> tuple[str, ...]:
        """Return the sorted names of the adapted modules as found in the tensors (``'q_proj'``, ``'embed_tokens'``...)."""
        return tuple(sorted({m.target for m in self.modules}))

    @property
    def param_count(self) -> int:
        """Return the number of stored parameters (every tensor in the file, whatever its role)."""
        return sum(t.numel for t in self.weights.tensors)

    @property
    def lora_param_count(self) -> int:
        """Return the parameters of the low-rank ``A``/``B`` pairs alone (linear and embedding)."""
        return sum(m.param_count for m in self.modules)

    def params_by_role(self) -> dict[str, int]:
        """Return the stored parameter count of each role in :data:`TENSOR_ROLES` (zeros included)."""
        out = dict.fromkeys(TENSOR_ROLES, 0)
        for t in self.weights.tensors:
            out[self.roles.get(t.name, "lora")] += t.numel
        return out

    def bytes_by_role(self) -> dict[str, int]:
        """Return the stored bytes of each role in :data:`TENSOR_ROLES` (zeros included), as in the file."""
        out = dict.fromkeys(TENSOR_ROLES, 0)
        for t in self.weights.tensors:
            out[self.roles.get(t.name, "lora")] += t.nbytes
        return out

    @property
    def lora_bytes(self) -> int:
        """Return the stored bytes of the linear layers' ``lora_A``/``lora_B`` tensors."""
        return self.bytes_by_role()["lora"]

    @property
    def embedding_lora_bytes(self) -> int:
        """Return the stored bytes of ``lora_embedding_A``/``lora_embedding_B``."""
        return self.bytes_by_role()["embedding_lora"]

    @property
    def dora_bytes(self) -> int:
        """Return the stored bytes of the DoRA magnitude vectors (0 unless ``use_dora``)."""
        return self.bytes_by_role()["dora_magnitude"]

    @property
    def bias_bytes(self) -> int:
        """Return the stored bytes of trained biases (``bias='all'``/``'lora_only'`` and ``lora_bias``)."""
        return self.bytes_by_role()["bias"]

    @property
    def module_copy_bytes(self) -> int:
        """Return the stored bytes of full module copies (``modules_to_save``, embedding layers saved whole)."""
        return self.bytes_by_role()["module_copy"]

    @property
    def trainable_token_bytes(self) -> int:
        """Return the stored bytes of trainable-token rows (``trainable_token_indices``)."""
        return self.bytes_by_role()["trainable_tokens"]

    @property
    def tensor_bytes(self) -> int:
        """Return the bytes of tensor data as stored (PEFT saves F32 by default)."""
        return self.weights.data_bytes

    @property
    def file_bytes(self) -> int:
        """Return the size of ``adapter_model.safetensors`` including its header."""
        return self.weights.file_bytes

    def serving_bytes(self, dtype: str = "bf16", *, include: Collection[str] = TENSOR_ROLES) -> int:
        """Return the exact bytes of the tensors whose role is in ``include``, held at ``dtype``.

        The default, every role, is what holding the adapter faithfully costs: the low-rank pairs
        plus any DoRA magnitudes, trained biases and full module copies it ships.
        ``include=LOW_RANK_ROLES`` is the ``A``/``B`` pairs alone. A ``modules_to_save=["lm_head"]``
        adapter on the tiny model (vocabulary 256, hidden 64, r=8 on q and v of 2 layers):

        >>> import json, pathlib, tempfile
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (d / "adapter_config.json").write_text(json.dumps({"peft_type": "LORA", "r": 8, "lora_alpha": 16,
        ...     "target_modules": ["q_proj", "v_proj"], "modules_to_save": ["lm_head"]}))
        >>> t = {f"base_model.model.model.layers.{i}.self_attn.{m}.lora_{ab}.weight": ("F32", s, bytes(4 * s[0] * s[1]))
        ...      for i in (0, 1) for m, out in (("q_proj", 64), ("v_proj", 32))
        ...      for ab, s in (("A", [8, 64]), ("B", [out, 8]))}
        >>> t["base_model.model.lm_head.weight"] = ("F32", [256, 64], bytes(4 * 256 * 64))
        >>> _ = (d / "adapter_model.safetensors").write_bytes(safetensors_bytes(t))
        >>> files = read_peft_adapter(d)
        >>> files.serving_bytes("bf16"), files.serving_bytes("bf16", include=LOW_RANK_ROLES)
        (39936, 7168)
        >>> files.bytes_by_role()["module_copy"], files.lora_bytes
        (65536, 14336)
        """
        roles = _roles(include)
        per = _serving_dtype_bytes(dtype)
        return sum(t.numel for t in self.weights.tensors if self.roles.get(t.name, "lora") in roles) * per

    def serving_mb(self, dtype: str = "bf16", *, include: Collection[str] = TENSOR_ROLES) -> float:
        """Return :meth:`serving_bytes` in MiB."""
        return self.serving_bytes(dtype, include=include) / MIB

    def to_adapter(
        self,
        *,
        name: str,
        version: str,
        base_model: str,
        base_digest: str,
        serving_dtype: str = "bf16",
        include: Collection[str] = TENSOR_ROLES,
    ) -> Adapter:
        """Return a registry ``Adapter`` with the file's rank and its exact size at ``serving_dtype``.

        ``include`` says which tensors the size counts (:meth:`serving_bytes`). ``base_model`` is
        the *served* base name and ``base_digest`` the digest of the checkpoint the adapter was
        trained on (from ``labcore.digest``); neither can be read from PEFT's files.
        """
        return Adapter(
            name, version, base_model, base_digest, rank=self.rank, vram_mb=self.serving_mb(serving_dtype, include=include)
        )


def _serving_dtype_bytes(dtype: str) -> int:
    try:
        return SERVING_DTYPE_BYTES[dtype]
    except (KeyError, TypeError):
        raise ValueError(f"serving dtype {dtype!r} is not one of {sorted(SERVING_DTYPE_BYTES)}") from None


def _roles(include: object) -> frozenset[str]:
    if isinstance(include, str) or not isinstance(include, Collection):
        raise ValueError(f"include must be a collection of roles from {list(TENSOR_ROLES)}, got {include!r}")
    unknown = sorted(set(include) - set(TENSOR_ROLES))
    if unknown:
        raise ValueError(f"include names unknown roles {unknown}; valid: {list(TENSOR_ROLES)}")
    return frozenset(include)


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

#: LoraConfig options whose adapters this reader refuses, each with what it would change.
UNSUPPORTED_FEATURES: Mapping[str, str] = {
    "target_parameters": "target_parameters (MoE expert parameters) is not supported: its LoRA acts on 3-D expert "
    "weight tensors, not on modules, and its tensor shapes cannot be sized as A/B pairs",
    "layer_replication": "layer_replication is not supported: the adapter expects a base whose layers were duplicated",
    "alora_invocation_tokens": "alora_invocation_tokens (activated LoRA) is not supported: it applies only after its "
    "invocation tokens",
    "use_qalora": "use_qalora is not supported: the A matrix acts on pooled input groups, not on the input",
    "megatron_config": "megatron_config is not supported: tensor-parallel LoRA layers",
    "arrow_config": "arrow_config (Arrow routing between LoRAs) is not supported",
    "kasa_config": "kasa_config is not supported",
    "use_bdlora": "use_bdlora (block-diagonal LoRA) is not supported",
    "monteclora_config": "monteclora_config is not supported",
}
#: Initialisations after which PEFT has changed the base weights themselves (pissa_niter_* included).
_BASE_REWRITING_INITS = ("pissa", "olora", "corda", "loftq")
_BIAS_MODES = ("none", "all", "lora_only")
#: Layers PEFT saves whole when they are targeted (``save_embedding_layers``).
_EMBEDDING_LAYER_NAMES = ("embed_tokens", "lm_head")
_LORA_SUFFIXES = {".lora_A.weight": ("linear", "A"), ".lora_B.weight": ("linear", "B"),
                  ".lora_embedding_A": ("embedding", "A"), ".lora_embedding_B": ("embedding", "B")}
_DORA_SUFFIXES = (".lora_magnitude_vector", ".lora_magnitude_vector.weight")
_LORA_BIAS_SUFFIX = ".lora_B.bias"
_TOKENS_SUFFIX = ".token_adapter.trainable_tokens_delta"


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


@dataclass(frozen=True, slots=True)
class _Settings:
    """The parts of a LoraConfig that decide which modules are adapted, their ranks and their scalings."""

    rank: int
    alpha: float
    targets: str | tuple[str, ...]
    exclude: str | tuple[str, ...]
    layers: tuple[int, ...] | None
    layers_pattern: tuple[str, ...]
    rank_pattern: Mapping[str, int]
    alpha_pattern: Mapping[str, float]
    use_rslora: bool
    use_dora: bool
    bias: str
    lora_bias: bool
    modules_to_save: tuple[str, ...]
    trainable_tokens: Mapping[str, int] | int | None  # module -> row count, or a count for the input embedding


def _is_set(value: Any) -> bool:
    return value not in (None, False, "", [], {})


def _regex(path: Path, label: str, pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise AdapterFileError(path, f"{label} {pattern!r} is not a valid regular expression: {exc}") from None
    return pattern


def _names(path: Path, label: str, value: Any, *, allow_regex: bool) -> str | tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str) and allow_regex:
        return _regex(path, label, value)
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        kind = "a list of names or a regex string" if allow_regex else "a list of names"
        raise AdapterFileError(path, f"{label} must be {kind}, got {value!r}")
    return tuple(value)


def _pattern(path: Path, label: str, value: Any, *, integer: bool) -> dict[str, Any]:
    value = value or {}
    if not isinstance(value, dict):
        raise AdapterFileError(path, f"{label} must be an object, got {value!r}")
    for key, v in value.items():
        _regex(path, f"{label} key", key)
        ok = isinstance(v, int) if integer else isinstance(v, (int, float)) and math.isfinite(v)
        if isinstance(v, bool) or not ok or v <= 0:
            kind = "positive int" if integer else "positive number"
            raise AdapterFileError(path, f"{label}[{key!r}] must be a {kind}, got {v!r}")
    return dict(value)


def _settings(config: Mapping[str, Any], path: Path) -> _Settings:
    for feature, why in UNSUPPORTED_FEATURES.items():
        if _is_set(config.get(feature)):
            raise AdapterFileError(path, f"{why} ({feature}={config[feature]!r})")
    init = config.get("init_lora_weights")
    if isinstance(init, str) and (init.lower() in _BASE_REWRITING_INITS or init.lower().startswith("pissa")):
        raise AdapterFileError(
            path,
            f"init_lora_weights={init!r} is not supported: it rewrote the base weights when the adapter was created, "
            "so the adapter is a delta on that modified base, not on the checkpoint it names (PEFT converts it to a "
            "plain LoRA with save_pretrained(..., path_initial_model_for_weight_conversion=...))",
        )
    rank = config.get("r")
    if isinstance(rank, bool) or not isinstance(rank, int) or rank <= 0:
        raise AdapterFileError(path, f"r must be a positive int, got {rank!r}")
    alpha = config.get("lora_alpha")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not math.isfinite(alpha) or alpha <= 0:
        raise AdapterFileError(path, f"lora_alpha must be a positive number, got {alpha!r}")
    targets = config.get("target_modules")
    if isinstance(targets, str) and targets:
        targets = _regex(path, "target_modules", targets)  # a full-match regex, or the literal "all-linear"
    elif not isinstance(targets, list) or not targets or not all(isinstance(t, str) and t for t in targets):
        raise AdapterFileError(path, f"target_modules must be a non-empty list of names or a string, got {targets!r}")
    else:
        targets = tuple(targets)
    flags = {}
    for key in ("use_rslora", "use_dora", "lora_bias"):
        flags[key] = config.get(key, False)
        if not isinstance(flags[key], bool):
            raise AdapterFileError(path, f"{key} must be true or false, got {flags[key]!r}")
    bias = config.get("bias", "none")
    if bias not in _BIAS_MODES:
        raise AdapterFileError(path, f"bias must be one of {list(_BIAS_MODES)}, got {bias!r}")
    layers = config.get("layers_to_transform")
    if isinstance(layers, int) and not isinstance(layers, bool):
        layers = [layers]
    if layers == []:
        layers = None
    if layers is not None and not (isinstance(layers, list) and all(_is_count(i) for i in layers)):
        raise AdapterFileError(path, f"layers_to_transform must be an int >= 0 or a list of them, got {layers!r}")
    layers_pattern = config.get("layers_pattern") or ()
    if isinstance(layers_pattern, str):
        layers_pattern = [layers_pattern]
    layers_pattern = _names(path, "layers_pattern", list(layers_pattern), allow_regex=False)
    for p in layers_pattern:
        _regex(path, "layers_pattern", p)
    tokens = config.get("trainable_token_indices")
    if tokens is not None:
        groups = tokens if isinstance(tokens, dict) else {"": tokens}
        if not groups or not all(
            isinstance(v, list) and v and all(_is_count(i) for i in v) and isinstance(k, str) for k, v in groups.items()
        ):
            raise AdapterFileError(
                path, f"trainable_token_indices must be a list of token ids or an object of such lists, got {tokens!r}"
            )
        tokens = len(tokens) if isinstance(tokens, list) else {k: len(v) for k, v in tokens.items()}
    return _Settings(
        rank=rank,
        alpha=alpha,
        targets=targets,
        exclude=_names(path, "exclude_modules", config.get("exclude_modules"), allow_regex=True),
        layers=None if layers is None else tuple(layers),
        layers_pattern=layers_pattern,  # type: ignore[arg-type]
        rank_pattern=_pattern(path, "rank_pattern", config.get("rank_pattern"), integer=True),
        alpha_pattern=_pattern(path, "alpha_pattern", config.get("alpha_pattern"), integer=False),
        use_rslora=flags["use_rslora"],
        use_dora=flags["use_dora"],
        bias=bias,
        lora_bias=flags["lora_bias"],
        modules_to_save=_names(path, "modules_to_save", config.get("modules_to_save"), allow_regex=False),  # type: ignore[arg-type]
        trainable_tokens=tokens,
    )


# -- which modules a LoraConfig adapts: PEFT's rules, restated -----------------------------------


def _named(key: str, names: tuple[str, ...]) -> bool:
    """Return whether ``key`` is one of ``names`` or ends with ``'.' + name`` for one of them."""
    return any(key == n or key.endswith("." + n) for n in names)


def _layer_index(key: str, patterns: tuple[str, ...]) -> int | None:
    """Return the layer number in a module path: after a ``layers_pattern`` component, else the first number from the third component on."""
    if not patterns:
        parts = key.split(".")
        for i in range(2, len(parts) - 1):
            if parts[i].isdigit():
                return int(parts[i])
        return None
    for p in patterns:
        found = re.match(rf"(?:.*?\.)?(?:{p})\.(\d+)\.", key)
        if found:
            return int(found.group(1))
    return None


def _saved_whole(key: str, modules: tuple[str, ...]) -> bool:
    """Return whether ``key`` is, or sits inside, a module named (as a dotted-path regex) in ``modules``."""
    return any(re.fullmatch(rf"(?:.*\.)?(?:{m})(?:\..*)?", key) for m in modules)


def is_targeted(config: Mapping[str, Any], key: str, *, kind: str = "linear") -> bool:
    """Return whether a LoraConfig (as saved in ``adapter_config.json``) adapts the module at path ``key``.

    The rules are PEFT's: ``exclude_modules`` and ``modules_to_save`` win; a string
    ``target_modules`` is a regular expression that must match the whole path (``"all-linear"``
    matches every linear layer but the output head); a list matches a module by its exact path or
    by a ``.``-suffix, and then ``layers_to_transform`` (with ``layers_pattern``) keeps only the
    listed layer numbers, except for a module named by its exact path.

    >>> cfg = {"r": 8, "lora_alpha": 16, "target_modules": ["self_attn.q_proj", "v_proj"], "layers_to_transform": [1]}
    >>> [is_targeted(cfg, k) for k in ("model.layers.1.self_attn.q_proj", "model.layers.0.self_attn.v_proj",
    ...                                "model.layers.1.mlp.q_proj")]
    [True, False, False]
    >>> is_targeted({"r": 8, "lora_alpha": 8, "target_modules": r".*\\.1\\..*_proj"}, "model.layers.1.mlp.up_proj")
    True
    """
    s = _settings(config, Path(ADAPTER_CONFIG_NAME))
    return _targeted(s, key, kind)


def _targeted(s: _Settings, key: str, kind: str) -> bool:
    if isinstance(s.exclude, str) and re.fullmatch(s.exclude, key):
        return False
    if isinstance(s.exclude, tuple) and _named(key, s.exclude):
        return False
    if s.modules_to_save and _saved_whole(key, s.modules_to_save):
        return False
    if isinstance(s.targets, str):
        if s.targets == "all-linear":
            return kind == "linear" and key.rsplit(".", 1)[-1] != "lm_head"
        return re.fullmatch(s.targets, key) is not None
    if key in s.targets:
        return True
    if not _named(key, s.targets):
        return False
    if s.layers is None:
        return True
    return _layer_index(key, s.layers_pattern) in s.layers


def _pattern_value(pattern: Mapping[str, Any], key: str) -> tuple[str | None, Any]:
    """Return the first pattern (in config order) that matches the end of ``key`` at a ``.`` boundary, and its value."""
    for p, value in pattern.items():
        if re.fullmatch(rf"(?:.*\.)?(?:{p})", key):
            return p, value
    return None, None


def module_rank_and_alpha(config: Mapping[str, Any], key: str) -> tuple[int, float]:
    """Return the ``(rank, lora_alpha)`` a LoraConfig gives the module at path ``key`` (``rank_pattern``/``alpha_pattern`` first).

    >>> module_rank_and_alpha({"r": 8, "lora_alpha": 16, "target_modules": ["v_proj"],
    ...     "rank_pattern": {"layers.1.self_attn.v_proj": 32}}, "model.layers.1.self_attn.v_proj")
    (32, 16)
    """
    s = _settings(config, Path(ADAPTER_CONFIG_NAME))
    return _rank_alpha(s, key)


def _rank_alpha(s: _Settings, key: str) -> tuple[int, float]:
    _, r = _pattern_value(s.rank_pattern, key)
    _, a = _pattern_value(s.alpha_pattern, key)
    return (s.rank if r is None else r), (s.alpha if a is None else a)


# -- the tensors ----------------------------------------------------------------------------


def _module_of(name: str) -> str:
    """Return a tensor's module path: the name without PEFT's prefix and without the parameter name."""
    return name.removeprefix(_PEFT_PREFIX).rsplit(".", 1)[0]


def _classify(header: SafetensorsHeader, s: _Settings, path: Path) -> tuple[tuple[LoraModule, ...], dict[str, str]]:
    pairs: dict[tuple[str, str], dict[str, TensorInfo]] = {}  # (prefix, kind) -> {"A": t, "B": t}
    roles: dict[str, str] = {}
    deferred: list[TensorInfo] = []
    for t in header.tensors:
        for suffix, (kind, ab) in _LORA_SUFFIXES.items():
            if t.name.endswith(suffix):
                pairs.setdefault((t.name[: -len(suffix)], kind), {})[ab] = t
                roles[t.name] = "lora" if kind == "linear" else "embedding_lora"
                break
        else:
            deferred.append(t)

    unpaired = sorted(prefix + (" (embedding)" if kind == "embedding" else "") for (prefix, kind), ab in pairs.items() if len(ab) != 2)
    if unpaired:
        raise AdapterFileError(path, f"LoRA tensors come in lora_A/lora_B pairs; unpaired: {unpaired[:4]}")
    if not pairs:
        raise AdapterFileError(
            path, "holds no LoRA tensors (*.lora_A.weight / *.lora_B.weight, or *.lora_embedding_A / *.lora_embedding_B)"
        )
    modules: dict[str, LoraModule] = {}
    for (prefix, kind), ab in sorted(pairs.items()):
        a, b = ab["A"], ab["B"]
        if len(a.shape) != 2 or len(b.shape) != 2 or a.shape[0] != b.shape[1] or a.shape[0] == 0:
            raise AdapterFileError(
                path, f"{prefix}: lora_A {list(a.shape)} and lora_B {list(b.shape)} must be (r x in) and (out x r) with r > 0"
            )
        if prefix in modules:
            raise AdapterFileError(path, f"{prefix} has both linear and embedding LoRA tensors")
        key = prefix.removeprefix(_PEFT_PREFIX)
        rank, alpha = _rank_alpha(s, key)
        scaling = alpha / math.sqrt(rank) if s.use_rslora else alpha / rank
        modules[prefix] = LoraModule(
            prefix, in_features=a.shape[1], out_features=b.shape[0], rank=a.shape[0], lora_alpha=alpha, scaling=scaling, kind=kind
        )

    magnitudes: dict[str, TensorInfo] = {}
    lora_biases: dict[str, TensorInfo] = {}
    for t in deferred:
        key = t.name.removeprefix(_PEFT_PREFIX)
        dora = next((x for x in _DORA_SUFFIXES if t.name.endswith(x)), None)
        if dora is not None:
            if not s.use_dora:
                raise AdapterFileError(path, f"tensor {t.name!r} is a DoRA magnitude vector but {ADAPTER_CONFIG_NAME} has use_dora=false")
            magnitudes[t.name[: -len(dora)]] = t
            roles[t.name] = "dora_magnitude"
        elif t.name.endswith(_LORA_BIAS_SUFFIX):
            if not s.lora_bias:
                raise AdapterFileError(path, f"tensor {t.name!r} is a LoRA bias but {ADAPTER_CONFIG_NAME} has lora_bias=false")
            lora_biases[t.name[: -len(_LORA_BIAS_SUFFIX)]] = t
            roles[t.name] = "bias"
        elif t.name.endswith(_TOKENS_SUFFIX):
            _check_tokens(t, key[: -len(_TOKENS_SUFFIX)], s, path)
            roles[t.name] = "trainable_tokens"
        elif s.modules_to_save and _saved_whole(_module_of(t.name), s.modules_to_save):
            roles[t.name] = "module_copy"
        elif t.name.endswith(".base_layer.weight") and t.name[: -len(".base_layer.weight")] in modules or re.fullmatch(
            rf"(?:.*\.)?(?:{'|'.join(_EMBEDDING_LAYER_NAMES)})\.weight", key
        ):
            roles[t.name] = "module_copy"  # save_embedding_layers: the targeted embedding (or head) saved whole
        elif t.name.endswith(".bias"):
            owner = t.name[: -len(".base_layer.bias")] if t.name.endswith(".base_layer.bias") else None
            if s.bias == "none":
                raise AdapterFileError(path, f"tensor {t.name!r} is a bias but {ADAPTER_CONFIG_NAME} has bias='none'")
            if s.bias == "lora_only" and owner not in modules:
                raise AdapterFileError(
                    path, f"tensor {t.name!r} is the bias of a module without LoRA, but bias='lora_only' trains only those"
                )
            roles[t.name] = "bias"
        else:
            raise AdapterFileError(
                path,
                f"tensor {t.name!r} is neither a LoRA tensor nor accounted for by {ADAPTER_CONFIG_NAME} "
                f"(modules_to_save={list(s.modules_to_save)}, bias={s.bias!r}, use_dora={s.use_dora}, lora_bias={s.lora_bias})",
            )

    for prefix, m in modules.items():
        for label, found, wanted in (("DoRA magnitude vector", magnitudes, s.use_dora),
                                     ("LoRA bias (lora_B.bias)", lora_biases, s.lora_bias and m.kind == "linear")):
            t = found.pop(prefix, None)
            if t is None and wanted:
                raise AdapterFileError(path, f"{prefix} has no {label}, which {ADAPTER_CONFIG_NAME} says every module has")
            if t is not None and t.shape != (m.out_features,):
                raise AdapterFileError(path, f"{t.name} has shape {list(t.shape)}; a {label} of {prefix} is [{m.out_features}]")
    for leftover in (*magnitudes.values(), *lora_biases.values()):
        raise AdapterFileError(path, f"tensor {leftover.name!r} belongs to no LoRA module in the file")
    return tuple(modules.values()), roles


def _check_tokens(t: TensorInfo, module: str, s: _Settings, path: Path) -> None:
    if s.trainable_tokens is None:
        raise AdapterFileError(path, f"tensor {t.name!r} holds trainable tokens but {ADAPTER_CONFIG_NAME} has no trainable_token_indices")
    if isinstance(s.trainable_tokens, int):
        count = s.trainable_tokens
    else:
        count = next((n for name, n in s.trainable_tokens.items() if _named(module, (name,))), None)
        if count is None:
            raise AdapterFileError(path, f"tensor {t.name!r}: trainable_token_indices names no module {module!r}")
    if len(t.shape) != 2 or t.shape[0] != count:
        raise AdapterFileError(path, f"{t.name} has shape {list(t.shape)}; trainable_token_indices gives {count} rows")


def read_peft_adapter(
    directory: str | os.PathLike[str], *, max_header_bytes: int = MAX_HEADER_BYTES
) -> PeftAdapterFiles:
    """Read a PEFT LoRA adapter directory: config, tensor layout, per-module ranks, scalings and sizes.

    Every tensor gets a role (:data:`TENSOR_ROLES`); every LoRA module must be one the config
    adapts (PEFT's ``target_modules`` / ``exclude_modules`` / ``layers_to_transform`` rules), with
    the rank the config gives it (``r`` or ``rank_pattern``) and a scaling from ``lora_alpha`` or
    ``alpha_pattern`` (over ``sqrt(rank)`` under ``use_rslora``). A tensor nothing in the config
    accounts for, and every option in :data:`UNSUPPORTED_FEATURES`, is refused with an
    ``AdapterFileError`` naming it. A directory that only has ``adapter_model.bin`` is refused: that
    file is a pickle, and unpickling runs arbitrary code.
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
    s = _settings(config, config_path)
    base = config.get("base_model_name_or_path")
    revision = config.get("revision")
    for label, value in (("base_model_name_or_path", base), ("revision", revision)):
        if value is not None and not isinstance(value, str):
            raise AdapterFileError(config_path, f"{label} must be a string or null, got {value!r}")

    header = read_safetensors_header(weights_path, max_header_bytes=max_header_bytes)
    modules, roles = _classify(header, s, weights_path)
    stray = [m for m in modules if not _targeted(s, m.key, m.kind)]
    if stray:
        shown = s.targets if isinstance(s.targets, str) else sorted(s.targets)
        raise AdapterFileError(
            weights_path,
            f"adapts modules {sorted({m.target for m in stray})} ({stray[0].key}...) that {ADAPTER_CONFIG_NAME} "
            f"target_modules {shown!r} does not match"
            + (f" (layers_to_transform={list(s.layers)})" if s.layers is not None else ""),
        )
    for m in modules:
        expected, _ = _rank_alpha(s, m.key)
        if m.rank != expected:
            key, _ = _pattern_value(s.rank_pattern, m.key)
            why = f"rank_pattern[{key!r}]" if key is not None else "r (no rank_pattern key matches it)"
            raise AdapterFileError(
                weights_path, f"{m.name} has rank {m.rank} but {ADAPTER_CONFIG_NAME} says r={expected} from {why}"
            )
    lora_names = {n for n, role in roles.items() if role in LOW_RANK_ROLES}
    return PeftAdapterFiles(
        directory=str(directory),
        peft_type=peft_type,
        rank=max(m.rank for m in modules),
        lora_alpha=s.alpha,
        target_modules=(s.targets,) if isinstance(s.targets, str) else s.targets,
        base_model_name_or_path=base,
        revision=revision,
        modules=modules,
        extra_tensors=tuple(sorted(t.name for t in header.tensors if t.name not in lora_names)),
        weights=header,
        default_rank=s.rank,
        use_rslora=s.use_rslora,
        use_dora=s.use_dora,
        bias=s.bias,
        lora_bias=s.lora_bias,
        modules_to_save=s.modules_to_save,
        roles=roles,
    )


def adapter_from_dir(
    directory: str | os.PathLike[str],
    *,
    name: str,
    version: str,
    base_model: str,
    base_digest: str,
    serving_dtype: str = "bf16",
    include: Collection[str] = TENSOR_ROLES,
) -> Adapter:
    """Read a PEFT directory and return its registry ``Adapter`` with the exact ``vram_mb`` of the ``include`` roles.

    The digest must come from the checkpoint the adapter was trained on (``labcore.digest``):
    PEFT's files name a base but never identify its weights.
    """
    return read_peft_adapter(directory).to_adapter(
        name=name, version=version, base_model=base_model, base_digest=base_digest, serving_dtype=serving_dtype,
        include=include,
    )



# -- the variants, for chapter 14 ------------------------------------------------------------------

# Engine facts, each checked in vLLM's source or documentation:
# [slots] vllm/lora/layers/base_linear.py (vllm-project/vllm, commit 1ace43ed), create_lora_weights:
#     every linear LoRA layer preallocates lora_a_stacked (max_loras, 1, max_lora_rank, in) and
#     lora_b_stacked (max_loras, 1, out, max_lora_rank); set_lora copies an adapter into the top-left
#     corner of its slot, so each slot costs max_lora_rank whatever the adapter's own rank.
# [helper] vllm/lora/peft_helper.py (vllm-project/vllm, commit e745baff), PEFTHelper: reads r,
#     lora_alpha, target_modules, bias, modules_to_save, use_rslora, use_dora (from_dict drops every
#     other key, rank_pattern and alpha_pattern included) and computes one scaling per adapter,
#     lora_alpha / sqrt(r) under use_rslora, else lora_alpha / r; _validate_features refuses
#     modules_to_save ("vLLM only supports modules_to_save being None") and use_dora ("vLLM does not
#     yet support DoRA"); validate_legal refuses r > max_lora_rank and bias != "none" unless bias is
#     enabled. The docs page for the latest release (docs.vllm.ai/en/latest/api/vllm/lora/peft_helper/)
#     types bias as Literal["none"].
# [ranks] docs.vllm.ai/en/v0.14.0/api/vllm/config/lora/: MaxLoRARanks = Literal[1, 8, 16, 32, 64,
#     128, 256, 320, 512], default max_lora_rank 16.
_NOT_CHECKED = "not checked against an engine here"
_SLOTS = "vLLM vllm/lora/layers/base_linear.py (create_lora_weights, set_lora)"
_HELPER = "vLLM vllm/lora/peft_helper.py (PEFTHelper)"
_RANKS = "docs.vllm.ai/en/v0.14.0/api/vllm/config/lora/"


@dataclass(frozen=True, slots=True)
class VariantRow:
    """Describe one LoraConfig variant: what PEFT writes, what labcore reads, what a serving engine does (and where that was checked)."""

    variant: str
    lora_config: str
    peft_writes: str
    labcore_reads: str
    serving_engine: str
    engine_source: str = ""


def variant_table() -> tuple[VariantRow, ...]:
    """Return the LoraConfig variants chapter 14 tabulates, as records (PEFT 0.21 files, vLLM facts cited in the source).

    >>> rows = variant_table()
    >>> rows[0].variant, rows[0].serving_engine[:40]
    ('plain LoRA (q_proj, v_proj)', 'every slot is sized at --max-lora-rank (')
    """
    rows = [
        ("plain LoRA (q_proj, v_proj)", "target_modules=['q_proj', 'v_proj']",
         "lora_A (r x in) and lora_B (out x r) per adapted module",
         "one LoraModule per pair: rank, scaling alpha/r; serving size = the A/B bytes",
         "every slot is sized at --max-lora-rank (default 16), so one high-rank adapter raises every slot's cost; "
         "an adapter with r above it is refused"),
        ("all-linear", "target_modules='all-linear'",
         "the config lists every linear layer but the head by full path; same A/B tensors",
         "full paths match exactly; read like plain LoRA", _NOT_CHECKED),
        ("suffix and regex targets", "target_modules=['self_attn.q_proj'] or a regex string",
         "the config keeps the names or the regex as written",
         "matched as PEFT does: a list by exact path or '.'-suffix, a string as a full-match regex", _NOT_CHECKED),
        ("layers_to_transform", "layers_to_transform=[...]", "A/B only for the listed layer numbers",
         "a module outside the listed layers is refused as untargeted", _NOT_CHECKED),
        ("rsLoRA", "use_rslora=True", "the same tensors; only the config differs",
         "scaling alpha/sqrt(r) on each module (4.0, not 1.0, at r=16, alpha=16)",
         "scaling alpha/sqrt(r), as PEFT"),
        ("rank_pattern / alpha_pattern", "rank_pattern={...}, alpha_pattern={...}",
         "A/B of each module at its own rank",
         "each module's own rank and scaling; adapter rank = the largest",
         "vLLM's PEFTHelper computes one scaling from r and lora_alpha: rank_pattern and alpha_pattern are not "
         "among the keys it reads; slots are sized at --max-lora-rank"),
        ("LoRA on embeddings", "target_modules=['embed_tokens', ...]",
         "lora_embedding_A (r x vocab), lora_embedding_B (hidden x r), and the whole embedding (save_embedding_layers)",
         "embedding modules with their own rank; the saved embedding counted as a module copy", _NOT_CHECKED),
        ("modules_to_save", "modules_to_save=['lm_head']", "a full copy of each listed module",
         "bytes reported as module_copy, apart from the A/B bytes; serving_bytes says whether they are included",
         "refused: vLLM only supports modules_to_save being None"),
        ("trainable tokens", "trainable_token_indices=[...]", "the trained rows of the embedding",
         "bytes reported as trainable_tokens", _NOT_CHECKED),
        ("DoRA", "use_dora=True", "a magnitude vector (out) per adapted module, beside A/B",
         "bytes reported as dora_magnitude; each module must have one", "refused: vLLM does not yet support DoRA"),
        ("trained biases", "bias='all' / 'lora_only', lora_bias=True",
         "base biases (all, or of adapted modules only), or lora_B.bias",
         "bytes reported as bias; a bias the config does not allow is refused",
         "bias != 'none' refused unless the engine enables LoRA bias; the latest docs allow only 'none'"),
        ("PiSSA, OLoRA, CorDA, LoftQ initialisation", "init_lora_weights='pissa' (or 'olora', 'corda', 'loftq')",
         "ordinary A/B tensors, but the base weights were rewritten in memory when the adapter was created",
         "refused: the adapter is a delta on a modified base (PEFT can convert it to a plain LoRA of rank 2r)",
         _NOT_CHECKED),
        ("MoE target_parameters", "target_parameters=[...], or a router/expert target on Mixtral",
         "LoRA on 3-D expert tensors under the experts module's name",
         "refused: target_parameters (MoE expert parameters) is not supported", _NOT_CHECKED),
    ]
    sources = {
        "plain LoRA (q_proj, v_proj)": f"{_SLOTS}; {_HELPER}; {_RANKS}",
        "rsLoRA": _HELPER,
        "rank_pattern / alpha_pattern": f"{_HELPER}; {_SLOTS}",
        "modules_to_save": _HELPER,
        "DoRA": _HELPER,
        "trained biases": f"{_HELPER}; docs.vllm.ai/en/latest/api/vllm/lora/peft_helper/",
    }
    return tuple(VariantRow(*row, engine_source=sources.get(row[0], "")) for row in rows)
