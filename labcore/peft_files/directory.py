"""Read a whole PEFT LoRA adapter directory without torch: its config, its tensors, and what holding it costs.

A PEFT adapter directory holds ``adapter_config.json`` and ``adapter_model.safetensors``;
:func:`read_peft_adapter` checks the one against the other and returns a :class:`PeftAdapterFiles`,
whose :meth:`~PeftAdapterFiles.serving_bytes` says what the adapter costs in GPU memory at a
serving dtype and :meth:`~PeftAdapterFiles.to_adapter` turns it into a registry ``Adapter``.
Pickle-only directories are refused: unpickling runs arbitrary code.

>>> import pathlib, tempfile
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "adapter_model.bin").write_bytes(b"a pickle")
>>> read_peft_adapter(d)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
labcore.errors.UnsafeAdapterFormatError: .../adapter_model.bin: pickle-based weights are refused: ...
"""

from __future__ import annotations

import math
import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .._validate import choice, items
from ..adapter import Adapter
from ..errors import AdapterFileError, UnsafeAdapterFormatError
from ..sizing import MIB
from .peft_config import ADAPTER_CONFIG_NAME, parse_lora_config, pattern_value, read_lora_config
from .safetensors_header import MAX_HEADER_BYTES, SafetensorsHeader, read_safetensors_header
from .tensors import LOW_RANK_ROLES, TENSOR_ROLES, LoraModule, classify_tensors

__all__ = [
    "ADAPTER_WEIGHTS_NAME",
    "PICKLE_WEIGHTS_NAMES",
    "SERVING_DTYPE_BYTES",
    "PeftAdapterFiles",
    "read_peft_adapter",
    "adapter_from_dir",
]

ADAPTER_WEIGHTS_NAME = "adapter_model.safetensors"
PICKLE_WEIGHTS_NAMES = ("adapter_model.bin", "adapter_model.pt", "adapter_model.pth")

#: Bytes per parameter when an adapter is held in GPU memory at a given dtype.
SERVING_DTYPE_BYTES: Mapping[str, int] = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1}


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
        >>> from labcore.peft_files import safetensors_bytes
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
            name,
            version,
            base_model,
            base_digest,
            rank=self.rank,
            vram_mb=self.serving_mb(serving_dtype, include=include),
        )


def _serving_dtype_bytes(dtype: str) -> int:
    return SERVING_DTYPE_BYTES[choice("serving dtype", dtype, sorted(SERVING_DTYPE_BYTES))]


def _roles(include: Collection[str]) -> frozenset[str]:
    roles = items(f"include (roles from {list(TENSOR_ROLES)})", include)
    unknown = sorted(set(roles) - set(TENSOR_ROLES))
    if unknown:
        raise ValueError(f"include names unknown roles {unknown}; valid: {list(TENSOR_ROLES)}")
    return frozenset(roles)


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
    config = read_lora_config(config_path)

    peft_type = config.get("peft_type")
    if peft_type != "LORA":
        raise AdapterFileError(config_path, f"peft_type is {peft_type!r}; only 'LORA' adapters are supported")
    s = parse_lora_config(config, config_path)
    base = config.get("base_model_name_or_path")
    revision = config.get("revision")
    for label, value in (("base_model_name_or_path", base), ("revision", revision)):
        if value is not None and not isinstance(value, str):
            raise AdapterFileError(config_path, f"{label} must be a string or null, got {value!r}")

    header = read_safetensors_header(weights_path, max_header_bytes=max_header_bytes)
    modules, roles = classify_tensors(header, s, weights_path)
    stray = [m for m in modules if not s.adapts(m.key, m.kind)]
    if stray:
        shown = s.targets if isinstance(s.targets, str) else sorted(s.targets)
        raise AdapterFileError(
            weights_path,
            f"adapts modules {sorted({m.target for m in stray})} ({stray[0].key}...) that {ADAPTER_CONFIG_NAME} "
            f"target_modules {shown!r} does not match"
            + (f" (layers_to_transform={list(s.layers)})" if s.layers is not None else ""),
        )
    for m in modules:
        expected, _ = s.rank_and_alpha(m.key)
        if m.rank != expected:
            key, _ = pattern_value(s.rank_pattern, m.key)
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
        name=name,
        version=version,
        base_model=base_model,
        base_digest=base_digest,
        serving_dtype=serving_dtype,
        include=include,
    )
