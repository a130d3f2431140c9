"""Apply PEFT's rules for a LoRA ``adapter_config.json``: which modules it adapts, with what rank and alpha.

:func:`read_lora_config` reads the file as untrusted JSON; :func:`parse_lora_config` checks it once
into a :class:`LoraSettings` record (refusing every option in :data:`UNSUPPORTED_FEATURES` by
name), whose methods answer per module path: :meth:`LoraSettings.adapts` (PEFT's
``target_modules`` / ``exclude_modules`` / ``layers_to_transform`` / ``modules_to_save`` rules)
and :meth:`LoraSettings.rank_and_alpha` (``rank_pattern`` and ``alpha_pattern`` first).

>>> s = parse_lora_config({"r": 8, "lora_alpha": 16, "target_modules": ["q_proj", "v_proj"],
...                        "rank_pattern": {"layers.1.self_attn.v_proj": 32}})
>>> s.adapts("model.layers.1.self_attn.v_proj"), s.rank_and_alpha("model.layers.1.self_attn.v_proj")
(True, (32, 16))
>>> s.adapts("model.layers.1.mlp.up_proj")
False
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import AdapterFileError
from .safetensors_header import MAX_HEADER_BYTES, is_count, reject_duplicate_keys

__all__ = [
    "ADAPTER_CONFIG_NAME",
    "UNSUPPORTED_FEATURES",
    "LoraSettings",
    "read_lora_config",
    "parse_lora_config",
    "pattern_value",
    "is_targeted",
    "module_rank_and_alpha",
]

ADAPTER_CONFIG_NAME = "adapter_config.json"

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


def read_lora_config(path: Path) -> dict[str, Any]:
    """Read ``adapter_config.json`` as untrusted JSON: one object, no key twice, at most ``MAX_HEADER_BYTES``.

    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "adapter_config.json"
    >>> _ = p.write_text('{"r": 8, "r": 16}')
    >>> read_lora_config(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    labcore.errors.AdapterFileError: .../adapter_config.json: not valid UTF-8 JSON: duplicate key 'r'
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise AdapterFileError(path, "missing; a PEFT adapter directory needs adapter_config.json") from None
    except OSError as exc:
        raise AdapterFileError(path, f"cannot read: {exc.strerror or exc}") from exc
    if len(raw) > MAX_HEADER_BYTES:
        raise AdapterFileError(path, f"{len(raw)} bytes is too large for an adapter config")
    try:
        config = json.loads(raw.decode("utf-8"), object_pairs_hook=reject_duplicate_keys)
    except (UnicodeDecodeError, ValueError) as exc:
        raise AdapterFileError(path, f"not valid UTF-8 JSON: {exc}") from exc
    if not isinstance(config, dict):
        raise AdapterFileError(path, f"must be a JSON object, got {type(config).__name__}")
    return config


@dataclass(frozen=True, slots=True)
class LoraSettings:
    """Hold the parts of a LoraConfig that decide which modules are adapted, their ranks and their scalings.

    Built once by :func:`parse_lora_config`; its methods answer for one module path at a time.

    >>> s = parse_lora_config({"r": 4, "lora_alpha": 8, "target_modules": "all-linear", "modules_to_save": ["score"]})
    >>> s.adapts("lm_head"), s.adapts("model.layers.0.mlp.down_proj"), s.saves_whole("score.modules_to_save")
    (False, True, True)
    """

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

    def adapts(self, key: str, kind: str = "linear") -> bool:
        """Return whether the config adapts the module at path ``key`` (``kind`` ``'linear'`` or ``'embedding'``), by PEFT's rules."""
        if isinstance(self.exclude, str) and re.fullmatch(self.exclude, key):
            return False
        if isinstance(self.exclude, tuple) and _named(key, self.exclude):
            return False
        if self.saves_whole(key):
            return False
        if isinstance(self.targets, str):
            if self.targets == "all-linear":
                return kind == "linear" and key.rsplit(".", 1)[-1] != "lm_head"
            return re.fullmatch(self.targets, key) is not None
        if key in self.targets:
            return True
        if not _named(key, self.targets):
            return False
        if self.layers is None:
            return True
        return _layer_index(key, self.layers_pattern) in self.layers

    def rank_and_alpha(self, key: str) -> tuple[int, float]:
        """Return the ``(rank, lora_alpha)`` the config gives the module at path ``key`` (``rank_pattern``/``alpha_pattern`` first)."""
        _, r = pattern_value(self.rank_pattern, key)
        _, a = pattern_value(self.alpha_pattern, key)
        return (self.rank if r is None else r), (self.alpha if a is None else a)

    def saves_whole(self, key: str) -> bool:
        """Return whether ``modules_to_save`` names the module at path ``key``, or one it sits inside."""
        return bool(self.modules_to_save) and _saved_whole(key, self.modules_to_save)

    def token_rows(self, module: str) -> int | None:
        """Return the trainable-token rows ``trainable_token_indices`` gives ``module`` (None if it gives it none)."""
        if self.trainable_tokens is None or isinstance(self.trainable_tokens, int):
            return self.trainable_tokens
        return next((n for name, n in self.trainable_tokens.items() if _named(module, (name,))), None)


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


def parse_lora_config(config: Mapping[str, Any], path: Path = Path(ADAPTER_CONFIG_NAME)) -> LoraSettings:
    """Check a LoraConfig (as saved in ``adapter_config.json``) once and return its :class:`LoraSettings`.

    ``path`` names the file in every error. Each option in :data:`UNSUPPORTED_FEATURES`, and an
    initialisation that rewrote the base weights (PiSSA, OLoRA, CorDA, LoftQ), is refused by name.

    >>> parse_lora_config({"r": 8, "lora_alpha": 16, "target_modules": ["q_proj"], "use_dora": "yes"})
    Traceback (most recent call last):
    ...
    labcore.errors.AdapterFileError: adapter_config.json: use_dora must be true or false, got 'yes'
    """
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
    if layers is not None and not (isinstance(layers, list) and all(is_count(i) for i in layers)):
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
            isinstance(v, list) and v and all(is_count(i) for i in v) and isinstance(k, str) for k, v in groups.items()
        ):
            raise AdapterFileError(
                path, f"trainable_token_indices must be a list of token ids or an object of such lists, got {tokens!r}"
            )
        tokens = len(tokens) if isinstance(tokens, list) else {k: len(v) for k, v in tokens.items()}
    return LoraSettings(
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
    return parse_lora_config(config).adapts(key, kind)


def pattern_value(pattern: Mapping[str, Any], key: str) -> tuple[str | None, Any]:
    """Return the first pattern (in config order) that matches the end of ``key`` at a ``.`` boundary, and its value.

    >>> pattern_value({"v_proj": 16, "layers.1.self_attn.v_proj": 32}, "model.layers.1.self_attn.v_proj")
    ('v_proj', 16)
    >>> pattern_value({"v_proj": 16}, "model.layers.1.self_attn.q_proj")
    (None, None)
    """
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
    return parse_lora_config(config).rank_and_alpha(key)
