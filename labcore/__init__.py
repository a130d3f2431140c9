"""labcore: the library behind the multi-LoRA serving course.

One resident base model, many hot-swapped LoRA adapters: a semver'd registry bound to base
checkpoint digests, a VRAM-budgeted LRU cache, a router with a latency model, and a fleet plan.

>>> import labcore
>>> labcore.adapter_vram_mb(16, 4096, 32, 2)
16.0
"""

from .adapter import Adapter, tenant_adapters
from .cache import AdapterCache, CacheAccess, CacheStats, FifoAdapterCache
from .errors import (
    AdapterInUseError,
    AdapterNotFoundError,
    AdapterTooLargeError,
    BaseDigestMismatchError,
    InvalidAdapterError,
    InvalidModelRefError,
    InvalidVersionError,
    LabcoreError,
    RegistryFileError,
    UnknownBaseError,
    VersionExistsError,
    WrongBaseError,
)
from .fleet import FleetPlan, fleet_plan
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
from .sizing import GpuMemorySplit, adapter_vram_mb, gpu_memory_split
from .versions import format_version, parse_version

__all__ = [
    "Adapter",
    "AdapterCache",
    "AdapterInUseError",
    "AdapterNotFoundError",
    "AdapterRegistry",
    "AdapterTooLargeError",
    "BaseDigestMismatchError",
    "CacheAccess",
    "CacheStats",
    "FifoAdapterCache",
    "FleetPlan",
    "GpuMemorySplit",
    "InvalidAdapterError",
    "InvalidModelRefError",
    "InvalidVersionError",
    "LabcoreError",
    "MODES",
    "MODE_BASE",
    "MODE_DEDICATED",
    "MODE_DYNAMIC",
    "ModelRef",
    "MultiLoRARouter",
    "RegistryFileError",
    "RouteDecision",
    "UnknownBaseError",
    "VersionExistsError",
    "WrongBaseError",
    "adapter_vram_mb",
    "fleet_plan",
    "format_version",
    "gpu_memory_split",
    "parse_model_ref",
    "parse_version",
    "tenant_adapters",
]

__version__ = "1.0.0"
