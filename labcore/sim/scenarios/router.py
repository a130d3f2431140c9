"""Chapter 5's run: one request of each kind through a fresh router (base, dedicated, dynamic miss, dynamic hit).

>>> route_examples()["dynamic hit"].total_latency_ms
42.0
"""

from __future__ import annotations

from typing import Any

from ...capacity import DYNAMIC_OVERHEAD
from ...implementation import Implementation, implementation
from ...links import LAB_HOST_TO_GPU
from ...refs import ModelRef

__all__ = ["ROUTER_BASE", "ROUTER_DIGEST", "route_examples"]

ROUTER_BASE = "llama-3-8b"
ROUTER_DIGEST = "sha256:llama-3-8b-demo"


def route_examples(
    base_latency_ms: float = 40.0,
    dynamic_overhead: float = DYNAMIC_OVERHEAD,
    adapter_vram_mb: float = 16.0,
    transfer_mb_per_ms: float = LAB_HOST_TO_GPU.mb_per_ms,
    *,
    load_overhead_ms: float = LAB_HOST_TO_GPU.overhead_ms,
    lab: Implementation | None = None,
) -> dict[str, Any]:
    """Route one request of each kind through a fresh router: base, dedicated, dynamic miss, dynamic hit.

    The overhead is the course's one rule, :data:`labcore.capacity.DYNAMIC_OVERHEAD` (5%).
    Returns ``{label: RouteDecision}`` from the real ``MultiLoRARouter`` (a merged ``flagship`` adapter and a
    dynamic ``support-bot``), so the latency parts in the figure are the router's own numbers. ``lab`` builds the
    registry, cache and router from another implementation of the contract (a learner's ``lab/mine``).

    >>> d = route_examples()
    >>> [(k, v.mode, v.total_latency_ms) for k, v in d.items()]
    [('base', 'base', 40.0), ('dedicated', 'dedicated', 40.0), ('dynamic miss', 'dynamic', 44.0), ('dynamic hit', 'dynamic', 42.0)]
    """
    code = lab if lab is not None else implementation("reference")
    adapter = code.get("Adapter")
    registry = code.get("AdapterRegistry")()
    registry.register_base(ROUTER_BASE, ROUTER_DIGEST)
    registry.register(adapter("support-bot", "2.1.0", ROUTER_BASE, ROUTER_DIGEST, rank=16, vram_mb=adapter_vram_mb))
    registry.register(
        adapter("flagship", "1.0.0", ROUTER_BASE, ROUTER_DIGEST, rank=16, vram_mb=adapter_vram_mb, merged=True)
    )
    cache = code.get("AdapterCache")(
        max(1024.0, adapter_vram_mb), transfer_mb_per_ms, load_overhead_ms=load_overhead_ms
    )
    router = code.get("MultiLoRARouter")(
        registry, cache, ROUTER_BASE, base_latency_ms=base_latency_ms, dynamic_overhead=dynamic_overhead
    )
    parsed = (
        ModelRef(ROUTER_BASE),
        ModelRef(ROUTER_BASE, "flagship", "1.0.0"),
        ModelRef(ROUTER_BASE, "support-bot", "2.1.0"),
    )
    # the contract's router takes the text
    refs: tuple[ModelRef | str, ...] = parsed if code.is_reference else tuple(ref.text for ref in parsed)
    base, dedicated, pinned = refs
    return {
        "base": router.route(base),
        "dedicated": router.route(dedicated),
        "dynamic miss": router.route(pinned),
        "dynamic hit": router.route(pinned),
    }
