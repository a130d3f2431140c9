"""Classify the tensors of a PEFT LoRA file: the low-rank pairs, and every other role a LoraConfig accounts for.

Every tensor gets a role (:data:`TENSOR_ROLES`): low-rank pairs of linear and embedding layers
(one :class:`LoraModule` each, with its own rank and scaling), DoRA magnitudes, trained biases,
full module copies and trainable tokens. :func:`classify_tensors` refuses, naming it, a tensor the
config (a :class:`~labcore.peft_files.peft_config.LoraSettings`) does not account for.

>>> m = LoraModule("base_model.model.model.layers.0.self_attn.q_proj", in_features=64, out_features=64, rank=8)
>>> m.key, m.target, m.param_count
('model.layers.0.self_attn.q_proj', 'q_proj', 1024)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from .._validate import choice
from ..errors import AdapterFileError
from .peft_config import ADAPTER_CONFIG_NAME, LoraSettings
from .safetensors_header import SafetensorsHeader, TensorInfo

__all__ = ["TENSOR_ROLES", "LOW_RANK_ROLES", "LoraModule", "classify_tensors"]

#: What each tensor of an adapter file is, as :func:`classify_tensors` classifies it.
TENSOR_ROLES: tuple[str, ...] = (
    "lora",  # lora_A / lora_B of a linear (or Conv1D) layer
    "embedding_lora",  # lora_embedding_A / lora_embedding_B of an embedding layer
    "dora_magnitude",  # use_dora: one magnitude vector per adapted module
    "bias",  # trained biases: bias="all" / "lora_only" (base biases) and lora_bias (lora_B.bias)
    "module_copy",  # full copies of modules: modules_to_save, and embedding layers saved whole
    "trainable_tokens",  # trainable_token_indices: the trained rows of an embedding
)
#: The low-rank part alone: what a server that supports only plain LoRA holds per adapter.
LOW_RANK_ROLES: tuple[str, ...] = ("lora", "embedding_lora")
_MODULE_KINDS = ("linear", "embedding")
_PEFT_PREFIX = "base_model.model."
#: Layers PEFT saves whole when they are targeted (``save_embedding_layers``).
_EMBEDDING_LAYER_NAMES = ("embed_tokens", "lm_head")
_LORA_SUFFIXES = {
    ".lora_A.weight": ("linear", "A"),
    ".lora_B.weight": ("linear", "B"),
    ".lora_embedding_A": ("embedding", "A"),
    ".lora_embedding_B": ("embedding", "B"),
}
_DORA_SUFFIXES = (".lora_magnitude_vector", ".lora_magnitude_vector.weight")
_LORA_BIAS_SUFFIX = ".lora_B.bias"
_TOKENS_SUFFIX = ".token_adapter.trainable_tokens_delta"


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
        choice(f"LoraModule {self.name!r}: kind", self.kind, _MODULE_KINDS)

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


def _module_of(name: str) -> str:
    """Return a tensor's module path: the name without PEFT's prefix and without the parameter name."""
    return name.removeprefix(_PEFT_PREFIX).rsplit(".", 1)[0]


def classify_tensors(
    header: SafetensorsHeader, s: LoraSettings, path: Path
) -> tuple[tuple[LoraModule, ...], dict[str, str]]:
    """Classify every tensor of ``header`` by role and pair the low-rank ones into modules; refuse what ``s`` does not allow.

    Returns the modules (each with the rank of its tensors and the scaling ``s`` gives it) and
    each tensor's role. Whether ``s`` targets the modules found is the caller's question.

    >>> from labcore.peft_files.peft_config import parse_lora_config
    >>> a = TensorInfo("m.q_proj.lora_A.weight", "F32", (2, 8), 0, 64)
    >>> b = TensorInfo("m.q_proj.lora_B.weight", "F32", (8, 2), 64, 128)
    >>> bias = TensorInfo("m.q_proj.base_layer.bias", "F32", (8,), 128, 160)
    >>> header = SafetensorsHeader("x.safetensors", (a, b, bias), {}, 0, 168)
    >>> s = parse_lora_config({"r": 2, "lora_alpha": 4, "target_modules": ["q_proj"], "bias": "lora_only"})
    >>> modules, roles = classify_tensors(header, s, Path("x.safetensors"))
    >>> [(m.target, m.rank, m.scaling) for m in modules], sorted(set(roles.values()))
    ([('q_proj', 2, 2.0)], ['bias', 'lora'])
    """
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

    unpaired = sorted(
        prefix + (" (embedding)" if kind == "embedding" else "") for (prefix, kind), ab in pairs.items() if len(ab) != 2
    )
    if unpaired:
        raise AdapterFileError(path, f"LoRA tensors come in lora_A/lora_B pairs; unpaired: {unpaired[:4]}")
    if not pairs:
        raise AdapterFileError(
            path,
            "holds no LoRA tensors (*.lora_A.weight / *.lora_B.weight, or *.lora_embedding_A / *.lora_embedding_B)",
        )
    modules: dict[str, LoraModule] = {}
    for (prefix, kind), pair in sorted(pairs.items()):
        a, b = pair["A"], pair["B"]
        if len(a.shape) != 2 or len(b.shape) != 2 or a.shape[0] != b.shape[1] or a.shape[0] == 0:
            raise AdapterFileError(
                path,
                f"{prefix}: lora_A {list(a.shape)} and lora_B {list(b.shape)} must be (r x in) and (out x r) with r > 0",
            )
        if prefix in modules:
            raise AdapterFileError(path, f"{prefix} has both linear and embedding LoRA tensors")
        key = prefix.removeprefix(_PEFT_PREFIX)
        rank, alpha = s.rank_and_alpha(key)
        scaling = alpha / math.sqrt(rank) if s.use_rslora else alpha / rank
        modules[prefix] = LoraModule(
            prefix,
            in_features=a.shape[1],
            out_features=b.shape[0],
            rank=a.shape[0],
            lora_alpha=alpha,
            scaling=scaling,
            kind=kind,
        )

    magnitudes: dict[str, TensorInfo] = {}
    lora_biases: dict[str, TensorInfo] = {}
    for t in deferred:
        key = t.name.removeprefix(_PEFT_PREFIX)
        dora = next((x for x in _DORA_SUFFIXES if t.name.endswith(x)), None)
        if dora is not None:
            if not s.use_dora:
                raise AdapterFileError(
                    path, f"tensor {t.name!r} is a DoRA magnitude vector but {ADAPTER_CONFIG_NAME} has use_dora=false"
                )
            magnitudes[t.name[: -len(dora)]] = t
            roles[t.name] = "dora_magnitude"
        elif t.name.endswith(_LORA_BIAS_SUFFIX):
            if not s.lora_bias:
                raise AdapterFileError(
                    path, f"tensor {t.name!r} is a LoRA bias but {ADAPTER_CONFIG_NAME} has lora_bias=false"
                )
            lora_biases[t.name[: -len(_LORA_BIAS_SUFFIX)]] = t
            roles[t.name] = "bias"
        elif t.name.endswith(_TOKENS_SUFFIX):
            _check_tokens(t, key[: -len(_TOKENS_SUFFIX)], s, path)
            roles[t.name] = "trainable_tokens"
        elif s.saves_whole(_module_of(t.name)):
            roles[t.name] = "module_copy"
        elif (
            t.name.endswith(".base_layer.weight")
            and t.name[: -len(".base_layer.weight")] in modules
            or re.fullmatch(rf"(?:.*\.)?(?:{'|'.join(_EMBEDDING_LAYER_NAMES)})\.weight", key)
        ):
            roles[t.name] = "module_copy"  # save_embedding_layers: the targeted embedding (or head) saved whole
        elif t.name.endswith(".bias"):
            owner = t.name[: -len(".base_layer.bias")] if t.name.endswith(".base_layer.bias") else None
            if s.bias == "none":
                raise AdapterFileError(path, f"tensor {t.name!r} is a bias but {ADAPTER_CONFIG_NAME} has bias='none'")
            if s.bias == "lora_only" and owner not in modules:
                raise AdapterFileError(
                    path,
                    f"tensor {t.name!r} is the bias of a module without LoRA, but bias='lora_only' trains only those",
                )
            roles[t.name] = "bias"
        else:
            raise AdapterFileError(
                path,
                f"tensor {t.name!r} is neither a LoRA tensor nor accounted for by {ADAPTER_CONFIG_NAME} "
                f"(modules_to_save={list(s.modules_to_save)}, bias={s.bias!r}, use_dora={s.use_dora}, lora_bias={s.lora_bias})",
            )

    for prefix, m in modules.items():
        for label, found, wanted in (
            ("DoRA magnitude vector", magnitudes, s.use_dora),
            ("LoRA bias (lora_B.bias)", lora_biases, s.lora_bias and m.kind == "linear"),
        ):
            extra = found.pop(prefix, None)
            if extra is None and wanted:
                raise AdapterFileError(
                    path, f"{prefix} has no {label}, which {ADAPTER_CONFIG_NAME} says every module has"
                )
            if extra is not None and extra.shape != (m.out_features,):
                raise AdapterFileError(
                    path, f"{extra.name} has shape {list(extra.shape)}; a {label} of {prefix} is [{m.out_features}]"
                )
    for leftover in (*magnitudes.values(), *lora_biases.values()):
        raise AdapterFileError(path, f"tensor {leftover.name!r} belongs to no LoRA module in the file")
    return tuple(modules.values()), roles


def _check_tokens(t: TensorInfo, module: str, s: LoraSettings, path: Path) -> None:
    if s.trainable_tokens is None:
        raise AdapterFileError(
            path, f"tensor {t.name!r} holds trainable tokens but {ADAPTER_CONFIG_NAME} has no trainable_token_indices"
        )
    count = s.token_rows(module)
    if count is None:
        raise AdapterFileError(path, f"tensor {t.name!r}: trainable_token_indices names no module {module!r}")
    if len(t.shape) != 2 or t.shape[0] != count:
        raise AdapterFileError(path, f"{t.name} has shape {list(t.shape)}; trainable_token_indices gives {count} rows")
