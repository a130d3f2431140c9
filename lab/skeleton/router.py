# Generated from labcore/router.py by scripts/make_skeleton.py. Do not edit this copy:
# cp -r lab/skeleton lab/mine, fill in every TODO(lab), then LAB_MODULE=lab.mine pytest tests/contract

"""The router: from ``model: "llama-3-8b:support-bot@2.1.0"`` to a serving decision with a latency.

Three modes:

* ``base`` — no adapter named: the resident base answers, the adapter cache is untouched;
* ``dynamic`` — the adapter is hot-swapped through the VRAM cache and applied per request
  (batched LoRA kernels cost a small overhead fraction; a miss also pays the load time);
* ``dedicated`` — a *merged* adapter (ΔW folded into a copy of the base) has its own replica:
  zero overhead, no hot-swap, a whole GPU.

>>> from labcore import Adapter, AdapterCache, AdapterRegistry
>>> reg = AdapterRegistry(); reg.register_base("llama-3-8b", "sha256:1111")
>>> reg.register(Adapter("support-bot", "2.1.0", "llama-3-8b", "sha256:1111", rank=16, vram_mb=16.0))
>>> router = MultiLoRARouter(reg, AdapterCache(1024, 8.0), "llama-3-8b", base_latency_ms=40.0, dynamic_overhead=0.05)
>>> d = router.route("llama-3-8b:support-bot@2.1.0")
>>> d.mode, d.adapter, d.cache_hit, d.adapter_load_ms, d.total_latency_ms
('dynamic', 'support-bot@2.1.0', False, 2.0, 44.0)
>>> router.route("llama-3-8b:support-bot").cache_hit      # unpinned: latest version, now resident
True
"""
from __future__ import annotations
import threading
from dataclasses import dataclass
from typing import Protocol
from .adapter import Adapter
from .cache import CacheAccess
from .errors import InvalidModelRefError, InvalidVersionError, WrongBaseError
from .registry import AdapterRegistry
from .versions import Version, parse_version
from ._validate import number, text
__all__ = ['MODE_BASE', 'MODE_DYNAMIC', 'MODE_DEDICATED', 'MODES', 'ModelRef', 'parse_model_ref', 'RouteDecision', 'MultiLoRARouter']
MODE_BASE = 'base'
MODE_DYNAMIC = 'dynamic'
MODE_DEDICATED = 'dedicated'
MODES = (MODE_BASE, MODE_DYNAMIC, MODE_DEDICATED)

@dataclass(frozen=True, slots=True)
class ModelRef:
    """A parsed ``base[:adapter[@version]]`` reference."""
    base: str
    adapter: str | None = None
    version: str | None = None

    @property
    def adapter_ref(self) -> str | None:
        """The registry ref: ``"name@version"``, ``"name"``, or ``None`` for the bare base."""
        raise NotImplementedError('TODO(lab): implement router.ModelRef.adapter_ref: The registry ref: ``"name@version"``, ``"name"``, or ``None`` for the bare base.')

    def __str__(self) -> str:
        raise NotImplementedError('TODO(lab): implement router.ModelRef.__str__: see what tests/contract/test_router.py asks of it')

def parse_model_ref(ref: str) -> ModelRef:
    """Parse ``"base"``, ``"base:adapter"`` or ``"base:adapter@x.y.z"`` into a :class:`ModelRef`.

    >>> parse_model_ref("llama-3-8b:support-bot@2.1.0")
    ModelRef(base='llama-3-8b', adapter='support-bot', version='2.1.0')
    >>> parse_model_ref("llama-3-8b@2.1.0")
    Traceback (most recent call last):
    ...
    labcore.errors.InvalidModelRefError: invalid model ref 'llama-3-8b@2.1.0': a version needs an adapter (expected 'base', 'base:adapter' or 'base:adapter@MAJOR.MINOR.PATCH')
    """
    raise NotImplementedError('TODO(lab): implement router.parse_model_ref: Parse ``"base"``, ``"base:adapter"`` or ``"base:adapter@x.y.z"`` into a :class:`ModelRef`.')

@dataclass(frozen=True, slots=True)
class RouteDecision:
    """Everything the router decided for one request: the observability record.

    ``total_latency_ms = base_latency_ms + overhead_ms + adapter_load_ms``.
    """
    mode: str
    adapter: str | None
    cache_hit: bool | None
    evicted: tuple[str, ...]
    adapter_load_ms: float
    total_latency_ms: float
    ref: str = ''
    base: str = ''
    version_pinned: bool = False
    base_latency_ms: float = 0.0
    overhead_ms: float = 0.0

class AdapterTier(Protocol):
    """What the router needs from a cache (``AdapterCache`` and tiered caches provide it)."""

    def access(self, adapter: Adapter, *, pin: bool=False) -> CacheAccess:
        raise NotImplementedError('TODO(lab): implement router.AdapterTier.access: see what tests/contract/test_router.py asks of it')

    def unpin(self, key: str) -> None:
        raise NotImplementedError('TODO(lab): implement router.AdapterTier.unpin: see what tests/contract/test_router.py asks of it')

class MultiLoRARouter:
    """Route model refs for one resident base: base, dynamic multi-LoRA, or a dedicated merged replica.

    Thread-safe: one lock guards the cache it drives, so concurrent requests never push the
    cache over budget and the counters add up.
    """
    _MEMO_LIMIT = 65536

    def __init__(self, registry: AdapterRegistry, cache: AdapterTier, base_model: str, *, base_latency_ms: float, dynamic_overhead: float) -> None:
        raise NotImplementedError('TODO(lab): implement router.MultiLoRARouter.__init__: see what tests/contract/test_router.py asks of it')

    @property
    def requests(self) -> int:
        """Requests routed so far (failed routes not counted)."""
        raise NotImplementedError('TODO(lab): implement router.MultiLoRARouter.requests: Requests routed so far (failed routes not counted).')

    def route(self, ref: str, *, pin: bool=False) -> RouteDecision:
        """Decide how to serve ``ref`` and return the decision record.

        With ``pin=True`` a dynamic adapter stays pinned in the cache (never evicted) until
        :meth:`release` is called with the decision: in-flight protection.
        """
        raise NotImplementedError('TODO(lab): implement router.MultiLoRARouter.route: Decide how to serve ``ref`` and return the decision record.')

    def release(self, decision: RouteDecision) -> None:
        """Unpin the adapter of a decision routed with ``pin=True`` once its request finishes."""
        raise NotImplementedError('TODO(lab): implement router.MultiLoRARouter.release: Unpin the adapter of a decision routed with ``pin=True`` once its request finishes.')

    def __repr__(self) -> str:
        raise NotImplementedError('TODO(lab): implement router.MultiLoRARouter.__repr__: see what tests/contract/test_router.py asks of it')
