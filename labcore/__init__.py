"""labcore: the library behind the multi-LoRA serving course.

One resident base model, many hot-swapped LoRA adapters: a semver'd registry bound to base
checkpoint digests, a VRAM-budgeted LRU cache, a router with a latency model, and a fleet plan.

>>> import labcore
>>> labcore.adapter_vram_mb(16, 4096, 32, 2)
16.0
"""

from .adapter import Adapter, tenant_adapters
from .admission import AdmissionController
from .affinity import AffinityFleet, FleetRun, rendezvous_owner
from .base_model import (
    BaseParams,
    MoeLoraSize,
    MoeTargets,
    base_params,
    base_weights_gib,
    moe_lora_params,
    moe_lora_targets,
    published_params,
)
from .batching import BatchCostModel, fit_sgmv, merged_vs_dynamic
from .cache import AdapterCache, CacheAccess, CacheStats, FifoAdapterCache
from .canary import CanaryController, CanarySplit, CanaryThresholds
from .demo import load_demo_results
from .digest import checkpoint_digest, is_digest
from .engines import (
    EnginePlan,
    EngineSetting,
    LaunchCommand,
    LaunchFlag,
    LoraBuffer,
    PlanInputs,
    UnknownEngineError,
    UnsupportedModelError,
    launch_commands,
    lora_buffers,
    lora_slot_bytes,
    production_mapping,
    serving_plan,
)
from .errors import (
    AdapterFileError,
    AdapterInUseError,
    AdapterNotFoundError,
    AdapterTooLargeError,
    BaseDigestMismatchError,
    CheckpointDigestError,
    InvalidAdapterError,
    InvalidModelRefError,
    InvalidVersionError,
    LabcoreError,
    ModelConfigError,
    QueueFullError,
    RegistryFileError,
    UnknownBaseError,
    UnsafeAdapterFormatError,
    VersionExistsError,
    WrongBaseError,
)
from .fleet import FleetPlan, fleet_plan
from .gpus import Gpu, UnknownGpuError, known_gpus, load_gpu
from .kv_cache import kv_bytes_per_sequence, kv_bytes_per_token, kv_layer_windows, tokens_in_bytes
from .links import LAB_HOST_TO_GPU, TRANSFER_ASSUMPTIONS, Link, transfer_table
from .model_config import (
    ModelConfig,
    exact_adapter_mb,
    known_models,
    load_model_config,
    lora_params,
    peft_lora_params,
    target_dims,
)
from .peft_files import PeftAdapterFiles, adapter_from_dir, read_peft_adapter, variant_table
from .percentiles import percentile
from .prefix_cache import PrefixCache, PrefixLookup
from .refs import AdapterKey, parse_adapter_ref
from .registry import AdapterRegistry
from .router import (
    MODE_BASE,
    MODE_DEDICATED,
    MODE_DYNAMIC,
    MODES,
    ModelRef,
    MultiLoRARouter,
    RouteDecision,
    parse_model_ref,
)
from .sim import Join, SimResult, Trace, Workload, make_trace, simulate, single_replica_router
from .sim.scenarios import compare_policies, run_policy
from .sizing import GpuMemorySplit, adapter_vram_mb, gpu_memory_split
from .slots import SlotOutcome, SlotRequest, SlotScheduler, slot_pool_mb
from .tiers import TieredCache
from .versions import Version, format_version, parse_version

__all__ = [
    "Adapter",
    "AdapterCache",
    "AdapterKey",
    "AdapterFileError",
    "AdapterInUseError",
    "AdapterNotFoundError",
    "AdapterRegistry",
    "AdapterTooLargeError",
    "AdmissionController",
    "AffinityFleet",
    "BaseDigestMismatchError",
    "BaseParams",
    "BatchCostModel",
    "CacheAccess",
    "CacheStats",
    "CanaryController",
    "CanarySplit",
    "CanaryThresholds",
    "CheckpointDigestError",
    "EngineSetting",
    "FifoAdapterCache",
    "FleetPlan",
    "FleetRun",
    "Gpu",
    "GpuMemorySplit",
    "InvalidAdapterError",
    "InvalidModelRefError",
    "InvalidVersionError",
    "Join",
    "LabcoreError",
    "LAB_HOST_TO_GPU",
    "Link",
    "MODES",
    "MODE_BASE",
    "MODE_DEDICATED",
    "MODE_DYNAMIC",
    "ModelConfig",
    "ModelConfigError",
    "ModelRef",
    "MoeLoraSize",
    "MoeTargets",
    "MultiLoRARouter",
    "PeftAdapterFiles",
    "PrefixCache",
    "PrefixLookup",
    "QueueFullError",
    "RegistryFileError",
    "RouteDecision",
    "SimResult",
    "SlotOutcome",
    "SlotRequest",
    "SlotScheduler",
    "TRANSFER_ASSUMPTIONS",
    "TieredCache",
    "Trace",
    "UnknownBaseError",
    "UnknownGpuError",
    "UnsafeAdapterFormatError",
    "Version",
    "VersionExistsError",
    "Workload",
    "WrongBaseError",
    "adapter_from_dir",
    "adapter_vram_mb",
    "base_params",
    "base_weights_gib",
    "checkpoint_digest",
    "compare_policies",
    "exact_adapter_mb",
    "fit_sgmv",
    "fleet_plan",
    "format_version",
    "gpu_memory_split",
    "is_digest",
    "known_gpus",
    "known_models",
    "load_demo_results",
    "load_gpu",
    "load_model_config",
    "lora_params",
    "make_trace",
    "merged_vs_dynamic",
    "moe_lora_params",
    "moe_lora_targets",
    "parse_model_ref",
    "parse_adapter_ref",
    "parse_version",
    "peft_lora_params",
    "percentile",
    "production_mapping",
    "published_params",
    "read_peft_adapter",
    "rendezvous_owner",
    "run_policy",
    "simulate",
    "single_replica_router",
    "slot_pool_mb",
    "target_dims",
    "tenant_adapters",
    "transfer_table",
    "variant_table",
    "EnginePlan",
    "LaunchCommand",
    "LaunchFlag",
    "LoraBuffer",
    "PlanInputs",
    "UnknownEngineError",
    "UnsupportedModelError",
    "kv_bytes_per_sequence",
    "kv_bytes_per_token",
    "kv_layer_windows",
    "launch_commands",
    "lora_buffers",
    "lora_slot_bytes",
    "serving_plan",
    "tokens_in_bytes",
]

__version__ = "1.1.0"
