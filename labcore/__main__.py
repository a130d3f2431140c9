"""Run the worked example: ``python -m labcore``.

Declares a base, registers adapters (one trained on another checkpoint, refused), routes a
sequence of requests through a small cache, and prints each decision, the sizing and the fleet
headline. The output is deterministic.
"""

from __future__ import annotations

from . import (
    Adapter,
    AdapterCache,
    LAB_HOST_TO_GPU,
    AdapterRegistry,
    LabcoreError,
    MultiLoRARouter,
    adapter_vram_mb,
    fleet_plan,
    gpu_memory_split,
    tenant_adapters,
)

BASE = "llama-3-8b"
BASE_DIGEST = "sha256:9f2c4e"  # the checkpoint we serve
OTHER_DIGEST = "sha256:71ab03"  # "llama-3-8b" too, but another checkpoint


def _table(rows: list[tuple], header: tuple) -> str:
    cells = [tuple(str(c) for c in header)] + [tuple(str(c) for c in row) for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main() -> None:
    """Print the worked example."""
    size_mb = adapter_vram_mb(16, 4096, 32, ("q_proj", "v_proj"))
    print(f"1. Sizing: a Llama-3-8B LoRA, r=16 on q,v, bf16 = {size_mb:g} MiB (square-projection estimate)")
    split = gpu_memory_split(80, base_vram_gb=16, kv_cache_gb=24, adapter_vram_mb=size_mb)
    print(f"   an 80 GB GPU - 16 GB base - 24 GB KV cache leaves {split.adapter_pool_mb:g} MiB: "
          f"{split.adapters_that_fit} such adapters fit\n")

    registry = AdapterRegistry()
    registry.register_base(BASE, BASE_DIGEST)
    print(f"2. Registry: serving {BASE} at {BASE_DIGEST}")
    candidates = [
        Adapter("support-bot", "1.9.0", BASE, BASE_DIGEST, rank=16, vram_mb=size_mb),
        Adapter("support-bot", "1.10.0", BASE, BASE_DIGEST, rank=16, vram_mb=size_mb),
        Adapter("support-bot", "2.1.0", BASE, BASE_DIGEST, rank=16, vram_mb=size_mb),
        Adapter("legal-bot", "1.0.0", BASE, BASE_DIGEST, rank=16, vram_mb=size_mb),
        Adapter("sql-bot", "0.3.0", BASE, BASE_DIGEST, rank=16, vram_mb=size_mb),
        Adapter("flagship", "3.0.0", BASE, BASE_DIGEST, rank=64, vram_mb=64.0, merged=True),
        Adapter("finance-bot", "1.0.0", BASE, OTHER_DIGEST, rank=16, vram_mb=size_mb),
        Adapter("support-bot", "2.1.0", BASE, BASE_DIGEST, rank=16, vram_mb=size_mb),
    ]
    for adapter in candidates:
        try:
            registry.register(adapter)
            print(f"   registered {adapter.key}")
        except LabcoreError as error:
            print(f"   REFUSED    {adapter.key}: {type(error).__name__}: {error}")
    print(f"   support-bot versions in semver order: {registry.versions('support-bot')}\n")

    cache = AdapterCache(vram_budget_mb=2 * size_mb, transfer_mb_per_ms=LAB_HOST_TO_GPU.mb_per_ms)
    router = MultiLoRARouter(registry, cache, BASE, base_latency_ms=40.0, dynamic_overhead=0.05)
    print(f"3. Routing through a cache of {cache.budget_mb:g} MiB (two adapters), "
          f"{cache.transfer_mb_per_ms:g} MiB/ms host-to-device:")
    requests = [
        "llama-3-8b",
        "llama-3-8b:support-bot",
        "llama-3-8b:support-bot@1.10.0",
        "llama-3-8b:support-bot",
        "llama-3-8b:legal-bot",
        "llama-3-8b:sql-bot@0.3.0",
        "llama-3-8b:support-bot",
        "llama-3-8b:flagship",
        "llama-3-8b:finance-bot",
        "mistral-7b:support-bot",
    ]
    rows = []
    for ref in requests:
        try:
            d = router.route(ref)
        except LabcoreError as error:
            rows.append((ref, "error", type(error).__name__, "", "", ""))
            continue
        hit = "-" if d.cache_hit is None else ("hit" if d.cache_hit else "miss")
        rows.append((ref, d.mode, d.adapter or "-", hit, ",".join(d.evicted) or "-", f"{d.total_latency_ms:.1f}"))
    print(_table(rows, ("request", "mode", "adapter", "cache", "evicted", "latency_ms")))
    print(f"   cache: {cache.hits} hits, {cache.misses} misses, evicted {cache.eviction_log}, "
          f"{cache.used_mb:g}/{cache.budget_mb:g} MiB used\n")

    plan = fleet_plan(tenant_adapters(40, vram_mb=size_mb))
    print(f"4. Fleet: {plan.tenants} tenants on $3.20/hr GPUs: dedicated {plan.dedicated_gpus} GPUs "
          f"(${plan.dedicated_monthly_usd:,.0f}/month) vs multi-LoRA {plan.multi_lora_gpus} GPU "
          f"(${plan.multi_lora_monthly_usd:,.0f}/month): {plan.savings_pct:g}% saved")


if __name__ == "__main__":
    main()
