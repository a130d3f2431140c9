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
>>> d.mode, str(d.adapter), d.cache_hit, d.adapter_load_ms, d.total_latency_ms
('dynamic', 'support-bot@2.1.0', False, 2.0, 44.0)
>>> router.route("llama-3-8b:support-bot").cache_hit      # unpinned: latest version, now resident
True
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from ._validate import number, text
from .adapter import Adapter
from .cache import CacheAccess
from .errors import InvalidModelRefError, InvalidVersionError, WrongBaseError
from .refs import AdapterKey, ModelRef, adapter_ref_parts
from .registry import AdapterRegistry

__all__ = [
    "MODE_BASE",
    "MODE_DYNAMIC",
    "MODE_DEDICATED",
    "MODES",
    "ModelRef",
    "parse_model_ref",
    "RouteDecision",
    "MultiLoRARouter",
]

MODE_BASE = "base"
MODE_DYNAMIC = "dynamic"
MODE_DEDICATED = "dedicated"
MODES = (MODE_BASE, MODE_DYNAMIC, MODE_DEDICATED)


def _bad_ref(ref: object, why: str) -> InvalidModelRefError:
    return InvalidModelRefError(
        f"invalid model ref {ref!r}: {why} (expected 'base', 'base:adapter' or 'base:adapter@MAJOR.MINOR.PATCH')"
    )


def parse_model_ref(ref: str) -> ModelRef:
    """Parse ``"base"``, ``"base:adapter"`` or ``"base:adapter@x.y.z"`` into a :class:`ModelRef`.

    The one parser of the grammar: the ``adapter@version`` tail is cut by :func:`labcore.refs.adapter_ref_parts`
    and the version read by :func:`labcore.versions.parse_version`, as the registry does. :class:`ModelRef`
    lives in :mod:`labcore.refs` (a value type, imported without the router) and is re-exported here.

    >>> parse_model_ref("llama-3-8b:support-bot@2.1.0")
    ModelRef(base='llama-3-8b', adapter='support-bot', version='2.1.0')
    >>> parse_model_ref("llama-3-8b@2.1.0")
    Traceback (most recent call last):
    ...
    labcore.errors.InvalidModelRefError: invalid model ref 'llama-3-8b@2.1.0': a version needs an adapter (expected 'base', 'base:adapter' or 'base:adapter@MAJOR.MINOR.PATCH')
    """
    if not isinstance(ref, str):
        raise _bad_ref(ref, "not a string")
    base, colon, rest = ref.partition(":")
    if not base:
        raise _bad_ref(ref, "empty base name")
    if any(ch.isspace() for ch in ref):
        raise _bad_ref(ref, "contains whitespace")
    if not colon:
        if "@" in base:
            raise _bad_ref(ref, "a version needs an adapter")
        return ModelRef(base)
    if "@" in base:
        raise _bad_ref(ref, "'@' in the base name")
    if ":" in rest:
        raise _bad_ref(ref, "more than one ':'")
    adapter, version = adapter_ref_parts(rest)
    if not adapter:
        raise _bad_ref(ref, "empty adapter name")
    if version is not None and "@" in version:
        raise _bad_ref(ref, "more than one '@'")
    try:
        return ModelRef(base, adapter, version)  # parses the version, once
    except InvalidVersionError as error:
        raise _bad_ref(ref, str(error)) from None


@dataclass(frozen=True, slots=True)
class RouteDecision:
    """Everything the router decided for one request: the observability record.

    ``total_latency_ms = base_latency_ms + overhead_ms + adapter_load_ms``.
    """

    mode: str
    adapter: AdapterKey | None
    cache_hit: bool | None
    evicted: tuple[AdapterKey, ...]
    adapter_load_ms: float
    total_latency_ms: float
    ref: str = ""
    base: str = ""
    version_pinned: bool = False
    base_latency_ms: float = 0.0
    overhead_ms: float = 0.0


