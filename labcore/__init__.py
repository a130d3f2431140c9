"""labcore: the library behind the multi-LoRA serving course.

One resident base model, many hot-swapped LoRA adapters: a semver'd registry bound to base
checkpoint digests, a VRAM-budgeted LRU cache, a router with a latency model, and a fleet plan.

>>> import labcore
>>> labcore.adapter_vram_mb(16, 4096, 32, 2)
16.0
"""

from .admission import AdmissionController
from .adapter import Adapter, tenant_adapters
from .affinity import AffinityFleet, FleetRun, compare_policies, rendezvous_owner, run_policy
from .batching import BatchCostModel, fit_sgmv, merged_vs_dynamic
from .cache import AdapterCache, CacheAccess, CacheStats, FifoAdapterCache
from .errors import (
    AdapterInUseError,
    AdapterNotFoundError,
    AdapterFileError,
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
from .canary import CanaryController, CanarySplit, CanaryThresholds
from .digest import checkpoint_digest, is_digest
from .fleet import FleetPlan, fleet_plan
from .model_config import ModelConfig, exact_adapter_mb, known_models, load_model_config, lora_params, target_dims
from .peft_files import PeftAdapterFiles, adapter_from_dir, load_demo_results, read_peft_adapter
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
from .sim import Join, SimResult, Trace, Workload, make_trace, percentile, simulate, standard_fleet
from .sizing import GpuMemorySplit, adapter_vram_mb, gpu_memory_split
from .tiers import Link, TieredCache
from .versions import format_version, parse_version

__all__ = [
    "Adapter",
    "AdapterCache",
    "AdapterFileError",
    "AdapterInUseError",
    "AdapterNotFoundError",
    "AdapterRegistry",
    "AdapterTooLargeError",
    "AdmissionController",
    "AffinityFleet",
    "BaseDigestMismatchError",
    "BatchCostModel",
    "CacheAccess",
    "CacheStats",
    "CanaryController",
    "CanarySplit",
    "CanaryThresholds",
    "CheckpointDigestError",
    "FifoAdapterCache",
    "FleetPlan",
    "FleetRun",
    "GpuMemorySplit",
    "InvalidAdapterError",
    "InvalidModelRefError",
    "InvalidVersionError",
    "Join",
    "LabcoreError",
    "Link",
    "MODES",
    "MODE_BASE",
    "MODE_DEDICATED",
    "MODE_DYNAMIC",
    "ModelConfig",
    "ModelConfigError",
    "ModelRef",
    "MultiLoRARouter",
    "PeftAdapterFiles",
    "QueueFullError",
    "RegistryFileError",
    "RouteDecision",
    "SimResult",
    "TieredCache",
    "Trace",
    "UnknownBaseError",
    "UnsafeAdapterFormatError",
    "VersionExistsError",
    "Workload",
    "WrongBaseError",
    "adapter_from_dir",
    "adapter_vram_mb",
    "checkpoint_digest",
    "compare_policies",
    "exact_adapter_mb",
    "fit_sgmv",
    "fleet_plan",
    "format_version",
    "gpu_memory_split",
    "is_digest",
    "known_models",
    "load_demo_results",
    "load_model_config",
    "lora_params",
    "make_trace",
    "merged_vs_dynamic",
    "parse_model_ref",
    "parse_version",
    "percentile",
    "read_peft_adapter",
    "rendezvous_owner",
    "run_policy",
    "simulate",
    "standard_fleet",
    "target_dims",
    "tenant_adapters",
]

__version__ = "1.0.0"
