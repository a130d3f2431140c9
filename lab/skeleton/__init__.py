# Generated from labcore/__init__.py by scripts/make_skeleton.py. Do not edit this copy:
# cp -r lab/skeleton lab/mine, fill in every TODO(lab), then LAB_MODULE=lab.mine pytest tests/contract

"""The learner's copy of the labcore contract (generated; see lab/README.md)."""
from .adapter import Adapter, tenant_adapters
from .cache import AdapterCache, CacheAccess, CacheStats, FifoAdapterCache
from .errors import AdapterInUseError, AdapterNotFoundError, AdapterFileError, AdapterTooLargeError, BaseDigestMismatchError, CheckpointDigestError, InvalidAdapterError, InvalidModelRefError, InvalidVersionError, LabcoreError, ModelConfigError, QueueFullError, RegistryFileError, UnknownBaseError, UnsafeAdapterFormatError, VersionExistsError, WrongBaseError
from .fleet import FleetPlan, fleet_plan
from .registry import AdapterRegistry
from .router import MODE_BASE, MODE_DEDICATED, MODE_DYNAMIC, MODES, ModelRef, MultiLoRARouter, RouteDecision, parse_model_ref
from .sizing import GpuMemorySplit, adapter_vram_mb, gpu_memory_split
from .versions import format_version, parse_version
__all__ = ['Adapter', 'AdapterCache', 'AdapterFileError', 'AdapterInUseError', 'AdapterNotFoundError', 'AdapterRegistry', 'AdapterTooLargeError', 'BaseDigestMismatchError', 'CacheAccess', 'CacheStats', 'CheckpointDigestError', 'FifoAdapterCache', 'FleetPlan', 'GpuMemorySplit', 'InvalidAdapterError', 'InvalidModelRefError', 'InvalidVersionError', 'LabcoreError', 'MODES', 'MODE_BASE', 'MODE_DEDICATED', 'MODE_DYNAMIC', 'ModelConfigError', 'ModelRef', 'MultiLoRARouter', 'QueueFullError', 'RegistryFileError', 'RouteDecision', 'UnknownBaseError', 'UnsafeAdapterFormatError', 'VersionExistsError', 'WrongBaseError', 'adapter_vram_mb', 'fleet_plan', 'format_version', 'gpu_memory_split', 'parse_model_ref', 'parse_version', 'tenant_adapters']