class AdapterTier(Protocol):
    """What the router needs from a cache (``AdapterCache`` and tiered caches provide it)."""

    def access(self, adapter: Adapter, *, pin: bool = False) -> CacheAccess: ...

    def unpin(self, key: AdapterKey) -> None: ...


class _Plan:
    """A memoised, validated route for one ref (valid while the registry is unchanged)."""

    __slots__ = ("generation", "mode", "adapter", "decision")

    def __init__(self, generation: int, mode: str, adapter: Adapter | None, decision: RouteDecision) -> None:
        self.generation = generation
        self.mode = mode
        self.adapter = adapter  # what the cache loads: a dynamic route's adapter (None for base and dedicated)
        self.decision = decision  # the whole answer for base/dedicated, the cache-hit answer for dynamic


class MultiLoRARouter:
    """Route model refs for one resident base: base, dynamic multi-LoRA, or a dedicated merged replica.

    Thread-safe: one lock guards the cache it drives, so concurrent requests never push the
    cache over budget and the counters add up.
    """

    _MEMO_LIMIT = 65_536

    def __init__(
        self,
        registry: AdapterRegistry,
        cache: AdapterTier,
        base_model: str,
        *,
        base_latency_ms: float,
        dynamic_overhead: float,
    ) -> None:
        text("base_model", base_model, blank_ok=True)
        self.registry = registry
        self.cache = cache
        self.base_model = base_model
        self.base_latency_ms = number("base_latency_ms", base_latency_ms)
        self.dynamic_overhead = number(
            "dynamic_overhead (a fraction, e.g. 0.05 for 5%)", dynamic_overhead, inclusive=True
        )
        self.requests_by_mode = {mode: 0 for mode in MODES}
        self._plans: dict[str, _Plan] = {}  # by the ref's text, however it was given
        self._lock = threading.Lock()

    @property
    def requests(self) -> int:
        """Requests routed so far (failed routes not counted)."""
        return sum(self.requests_by_mode.values())

    def route(self, ref: str | ModelRef, *, pin: bool = False) -> RouteDecision:
        """Decide how to serve ``ref`` (its text, parsed here once, or a :class:`ModelRef`) and return the decision.

        With ``pin=True`` a dynamic adapter stays pinned in the cache (never evicted) until
        :meth:`release` is called with the decision: in-flight protection.
        """
        lock = self._lock
        lock.acquire()  # explicit acquire/release: half the cost of ``with lock`` on CPython 3.11
        try:
            plan = self._plans.get(ref.text if isinstance(ref, ModelRef) else ref)  # a record and its text: one plan
            if plan is None or plan.generation != self.registry.generation:
                plan = self._plan(ref)
            adapter = plan.adapter
            if adapter is None:  # base or dedicated: no cache
                self.requests_by_mode[plan.mode] += 1
                return plan.decision
            # counted only once the cache access succeeded: a refused request is not a request served
            access = self.cache.access(adapter, pin=True) if pin else self.cache.access(adapter)
            self.requests_by_mode[MODE_DYNAMIC] += 1
            return plan.decision if access.hit else _missed(plan.decision, access)
        finally:
            lock.release()

    def route_many(self, refs: Iterable[str | ModelRef]) -> list[RouteDecision]:
        """Route ``refs`` in order under one hold of the lock: the decisions ``[route(r) for r in refs]`` gives.

        The simulator's batch path (a million requests a second): the loop is :meth:`route`'s, with the
        lock taken once and the counters added once. A ref that fails raises as :meth:`route` does, and
        the requests routed before it stay counted.

        >>> from labcore.sim import single_replica_router
        >>> router = single_replica_router(2, budget_mb=16)
        >>> [(d.mode, d.cache_hit) for d in router.route_many(["llama-3-8b:tenant-01"] * 2 + ["llama-3-8b"])]
        [('dynamic', False), ('dynamic', True), ('base', None)]
        """
        decisions: list[RouteDecision] = []
        append = decisions.append
        plans, registry, access = self._plans, self.registry, self.cache.access
        others = dict.fromkeys(self.requests_by_mode, 0)
        dynamic = 0
        with self._lock:
            try:
                for ref in refs:
                    plan = plans.get(ref.text if isinstance(ref, ModelRef) else ref)
                    if plan is None or plan.generation != registry.generation:
                        plan = self._plan(ref)
                    adapter = plan.adapter
                    if adapter is None:  # base or dedicated: no cache
                        others[plan.mode] += 1
                        append(plan.decision)
                        continue
                    result = access(adapter)
                    dynamic += 1
                    append(plan.decision if result.hit else _missed(plan.decision, result))
            finally:
                others[MODE_DYNAMIC] += dynamic
                for mode, routed in others.items():
                    self.requests_by_mode[mode] += routed
        return decisions

    def release(self, decision: RouteDecision) -> None:
        """Unpin the adapter of a decision routed with ``pin=True`` once its request finishes."""
        key = decision.adapter
        if decision.mode != MODE_DYNAMIC or key is None:  # a dynamic decision always names its adapter
            return
        with self._lock:
            self.cache.unpin(key)

    def _plan(self, ref: str | ModelRef) -> _Plan:
        parsed = ref if isinstance(ref, ModelRef) else parse_model_ref(ref)  # parsed once, then only read
        ref_text = ref.text if isinstance(ref, ModelRef) else ref
        if parsed.base != self.base_model:
            raise WrongBaseError(
                f"request {ref_text!r} is for base {parsed.base!r}, but this router serves {self.base_model!r}"
            )
        generation = self.registry.generation
        base_ms = self.base_latency_ms
        if parsed.adapter is None:
            mode, adapter, key, hit, overhead_ms = MODE_BASE, None, None, None, 0.0
        else:
            adapter = self.registry.find(parsed.adapter, parsed.semver)
            if adapter.base_model != self.base_model:
                raise WrongBaseError(
                    f"adapter {adapter.key} is bound to base {adapter.base_model!r}, but this router serves "
                    f"{self.base_model!r}"
                )
            key = adapter.key
            if adapter.merged:
                mode, hit, overhead_ms = MODE_DEDICATED, None, 0.0
            else:  # the decision of a cache hit; a miss adds the load (see route)
                mode, hit, overhead_ms = MODE_DYNAMIC, True, base_ms * self.dynamic_overhead
        total_ms = base_ms * (1 + self.dynamic_overhead) if mode == MODE_DYNAMIC else base_ms
        decision = RouteDecision(
            mode=mode,
            adapter=key,
            cache_hit=hit,
            evicted=(),
            adapter_load_ms=0.0,
            total_latency_ms=total_ms,
            ref=ref_text,
            base=parsed.base,
            version_pinned=parsed.version is not None,
            base_latency_ms=base_ms,
            overhead_ms=overhead_ms,
        )
        plan = _Plan(generation, mode, adapter if mode == MODE_DYNAMIC else None, decision)
        if len(self._plans) >= self._MEMO_LIMIT:
            self._plans.clear()
        self._plans[ref_text] = plan
        return plan

    def __repr__(self) -> str:
        return (
            f"MultiLoRARouter(base_model={self.base_model!r}, base_latency_ms={self.base_latency_ms:g}, "
            f"dynamic_overhead={self.dynamic_overhead:g}, requests={self.requests})"
        )


def _missed(hit: RouteDecision, access: CacheAccess) -> RouteDecision:
    """Return the decision of a cache miss: the plan's hit decision plus the load the miss paid."""
    return RouteDecision(
        mode=hit.mode,
        adapter=hit.adapter,
        cache_hit=False,
        evicted=access.evicted,
        adapter_load_ms=access.load_ms,
        total_latency_ms=hit.total_latency_ms + access.load_ms,
        ref=hit.ref,
        base=hit.base,
        version_pinned=hit.version_pinned,
        base_latency_ms=hit.base_latency_ms,
        overhead_ms=hit.overhead_ms,
    )
