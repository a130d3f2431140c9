"""What the serving engines do with LoRA: the settings table, the buffers they allocate, their launch flags.

``mapping`` holds the production mapping (each labcore concept next to the engine setting that plays
its part), ``summary`` its short version for a slide, ``allocation`` the LoRA buffers vLLM and SGLang
preallocate, ``launch`` the launch commands with the memory each flag costs, and ``plan`` one GPU's
memory plan per engine, and ``adapters`` how the tenants' adapters reach the engine.

>>> lora_slot_bytes("vllm", "llama-3-8b", slots=8, max_rank=64, target_modules=["qkv_proj"]) // 2**20
576
"""

from . import adapters, allocation, launch, mapping, plan, summary
from .allocation import (
    ALLOCATING_ENGINES,
    SGLANG_ENGINE,
    SOURCES,
    VLLM_ENGINE,
    VLLM_MAX_LORA_RANKS,
    LoraBuffer,
    UnknownEngineError,
    UnsupportedModelError,
    buffer_rows,
    lora_buffers,
    lora_slot_bytes,
)
from .adapters import ADAPTER_MODES, DEFAULT_ADAPTER_DIR, AdapterLoading, adapter_loading
from .launch import DEFAULT_SLOTS, FLAG_DEFAULTS, LaunchCommand, LaunchFlag, launch_commands, served_name, vllm_rank
from .mapping import (
    ENGINES,
    KINDS,
    LORAX,
    NONE,
    SGLANG,
    TENSORRT_LLM,
    VLLM,
    EngineSetting,
    mapping_rows,
    mapping_table_html,
    production_mapping,
    resolve_labcore_name,
    settings_for,
)
from .summary import mapping_summary_html, summary_rows
from .plan import EnginePlan, PlanInputs, fit_options, serving_plan

# Every public name of the six modules, in their own order: today's mapping names first.
__all__ = [*mapping.__all__, *summary.__all__, *allocation.__all__, *launch.__all__, *plan.__all__,
           *adapters.__all__]
