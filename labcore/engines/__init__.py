"""What the serving engines do with LoRA: the settings table, the buffers they allocate, their launch flags.

``mapping`` holds the production mapping (each labcore concept next to the engine setting that plays
its part), ``summary`` its short version for a slide, ``allocation`` the LoRA buffers vLLM and SGLang
preallocate, ``kv`` one sequence's KV cache as vLLM reserves it, ``inputs`` the one value a plan takes and
the memory it implies, ``launch`` the launch commands with the memory each flag costs, ``adapters`` how the
tenants' adapters reach the engine, ``plan`` one GPU's memory plan per engine (and what fits when it does not), ``measured`` the reader's own nvidia-smi and vllm bench
files, ``releases`` the engine releases the facts are read at (``make engines``), and ``parser_record`` what each
engine's own argument parser said of every command the plan prints.

>>> lora_slot_bytes("vllm", "llama-3-8b", slots=8, max_rank=64, target_modules=["qkv_proj"]) // 2**20
576
"""

from . import adapters, allocation, inputs, kv, launch, mapping, measured, plan, releases, summary
from .adapters import (
    ADAPTER_MODES,
    DEFAULT_ADAPTER_DIR,
    SGLANG_PORT,
    VLLM_PORT,
    AdapterLoading,
    adapter_loading,
    load_call,
)
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
from .inputs import DEFAULT_SLOTS, EngineMemory, PlanInputs, engine_memory, model_inputs, served_name, vllm_rank
from .kv import (
    KV_SOURCES,
    VLLM_BLOCK_TOKENS,
    VLLM_CONCURRENT_BATCHES,
    kv_bytes_per_gpu,
    vllm_batched_tokens,
    vllm_kv_bytes_per_sequence,
)
from .launch import FLAG_DEFAULTS, LaunchCommand, LaunchFlag, host_adapter_bytes, launch_commands
from .mapping import (
    ENGINES,
    KINDS,
    LORAX,
    NONE,
    SGLANG,
    TENSORRT_LLM,
    TENSORRT_LLM_UNVERIFIED,
    VLLM,
    EngineSetting,
    mapping_rows,
    mapping_table_html,
    production_mapping,
    resolve_labcore_name,
    settings_for,
)
from .measured import (
    BENCH_FIELDS,
    EXAMPLES,
    READER_FILES,
    BenchReading,
    Calibration,
    SmiReading,
    calibrate,
    parse_nvidia_smi,
    parse_vllm_bench,
    read_nvidia_smi,
    read_vllm_bench,
    reader_files,
)
from .plan import TP_CHOICES, EnginePlan, fit_options, plan_fleet, serving_plan
from .releases import RELEASES, TAGGED_RELEASES, flag_fact, release_facts, release_facts_name, release_file
from .summary import mapping_summary_html, summary_rows

# Every public name of the modules, in their own order: today's mapping names first.
__all__ = [
    *mapping.__all__,
    *summary.__all__,
    *allocation.__all__,
    *inputs.__all__,
    *launch.__all__,
    *plan.__all__,
    *adapters.__all__,
    *kv.__all__,
    *measured.__all__,
    *releases.__all__,
]
