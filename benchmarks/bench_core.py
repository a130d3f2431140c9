"""Benchmark the hot paths against cachetools in the same run: python -m benchmarks.bench_core [--save]

Prints per-operation nanoseconds and the ratios the README quotes:
* an AdapterCache hit vs a cachetools.LRUCache hit (getsizeof = VRAM), aim <= 1.0x, limit 2x;
* a routed hit (MultiLoRARouter.route) vs the same cachetools hit, aim <= 4x, limit 15x;
* O(1): the same operations with 10 and with 100,000 resident adapters, limit 1.5x.
Machines here are noisy, so each figure is the best of several repeats and only ratios matter.
"""

from __future__ import annotations

import argparse
import timeit

import cachetools

from benchmarks.results import Row, add_save_flag, save_if_asked
from labcore import AdapterCache, AdapterRegistry, MultiLoRARouter, tenant_adapters

BASE, DIGEST = "llama-3-8b", "sha256:bench"


def _setup(resident: int) -> dict[str, object]:
    """Build a cachetools peer, an AdapterCache and a router, each holding ``resident`` adapters; return hit thunks."""
    adapters = tenant_adapters(resident, vram_mb=1.0, base_digest=DIGEST)
    hot = adapters[resident // 2]

    peer = cachetools.LRUCache(maxsize=float(resident), getsizeof=lambda a: a.vram_mb)
    for adapter in adapters:
        peer[adapter.key] = adapter
    ours = AdapterCache(float(resident), 8.0)
    for adapter in adapters:
        ours.access(adapter)
    registry = AdapterRegistry()
    registry.register_base(BASE, DIGEST)
    for adapter in adapters:
        registry.register(adapter)
    router = MultiLoRARouter(
        registry, AdapterCache(float(resident), 8.0), BASE, base_latency_ms=40.0, dynamic_overhead=0.05
    )
    for adapter in adapters:
        router.route(f"{BASE}:{adapter.name}")
    ref = f"{BASE}:{hot.name}"
    assert ours.access(hot).hit and router.route(ref).cache_hit  # we are timing hits

    key, access, route = hot.key, ours.access, router.route
    return {
        "cachetools_hit_ns": lambda: peer[key],
        "cache_hit_ns": lambda: access(hot),
        "route_hit_ns": lambda: route(ref),
    }


def measure(sizes: tuple[int, ...], *, number: int, repeat: int) -> dict[int, dict[str, float]]:
    """Return the best ns per hit for every operation and size, timing them interleaved (noise hits all alike)."""
    thunks = {size: _setup(size) for size in sizes}
    best = {size: {name: float("inf") for name in ops} for size, ops in thunks.items()}
    for _ in range(repeat):
        for size, ops in thunks.items():
            for name, op in ops.items():
                ns = timeit.timeit(op, number=number) / number * 1e9
                best[size][name] = min(best[size][name], ns)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--number", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=7)
    add_save_flag(parser)
    args = parser.parse_args()
    results = measure((10, 100_000), number=args.number, repeat=args.repeat)
    small, large = results[10], results[100_000]
    head = f"per hit (best of {args.repeat})"
    print(f"{head:<34}{'10 resident':>14}{'100,000 resident':>18}{'large/small':>13}")
    for name, label in [
        ("cachetools_hit_ns", "cachetools.LRUCache hit"),
        ("cache_hit_ns", "AdapterCache.access hit"),
        ("route_hit_ns", "MultiLoRARouter.route hit"),
    ]:
        print(f"{label:<34}{small[name]:>11.0f} ns{large[name]:>15.0f} ns{large[name] / small[name]:>12.2f}x")
    print()
    for size, m in (("10", small), ("100,000", large)):
        cache_ratio = m["cache_hit_ns"] / m["cachetools_hit_ns"]
        print(
            f"ratios at {size} resident: cache hit / cachetools hit = {cache_ratio:.2f}x "
            f"(aim 1.0x, limit 2x); routed hit / cachetools hit = {m['route_hit_ns'] / m['cachetools_hit_ns']:.2f}x "
            f"(aim 4x, limit 15x)"
        )
    save_if_asked(
        args,
        "bench_core",
        rows(small, large),
        measure=f"a hit, interleaved rounds, best of {args.repeat} x {args.number:,}",
    )


def rows(small: dict[str, float], large: dict[str, float]) -> list[Row]:
    """Return the README's rows: each hit against a cachetools hit, and 100,000 resident against 10."""
    peer = "cachetools.LRUCache hit"
    out = []
    for name, label, goal in (
        ("cache_hit_ns", "AdapterCache.access hit", "aim <= 1x"),
        ("route_hit_ns", "MultiLoRARouter.route hit", "aim <= 4x"),
    ):
        out += [
            Row(
                f"{label}, {n} resident",
                m[name],
                "ns",
                peer=f"{peer}, {n} resident",
                peer_result=m["cachetools_hit_ns"],
                goal=goal,
            )
            for n, m in (("10", small), ("100,000", large))
        ]
    out += [
        Row(
            f"{label}, 100,000 resident",
            large[name],
            "ns",
            peer="the same, 10 resident",
            peer_result=small[name],
            goal="O(1): limit 1.5x",
        )
        for name, label in (("cache_hit_ns", "AdapterCache.access hit"), ("route_hit_ns", "MultiLoRARouter.route hit"))
    ]
    return out


if __name__ == "__main__":
    main()
