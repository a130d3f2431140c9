"""Size a LoRA adapter exactly from a model's ``config.json``, grouped-query attention included.

``labcore.sizing.adapter_vram_mb`` assumes every adapted projection is ``hidden x hidden``. Real
decoders are not square: under grouped-query attention the k and v projections map ``hidden`` to
``num_key_value_heads * head_dim``, and the MLP projections map to and from ``intermediate_size``.
A LoRA on a module of shape ``in -> out`` stores ``A`` (r x in) and ``B`` (out x r):
``r * (in + out)`` parameters per layer.

>>> cfg = load_model_config("llama-3-8b")
>>> target_dims(cfg, "v_proj")
(4096, 1024)
>>> exact_adapter_mb(cfg, 16, ["q_proj", "v_proj"])      # the naive formula says 16.0
13.0

The configs of the models the course uses live in ``labcore/data/models/*.json``; their
dimensions are the published ones. One module per job: :mod:`~labcore.model_config.config` reads
a config into a :class:`ModelConfig`, :mod:`~labcore.model_config.exact` sizes a LoRA on the
Llama projections from it, and :mod:`~labcore.model_config.peft_layout` lays out every module
PEFT could adapt and counts a LoraConfig's parameters over them.
"""

from __future__ import annotations

from ..errors import ModelConfigError
from .config import ModelConfig, hub_id, known_models, load_model_config
from .exact import TARGET_SETS, TARGETS, ExactSizing, exact_adapter_mb, exact_sizing, lora_params, target_dims
from .peft_layout import peft_lora_params, peft_modules

__all__ = [
    "TARGETS",
    "ModelConfigError",
    "ModelConfig",
    "known_models",
    "hub_id",
    "load_model_config",
    "target_dims",
    "lora_params",
    "exact_adapter_mb",
    "peft_modules",
    "peft_lora_params",
    "TARGET_SETS",
    "ExactSizing",
    "exact_sizing",
]
