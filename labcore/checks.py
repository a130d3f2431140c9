"""Check a learner's exercise answers at once, with a hint that names the likely mistake.

Each exercise has a pure ``grade_<thing>(answer, ...) -> Verdict`` and a one-line
``check_<thing>(answer, ...)`` that prints the verdict (``✓ ...`` or ``✗ ... hint``). The expected
value always comes from labcore itself (``labcore.sizing``, ``labcore.fleet``, ``labcore.sim``, ...),
so a checker can never disagree with the library it teaches. Known wrong answers (a forgotten factor
of two, MB for MiB, a fraction for a percentage, ...) get a specific hint; anything else gets the
formula. Every chapter's checkers live here, one marked section per chapter (01 .. 14); this module
imports the domain modules, and none of them imports it.

>>> grade_adapter_vram_mb(320).ok
True
>>> print(grade_adapter_vram_mb(160).message)
✗ 160 MiB is half the answer: each target gets two matrices, A (r x d) and B (d x r), so count 2·r·d parameters per target.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .adapter import Adapter, tenant_adapters
from .admission import AdmissionController
from .affinity import bounded_capacity
from .batching import break_even_utilisation, expected_distinct
from .cache import AdapterCache, FifoAdapterCache
from .errors import QueueFullError
from .fleet import fleet_plan
from .model_config import exact_adapter_mb, load_model_config, lora_params, target_dims
from .registry import AdapterRegistry
from .router import MultiLoRARouter
from .sim import nearest_rank, percentile, release_timeline, standard_fleet
from .sizing import MIB, adapter_vram_mb, gib_to_mb, gpu_memory_split
from .tiers import NVME, OBJECT_STORE, PCIE4_X16, Link
from .versions import parse_version

__all__ = [
    "Verdict",
    "ContractRun",
    "run_contract_suite",
    "count_contract_tests",
    "VERSION_KEY_PROBE",
    "EVICTION_EXERCISE",
    "grade_savings_pct",
    "check_savings_pct",
    "grade_monthly_bill_usd",
    "check_monthly_bill_usd",
    "grade_adapter_vram_mb",
    "check_adapter_vram_mb",
    "grade_adapters_that_fit",
    "check_adapters_that_fit",
    "grade_version_key",
    "check_version_key",
    "grade_releases_behind",
    "check_releases_behind",
    "grade_lru_evictions",
    "check_lru_evictions",
    "grade_miss_load_ms",
    "check_miss_load_ms",
    "grade_route_latency_ms",
    "check_route_latency_ms",
    "grade_cache_budget_mb",
    "check_cache_budget_mb",
    "grade_fleet_gpus",
    "check_fleet_gpus",
    "grade_savings_under_load_pct",
    "check_savings_under_load_pct",
    "grade_p99_ms",
    "check_p99_ms",
    "grade_pool_adapters",
    "check_pool_adapters",
    "grade_host_hit_ms",
    "check_host_hit_ms",
    "grade_cold_load_ms",
    "check_cold_load_ms",
    "grade_moved_fraction",
    "check_moved_fraction",
    "grade_bounded_capacity",
    "check_bounded_capacity",
    "grade_requests_before_judging",
    "check_requests_before_judging",
    "grade_sticky_share",
    "check_sticky_share",
    "grade_break_even_pct",
    "check_break_even_pct",
    "grade_expected_distinct",
    "check_expected_distinct",
    "grade_refused",
    "check_refused",
    "grade_admitted_after_finish",
    "check_admitted_after_finish",
    "grade_exact_adapter_mb",
    "check_exact_adapter_mb",
    "grade_peft_tensor_bytes",
    "check_peft_tensor_bytes",
]

Mistake = tuple[float, str]  # (the value that mistake produces, the hint)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of one check: whether the answer is right, and the line shown to the learner."""

    ok: bool
    message: str

    def __post_init__(self) -> None:
        if not self.message.startswith("✓" if self.ok else "✗"):
            raise ValueError(f"a verdict message starts with ✓ or ✗ to match ok={self.ok}, got {self.message!r}")


def _close(a: float, b: float, rel_tol: float) -> bool:
    return math.isclose(a, b, rel_tol=rel_tol, abs_tol=1e-9)


def _grade(answer: Any, expected: float, *, unit: str, what: str, mistakes: Sequence[Mistake],
           fallback: str, rel_tol: float = 0.005, integer: bool = False) -> Verdict:
    if answer is None or answer is Ellipsis:
        return Verdict(False, f"✗ Not answered yet: replace None with your answer, {what} ({unit}).")
    if isinstance(answer, bool) or not isinstance(answer, (int, float)) or math.isnan(answer):
        return Verdict(False, f"✗ Expected a number in {unit} for {what}, got {answer!r}.")
    shown = f"{answer:,g}"
    if _close(answer, expected, rel_tol):
        if integer and answer != int(answer):
            return Verdict(False, f"✗ {shown} is not a whole number: {what} is a count.")
        return Verdict(True, f"✓ Correct: {what} is {expected:,g} {unit}.")
    for value, hint in mistakes:
        if _close(answer, value, rel_tol):
            return Verdict(False, f"✗ {shown} {unit} {hint}")
    return Verdict(False, f"✗ {shown} {unit} is not it. {fallback}")


def _printer(grade: Callable[..., Verdict]) -> Callable[..., None]:
    def check(answer: Any, **kwargs: Any) -> None:
        print(grade(answer, **kwargs).message)

    name = grade.__name__.replace("grade_", "check_")
    check.__name__ = check.__qualname__ = name
    check.__doc__ = f"Print whether ``answer`` is right (see ``{grade.__name__}``); one line, with a hint if not."
    return check


# --- chapter 01: why_multi_lora -------------------------------------------------------------------


def _plan(tenants: int, gpu_hourly_usd: float) -> Any:
    return fleet_plan(tenant_adapters(tenants), gpu_hourly_usd=gpu_hourly_usd)


def grade_savings_pct(answer: Any, *, tenants: int = 40, gpu_hourly_usd: float = 3.20) -> Verdict:
    """Grade the percentage saved by multi-LoRA over one GPU per tenant (default: 40 tenants, 97.5%).

    >>> grade_savings_pct(0.975).message
    '✗ 0.975 % is a fraction; the question asks for a percentage (multiply by 100).'
    """
    plan = _plan(tenants, gpu_hourly_usd)
    expected = plan.savings_pct
    mistakes: list[Mistake] = [
        (expected / 100, "is a fraction; the question asks for a percentage (multiply by 100)."),
        (100 - expected, "is the share you still pay; savings are 100% minus that."),
        (plan.dedicated_gpus - plan.multi_lora_gpus, "is the number of GPUs saved, not the percentage."),
        (plan.dedicated_monthly_usd - plan.multi_lora_monthly_usd, "is the dollars saved per month; express "
                                                                    "it as a share of the dedicated bill."),
    ]
    return _grade(answer, expected, unit="%", what="the saving", mistakes=mistakes,
                  fallback="Savings = 1 − multi-LoRA bill / dedicated bill, as a percentage.", rel_tol=0.001)


def grade_monthly_bill_usd(answer: Any, *, gpus: int = 1, gpu_hourly_usd: float = 3.20,
                           hours_per_month: float = 730) -> Verdict:
    """Grade the monthly bill of ``gpus`` GPUs at ``gpu_hourly_usd`` (default: one H100, $2,336/month).

    >>> grade_monthly_bill_usd(2304).ok
    False
    """
    expected = gpus * gpu_hourly_usd * hours_per_month
    mistakes: list[Mistake] = [
        (gpus * gpu_hourly_usd * 24 * 30, f"uses 30-day months; the course uses {hours_per_month:g} hours per "
                                          "month (365 · 24 / 12)."),
        (gpus * gpu_hourly_usd, "is the hourly price; multiply by the hours in a month."),
        (gpus * gpu_hourly_usd * 24, "is one day; multiply by the hours in a month instead."),
        (gpus * gpu_hourly_usd * 8760, "is a year; divide by 12."),
    ]
    return _grade(answer, expected, unit="USD", what="the monthly bill", mistakes=mistakes,
                  fallback="Bill = GPUs · price per hour · hours per month.", rel_tol=0.001)


check_savings_pct = _printer(grade_savings_pct)
check_monthly_bill_usd = _printer(grade_monthly_bill_usd)


# --- chapter 02: adapter_is_a_delta ---------------------------------------------------------------


def grade_adapter_vram_mb(answer: Any, *, rank: int = 32, hidden: int = 8192, layers: int = 80,
                          targets: int = 4, bytes_per_param: float = 2) -> Verdict:
    """Grade the VRAM (MiB) of an adapter; by default r=32 on a 70B model (d=8192, 80 layers) on q,k,v,o.

    >>> grade_adapter_vram_mb(335.5).message.startswith("✗ 335.5 MiB is in MB")
    True
    """
    expected = adapter_vram_mb(rank, hidden, layers, targets, bytes_per_param)
    per_param = expected / bytes_per_param
    mistakes: list[Mistake] = [
        (expected / 2, "is half the answer: each target gets two matrices, A (r x d) and B (d x r), "
                       "so count 2·r·d parameters per target."),
        (expected * MIB / 1e6, "is in MB (10^6 bytes); the course counts VRAM in MiB (2^20 bytes)."),
        (per_param, f"counts parameters in millions, not bytes: multiply by {bytes_per_param:g} bytes per parameter."),
        (expected * 4 / bytes_per_param, f"assumes 4 bytes per parameter (fp32); this adapter is stored in "
                                         f"{bytes_per_param:g}-byte precision."),
        (expected / targets, f"covers one target module; the adapter targets {targets} per layer."),
        (expected / layers, f"is the size of one layer; multiply by all {layers} layers."),
        (expected * hidden, "multiplies by d twice: a LoRA's A and B are r x d and d x r, not d x d."),
    ]
    return _grade(answer, expected, unit="MiB", what="the adapter's VRAM", mistakes=mistakes,
                  fallback="Use layers · targets · 2 · r · d · bytes / 2^20.")


def grade_adapters_that_fit(answer: Any, *, pool_gb: float = 8, adapter_vram_mb: float = 320.0) -> Verdict:
    """Grade how many adapters of ``adapter_vram_mb`` MiB fit in a ``pool_gb`` GiB adapter pool (default 25).

    >>> grade_adapters_that_fit(26).message
    '✗ 26 adapters rounds up: a part of an adapter cannot be loaded, so round down (floor).'
    """
    expected = gpu_memory_split(pool_gb, base_vram_gb=0, kv_cache_gb=0,
                                adapter_vram_mb=adapter_vram_mb).adapters_that_fit
    exact = gib_to_mb(pool_gb) / adapter_vram_mb
    mistakes: list[Mistake] = [
        (math.ceil(exact), "rounds up: a part of an adapter cannot be loaded, so round down (floor)."),
        (exact, "is a fraction of an adapter: round down to whole adapters."),
        (math.floor(pool_gb * 1000 / adapter_vram_mb), "uses 1000 MiB per GiB; a GiB is 1024 MiB."),
        (math.floor(pool_gb * 1e9 / (adapter_vram_mb * MIB)), "mixes decimal GB (10^9 bytes) with MiB; use GiB "
                                                              "and MiB (1 GiB = 1024 MiB)."),
    ]
    mistakes = [(v, h) for v, h in mistakes if not _close(v, expected, 1e-9)]
    return _grade(answer, expected, unit="adapters", what="the number of adapters that fit", mistakes=mistakes,
                  fallback=f"Divide the pool ({pool_gb:g} GiB = {gib_to_mb(pool_gb):g} MiB) by the adapter size and "
                           "round down.", rel_tol=1e-9, integer=True)


check_adapter_vram_mb = _printer(grade_adapter_vram_mb)
check_adapters_that_fit = _printer(grade_adapters_that_fit)


# --- chapter 03: versions_and_registry ------------------------------------------------------------


VERSION_KEY_PROBE: tuple[str, ...] = ("1.10.0", "1.9.0", "2.0.0", "1.2.10", "1.2.9", "0.10.1", "10.0.0", "1.2.0")


def grade_version_key(answer: Any, *, versions: Sequence[str] = VERSION_KEY_PROBE) -> Verdict:
    """Grade a sort key for versions: ``sorted(versions, key=answer)`` must be semver order.

    >>> grade_version_key(lambda v: tuple(int(p) for p in v.split("."))).ok
    True
    >>> print(grade_version_key(lambda v: v).message)
    ✗ Your key compares strings character by character, so '1.10.0' sorts before '1.9.0'. Split on '.' and compare the parts as ints.
    """
    if answer is None or answer is Ellipsis:
        return Verdict(False, "✗ Not answered yet: replace None with a function that takes '1.10.0' and returns a "
                              "sort key.")
    if not callable(answer):
        return Verdict(False, f"✗ Expected a function (a sort key), got {answer!r}.")
    expected = sorted(versions, key=parse_version)
    try:
        sample = answer(versions[0])
        if sample is None:
            return Verdict(False, "✗ Not answered yet: your key returns None; make it return something that "
                                  "sorts, e.g. a tuple.")
        got = sorted(versions, key=answer)
    except Exception as error:  # a learner's key may raise anything
        return Verdict(False, f"✗ Your key raised {type(error).__name__}: {error}. It must accept strings like "
                              "'1.10.0'.")
    if got == expected:
        return Verdict(True, f"✓ Correct: your key sorts {len(versions)} versions in semver order, "
                             f"{expected[0]} to {expected[-1]}.")
    if isinstance(sample, (list, tuple)) and sample and all(isinstance(p, str) for p in sample):
        return Verdict(False, "✗ Your key splits the version but keeps the parts as strings, so '10' < '9'. "
                              "Convert each part with int().")
    if isinstance(sample, str) or got == sorted(versions):
        return Verdict(False, "✗ Your key compares strings character by character, so '1.10.0' sorts before "
                              "'1.9.0'. Split on '.' and compare the parts as ints.")
    return Verdict(False, f"✗ Your key gives {got}, not semver order {expected}. Compare (major, minor, patch) as "
                          "a tuple of ints.")


check_version_key = _printer(grade_version_key)


def grade_releases_behind(answer: Any, *, minor_releases: int = 15) -> Verdict:
    """Grade how many releases a string-sorting router's "latest" trails after 1.0.0 .. 1.N.0 (default N=15: 6).

    >>> grade_releases_behind(6).ok
    True
    >>> print(grade_releases_behind(0).message)
    ✗ 0 releases is what semver gives; a string sort compares '1.15.0' and '1.9.0' character by character.
    """
    t = release_timeline(minor_releases)
    expected = t.releases_behind
    stuck = t.versions.index(t.string_latest[-1])
    mistakes: list[Mistake] = [
        (0, f"is what semver gives; a string sort compares '{t.versions[-1]}' and '1.9.0' character by character."),
        (expected + 1, f"counts {t.string_latest[-1]} itself; count the releases published after it."),
        (stuck, f"is the minor number of {t.string_latest[-1]}, not the releases after it."),
        (len(t.versions) - 1, "counts every release after 1.0.0; the string sort is right up to 1.9.0."),
    ]
    mistakes = [(v, h) for v, h in mistakes if v != expected]
    return _grade(answer, expected, unit="releases", what=f"the string sort's lag after {t.versions[-1]}",
                  mistakes=mistakes, rel_tol=1e-9, integer=True,
                  fallback=f"List 1.0.0 .. {t.versions[-1]}, take max() of the strings, and count the releases "
                           "published after it.")


check_releases_behind = _printer(grade_releases_behind)


# --- chapter 04: the_cache ------------------------------------------------------------------------


EVICTION_EXERCISE: tuple[str, ...] = ("a", "b", "a", "c", "b", "d")


def _evictions(cache_cls: Any, sequence: Sequence[str], slots: int) -> list[str]:
    cache = cache_cls(16.0 * slots, 8.0)
    for name in sequence:
        cache.access(Adapter(name, "1.0.0", "llama-3-8b", "sha256:1111", rank=16, vram_mb=16.0))
    return [key.split("@")[0] for key in cache.eviction_log]


def grade_lru_evictions(answer: Any, *, sequence: Sequence[str] = EVICTION_EXERCISE, slots: int = 2) -> Verdict:
    """Grade the adapters an LRU cache with room for ``slots`` evicts on ``sequence``, in order.

    >>> grade_lru_evictions(["b", "a", "c"]).ok
    True
    >>> print(grade_lru_evictions(["a", "b"]).message)
    ✗ ['a', 'b'] is what FIFO evicts: it ignores the hit on 'a'. LRU moves an adapter to the back of the line on every hit.
    """
    if answer is None or answer is Ellipsis:
        return Verdict(False, "✗ Not answered yet: replace None with the list of evicted adapters, e.g. ['x', 'y'].")
    if isinstance(answer, str) or not isinstance(answer, (list, tuple)):
        return Verdict(False, f"✗ Expected a list of adapter names such as ['x', 'y'], got {answer!r}.")
    got = [getattr(a, "name", str(a)).split("@")[0] for a in answer]
    expected = _evictions(AdapterCache, sequence, slots)
    if got == expected:
        return Verdict(True, f"✓ Correct: LRU evicts {expected}, least recently used first.")
    fifo = _evictions(FifoAdapterCache, sequence, slots)
    if got == fifo:
        first_hit = next(n for i, n in enumerate(sequence) if n in sequence[:i])
        return Verdict(False, f"✗ {got} is what FIFO evicts: it ignores the hit on {first_hit!r}. LRU moves an "
                              "adapter to the back of the line on every hit.")
    if sorted(got) == sorted(expected):
        return Verdict(False, "✗ Right adapters, wrong order: list them in the order they were evicted.")
    if len(got) != len(expected):
        return Verdict(False, f"✗ {got} has {len(got)} eviction(s); with room for {slots} there are {len(expected)}. "
                              "Count a miss that finds the cache full as one eviction.")
    return Verdict(False, f"✗ {got} is not it. Walk the sequence {list(sequence)} keeping the {slots} adapters in "
                          "order of last use; a miss evicts the one used longest ago.")


check_lru_evictions = _printer(grade_lru_evictions)


def grade_miss_load_ms(answer: Any, *, vram_mb: float = 16.0, transfer_mb_per_ms: float = 8.0) -> Verdict:
    """Grade the load time (ms) a cache miss pays for an adapter of ``vram_mb`` at ``transfer_mb_per_ms`` (2 ms).

    >>> print(grade_miss_load_ms(128).message)
    ✗ 128 ms multiplies size by bandwidth; time is size divided by bandwidth.
    """
    adapter = Adapter("a", "1.0.0", "llama-3-8b", "sha256:1111", rank=16, vram_mb=vram_mb)
    expected = AdapterCache(vram_mb, transfer_mb_per_ms).transfer_ms(adapter)
    mistakes: list[Mistake] = [
        (vram_mb * transfer_mb_per_ms, "multiplies size by bandwidth; time is size divided by bandwidth."),
        (transfer_mb_per_ms / vram_mb, "divides bandwidth by size; time is size (MiB) over bandwidth (MiB/ms)."),
        (expected * 1000, "is in microseconds; the question asks for milliseconds."),
        (expected / 1000, "is in seconds; the question asks for milliseconds."),
    ]
    return _grade(answer, expected, unit="ms", what="the load time of one miss", mistakes=mistakes,
                  fallback="Load time = adapter size (MiB) / host-to-device bandwidth (MiB per ms).", rel_tol=0.01)


check_miss_load_ms = _printer(grade_miss_load_ms)


# --- chapter 05: the_router -----------------------------------------------------------------------


def _routed_miss_ms(base_latency_ms: float, dynamic_overhead: float, adapter_vram_mb: float,
                    transfer_mb_per_ms: float) -> tuple[float, float, float]:
    """Route one cold dynamic request through a real router; return (total, overhead, load) in ms."""
    reg = AdapterRegistry()
    reg.register_base("llama-3-8b", "sha256:check")
    reg.register(Adapter("support-bot", "2.1.0", "llama-3-8b", "sha256:check", rank=16, vram_mb=adapter_vram_mb))
    router = MultiLoRARouter(reg, AdapterCache(max(adapter_vram_mb, 1024.0), transfer_mb_per_ms), "llama-3-8b",
                             base_latency_ms=base_latency_ms, dynamic_overhead=dynamic_overhead)
    d = router.route("llama-3-8b:support-bot@2.1.0")
    return d.total_latency_ms, d.overhead_ms, d.adapter_load_ms


def grade_route_latency_ms(answer: Any, *, base_latency_ms: float = 50.0, dynamic_overhead: float = 0.08,
                           adapter_vram_mb: float = 64.0, transfer_mb_per_ms: float = 8.0) -> Verdict:
    """Grade the latency (ms) of a dynamic request whose adapter is not resident (default: 62 ms).

    >>> grade_route_latency_ms(54).message
    '✗ 54 ms leaves out the adapter load: a miss also copies 64 MiB at 8 MiB/ms.'
    """
    expected, overhead, load = _routed_miss_ms(base_latency_ms, dynamic_overhead, adapter_vram_mb,
                                               transfer_mb_per_ms)
    mistakes: list[Mistake] = [
        (expected - load, f"leaves out the adapter load: a miss also copies {adapter_vram_mb:g} MiB at "
                          f"{transfer_mb_per_ms:g} MiB/ms."),
        (expected - overhead, f"leaves out the LoRA overhead: a dynamic request costs base × (1 + "
                              f"{dynamic_overhead:g})."),
        (base_latency_ms, "is the base latency alone; add the LoRA overhead and the load of a miss."),
        ((base_latency_ms + load) * (1 + dynamic_overhead), "applies the overhead to the load as well; the overhead "
                                                           "multiplies the base compute only."),
        (base_latency_ms * (1 + 100 * dynamic_overhead) + load, "uses the overhead as a whole number; "
                                                                f"{100 * dynamic_overhead:g}% is {dynamic_overhead:g}."),
        (base_latency_ms * (1 + dynamic_overhead) + adapter_vram_mb * transfer_mb_per_ms,
         "multiplies size by bandwidth; the load time is size / bandwidth."),
    ]
    return _grade(answer, expected, unit="ms", what="the latency of the miss", mistakes=mistakes,
                  fallback="total = base × (1 + overhead) + adapter size / bandwidth.", rel_tol=0.001)


def grade_cache_budget_mb(answer: Any, *, tenants: int = 41, adapter_vram_mb: float = 16.0) -> Verdict:
    """Grade the smallest adapter-cache budget (MiB) that holds every tenant's adapter (default: 656 MiB).

    >>> grade_cache_budget_mb(640).message
    '✗ 640 MiB holds 40 adapters: the 41st still evicts one on every swap, and LRU thrashes.'
    """
    expected = tenants * adapter_vram_mb
    mistakes: list[Mistake] = [
        ((tenants - 1) * adapter_vram_mb, f"holds {tenants - 1} adapters: the {tenants}st still evicts one on every "
                                          "swap, and LRU thrashes." if tenants % 10 == 1 else
         f"holds {tenants - 1} adapters: one tenant too few, so LRU thrashes."),
        (expected * MIB / 1e6, "is in MB (10^6 bytes); the budget is in MiB (2^20 bytes)."),
        (expected / 1024, "is in GiB; the budget is asked in MiB."),
        (tenants, "counts adapters; multiply by each adapter's size in MiB."),
    ]
    return _grade(answer, expected, unit="MiB", what="the smallest budget", mistakes=mistakes,
                  fallback=f"Every one of the {tenants} working adapters must stay resident: tenants × adapter size.",
                  rel_tol=0.001)


check_route_latency_ms = _printer(grade_route_latency_ms)
check_cache_budget_mb = _printer(grade_cache_budget_mb)


# --- chapter 06: fleet_plan -----------------------------------------------------------------------


def _loaded_plan(tenants: int, tenant_qps: float, gpu_qps: float) -> Any:
    return fleet_plan(tenant_adapters(tenants), tenant_qps=tenant_qps, gpu_qps=gpu_qps)


def grade_fleet_gpus(answer: Any, *, tenants: int = 40, tenant_qps: float = 1.2, gpu_qps: float = 20.0) -> Verdict:
    """Grade the multi-LoRA GPU count when load, not memory, sizes the fleet (default: 3 GPUs).

    >>> grade_fleet_gpus(2.4).message
    '✗ 2.4 GPUs is a fraction of a GPU: round up, a GPU is rented whole.'
    """
    plan = _loaded_plan(tenants, tenant_qps, gpu_qps)
    expected = plan.multi_lora_gpus
    exact = tenants * tenant_qps / gpu_qps
    mistakes: list[Mistake] = [
        (exact, "is a fraction of a GPU: round up, a GPU is rented whole."),
        (math.floor(exact), "rounds down: that many GPUs cannot carry the traffic; round up."),
        (plan.memory_bound_gpus, f"is what memory alone needs; {tenants} tenants × {tenant_qps:g} req/s is "
                                 f"{tenants * tenant_qps:g} req/s."),
        (plan.dedicated_gpus, "is the dedicated fleet (one GPU per tenant); the shared fleet pools the load."),
    ]
    mistakes = [(v, h) for v, h in mistakes if not _close(v, expected, 1e-9)]
    return _grade(answer, expected, unit="GPUs", what="the multi-LoRA GPU count", mistakes=mistakes,
                  fallback="GPUs = max(memory GPUs, ceil(total req/s / req/s per GPU)).", rel_tol=1e-9, integer=True)


def grade_savings_under_load_pct(answer: Any, *, tenants: int = 40, tenant_qps: float = 1.2,
                                 gpu_qps: float = 20.0) -> Verdict:
    """Grade the saving (%) when every tenant sends ``tenant_qps`` (default: 92.5%).

    >>> grade_savings_under_load_pct(97.5).message
    '✗ 97.5 % is the memory-only headline; under this load the shared fleet needs 3 GPUs.'
    """
    plan = _loaded_plan(tenants, tenant_qps, gpu_qps)
    expected = plan.savings_pct
    exact_gpus = tenants * tenant_qps / gpu_qps
    memory_only = _loaded_plan(tenants, 0.0, gpu_qps).savings_pct
    mistakes: list[Mistake] = [
        (memory_only, f"is the memory-only headline; under this load the shared fleet needs "
                      f"{plan.multi_lora_gpus} GPUs."),
        (expected / 100, "is a fraction; the question asks for a percentage (multiply by 100)."),
        (100 * (1 - exact_gpus / plan.dedicated_gpus), "uses a fraction of a GPU; round the shared fleet up to "
                                                       "whole GPUs first."),
        (100 - expected, "is the share you still pay; savings are 100% minus that."),
    ]
    mistakes = [(v, h) for v, h in mistakes if not _close(v, expected, 1e-9)]
    return _grade(answer, expected, unit="%", what="the saving under load", mistakes=mistakes,
                  fallback="Savings = 1 − multi-LoRA GPUs / dedicated GPUs, as a percentage.", rel_tol=0.001)


check_fleet_gpus = _printer(grade_fleet_gpus)
check_savings_under_load_pct = _printer(grade_savings_under_load_pct)


# --- chapter 07: do_the_lab -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ContractRun:
    """The summary of one run of the contract suite: counts, and the first failure's ``TODO(lab)`` hint."""

    lab_module: str
    select: str | None
    passed: int
    failed: int
    errors: int
    deselected: int
    first_failure: str | None

    def __str__(self) -> str:
        counts = f"{self.passed} passed, {self.failed} failed"
        if self.errors:
            counts += f", {self.errors} errors"
        where = f" (-k {self.select})" if self.select else ""
        return f"LAB_MODULE={self.lab_module}{where}: {counts}"


def _repo_root(start: Any = None) -> Any:
    from pathlib import Path

    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "tests" / "contract").is_dir():
            return folder
    raise FileNotFoundError(f"no tests/contract folder in {here} or above: run this from inside the course repository")


def _run_pytest(args: list[str], root: Any, lab_module: str | None = None) -> str:
    """Run ``pytest args`` in this process from ``root`` and return what it printed.

    In-process, so it also works where there are no subprocesses (JupyterLite's Pyodide kernel).
    The contract modules and the lab module under test are imported afresh on every run, so a second
    run sees the ``LAB_MODULE`` it is given and a learner's edits to ``lab/mine``; the working
    directory, ``sys.path`` and ``LAB_MODULE`` are restored afterwards.

    >>> "no tests collected" in _run_pytest(["tests/contract", "--collect-only", "-q", "-k", "no_such_test"],
    ...                                     _repo_root())
    True
    """
    import contextlib
    import io
    import os
    import sys

    import pytest

    def forget() -> None:
        fresh = ("tests.contract", *([lab_module] if lab_module and lab_module != "labcore" else []))
        for name in [m for m in sys.modules if any(m == f or m.startswith(f + ".") for f in fresh)]:
            del sys.modules[name]

    saved_cwd, saved_path, saved_env = os.getcwd(), list(sys.path), os.environ.get("LAB_MODULE")
    out = io.StringIO()
    forget()
    try:
        os.chdir(root)
        sys.path.insert(0, str(root))
        if lab_module is not None:
            os.environ["LAB_MODULE"] = lab_module
        with contextlib.redirect_stdout(out):
            pytest.main([*args, "-p", "no:cacheprovider", "-o", "addopts=", "--capture=sys"])
    finally:
        os.chdir(saved_cwd)
        sys.path[:] = saved_path
        if saved_env is None:
            os.environ.pop("LAB_MODULE", None)
        else:
            os.environ["LAB_MODULE"] = saved_env
        forget()
    return out.getvalue()


def run_contract_suite(lab_module: str = "labcore", *, select: str | None = None, root: Any = None,
                       timeout_s: float | None = None) -> ContractRun:
    """Run ``pytest tests/contract`` against ``lab_module`` (the ``LAB_MODULE`` switch) and summarise it.

    ``select`` is a pytest ``-k`` expression. Only counts and the first failure's hint line are kept
    (no timings, no absolute paths), so the summary is the same on every machine. The suite runs in
    this process (see :func:`_run_pytest`); ``timeout_s`` is accepted for older callers and unused.

    >>> run_contract_suite("labcore", select="no_such_test").passed
    0
    """
    import re

    args = ["tests/contract", "-q", "--tb=line", "-p", "no:randomly"]
    if select:
        args += ["-k", select]
    out = _run_pytest(args, _repo_root(root), lab_module)
    counts = {k: 0 for k in ("passed", "failed", "error", "deselected")}
    summary = [line for line in out.splitlines() if re.search(r"\d+ (passed|failed|deselected|error)", line)]
    for n, word in re.findall(r"(\d+) (passed|failed|deselected|errors?)", summary[-1] if summary else ""):
        counts["error" if word.startswith("error") else word] = int(n)
    hint = None
    for line in out.splitlines():
        found = re.search(r":\d+: (\w+(?:Error|Exception)): (.*)$", line)
        if found:
            hint = f"{found[1]}: {found[2]}"
            break
    return ContractRun(lab_module, select, counts["passed"], counts["failed"], counts["error"], counts["deselected"],
                       hint)


def count_contract_tests(*, root: Any = None, timeout_s: float | None = None) -> int:
    """Return how many tests ``pytest tests/contract`` collects (without running them), in this process.

    >>> count_contract_tests() > 0
    True
    """
    out = _run_pytest(["tests/contract", "--collect-only", "-q"], _repo_root(root))
    return sum(1 for line in out.splitlines() if line.startswith("tests/contract/") and "::" in line)


# --- chapter 08: serving_simulator ----------------------------------------------------------------


def grade_p99_ms(answer: object, *, requests: int = 200, slow: int = 3, fast_ms: float = 42.0,
                 slow_ms: float = 110.0) -> Verdict:
    """Grade the nearest-rank p99 of ``requests`` latencies, ``slow`` of them at ``slow_ms`` (default 110 ms).

    >>> grade_p99_ms(42).message
    '✗ 42 ms would be right with at most 2 slow requests: 1% of 200 is 2, and 3 are slow, so rank 198 is slow.'
    """
    values = [fast_ms] * (requests - slow) + [slow_ms] * slow
    expected = percentile(values, 99)
    allowed = requests - nearest_rank(99, requests)
    mean = math.fsum(values) / requests
    other = fast_ms if expected == slow_ms else slow_ms
    mistakes = [
        (other, f"would be right with at most {allowed} slow requests: 1% of {requests} is {allowed}, and "
                f"{slow} are slow, so rank {nearest_rank(99, requests)} is {'slow' if expected == slow_ms else 'fast'}."),
        (mean, "is the mean; a percentile is one of the observed latencies, not an average."),
    ]
    return _grade(answer, expected, unit="ms", what="the p99", mistakes=mistakes,
                  fallback=f"Sort the {requests} latencies and take the one at rank ceil(0.99 x {requests}).")


def grade_pool_adapters(answer: object, *, tenants: int = 41, adapter_mb: float = 16.0) -> Verdict:
    """Grade how many adapters a pool must hold so ``tenants`` tenants never evict each other (default 41).

    >>> grade_pool_adapters(656).message
    '✗ 656 adapters is the pool in MiB; the question asks for a count of 16 MiB adapters.'
    """
    mistakes = [
        (tenants - 1, "is the pool before the join: it is exactly one adapter short once the new tenant sends traffic."),
        (tenants * adapter_mb, f"is the pool in MiB; the question asks for a count of {adapter_mb:g} MiB adapters."),
    ]
    return _grade(answer, tenants, unit="adapters", what="the smallest pool that never evicts", mistakes=mistakes,
                  fallback="In steady state LRU never evicts when every tenant's adapter fits at once.",
                  integer=True)


check_p99_ms = _printer(grade_p99_ms)
check_pool_adapters = _printer(grade_pool_adapters)


# --- chapter 09: spill_tier -----------------------------------------------------------------------


def grade_host_hit_ms(answer: object, *, size_mb: float = 160.0, pcie: Link = PCIE4_X16) -> Verdict:
    """Grade the load time of a ``size_mb`` adapter found in host RAM: one copy over ``pcie`` (default 6.81 ms).

    >>> grade_host_hit_ms(6.4).message
    '✗ 6.4 ms reads MiB as MB and drops the fixed cost: 160 MiB is 167.8 MB, and every copy pays 0.1 ms to start.'
    """
    expected = pcie.transfer_ms(size_mb)
    mb_as_decimal = size_mb / (pcie.gb_per_s * 1000) * 1000
    mistakes = [
        (mb_as_decimal, f"reads MiB as MB and drops the fixed cost: {size_mb:g} MiB is {size_mb * MIB / 1e6:.1f} MB, "
                        f"and every copy pays {pcie.overhead_ms:g} ms to start."),
        (mb_as_decimal + pcie.overhead_ms, f"reads MiB as MB: {size_mb:g} MiB is {size_mb * MIB / 1e6:.1f} MB."),
        (expected - pcie.overhead_ms, f"forgets the fixed cost of {pcie.overhead_ms:g} ms per copy."),
        (expected + OBJECT_STORE.transfer_ms(size_mb), "adds a storage fetch; a host hit needs only the PCIe copy."),
    ]
    return _grade(answer, expected, unit="ms", what="the host-hit load time", mistakes=mistakes,
                  fallback=f"overhead + size / bandwidth: {pcie.overhead_ms:g} ms + {size_mb:g} MiB / {pcie.gb_per_s:g} GB/s.",
                  rel_tol=0.01)


def grade_cold_load_ms(answer: object, *, size_mb: float = 160.0, storage: Link = NVME,
                       pcie: Link = PCIE4_X16) -> Verdict:
    """Grade the load time of a ``size_mb`` adapter in neither tier: fetch from ``storage``, then copy (default NVMe).

    >>> grade_cold_load_ms(57.9).message
    '✗ 57.9 ms is the fetch alone; the adapter must then cross PCIe to the GPU too.'
    """
    expected = storage.transfer_ms(size_mb) + pcie.transfer_ms(size_mb)
    fetch = storage.transfer_ms(size_mb)
    mistakes = [
        (round(fetch, 1), "is the fetch alone; the adapter must then cross PCIe to the GPU too."),
        (fetch, "is the fetch alone; the adapter must then cross PCIe to the GPU too."),
        (pcie.transfer_ms(size_mb), "is the PCIe copy alone: a host hit. This adapter is in neither tier."),
        (expected - storage.overhead_ms - pcie.overhead_ms, "leaves out the two fixed costs (open/parse, copy start)."),
    ]
    return _grade(answer, expected, unit="ms", what="the cold load time", mistakes=mistakes,
                  fallback="Add both hops: storage overhead + size / storage bandwidth, then the PCIe copy.",
                  rel_tol=0.01)


check_host_hit_ms = _printer(grade_host_hit_ms)
check_cold_load_ms = _printer(grade_cold_load_ms)


# --- chapter 10: affinity_routing -----------------------------------------------------------------


def grade_moved_fraction(answer: object, *, before: int = 4) -> Verdict:
    """Grade the share of adapters rendezvous hashing moves when ``before`` replicas become ``before + 1``.

    >>> grade_moved_fraction(0.8).message
    '✗ 0.8 fraction is what hash mod R moves; rendezvous only moves the keys the new replica now wins.'
    """
    expected = 1 / (before + 1)
    mistakes = [
        (before / (before + 1), "is what hash mod R moves; rendezvous only moves the keys the new replica now wins."),
        (1 / before, f"is 1/R; after the change there are {before + 1} replicas, and each new key-owner is "
                     f"equally likely to be any of them."),
        (100 / (before + 1), "is a percentage; the question asks for a fraction between 0 and 1."),
    ]
    return _grade(answer, expected, unit="fraction", what=f"the share moved from {before} to {before + 1} replicas",
                  mistakes=mistakes, fallback="A key moves only if the new replica scores highest for it.",
                  rel_tol=0.05)


def grade_bounded_capacity(answer: object, *, total_in_flight: int = 40, replicas: int = 4,
                           load_factor: float = 1.25) -> Verdict:
    """Grade the bounded-load cap: how many requests in flight one replica may hold (default 13).

    >>> grade_bounded_capacity(12.8125).message
    '✗ 12.8125 requests is not a whole number: a replica holds whole requests, so round up (ceil).'
    """
    exact = load_factor * (total_in_flight + 1) / replicas
    expected = bounded_capacity(total_in_flight, replicas, load_factor)
    mistakes = [
        (exact, "is not a whole number: a replica holds whole requests, so round up (ceil)."),
        (math.floor(exact), "rounds down; the cap rounds up so the bound never starves the fleet."),
        (total_in_flight / replicas, "is the mean load; the bound allows c times the mean."),
        (load_factor * total_in_flight / replicas, "forgets the arriving request: use L + 1."),
    ]
    mistakes = [(v, h) for v, h in mistakes if v != expected]
    return _grade(answer, expected, unit="requests", what="the per-replica cap", mistakes=mistakes,
                  fallback="cap = ceil(c × (L + 1) / R).", rel_tol=1e-9, integer=True)


check_moved_fraction = _printer(grade_moved_fraction)
check_bounded_capacity = _printer(grade_bounded_capacity)


# --- chapter 11: canary ---------------------------------------------------------------------------


def grade_requests_before_judging(answer: object, *, min_requests: int = 200, fraction: float = 0.05) -> Verdict:
    """Grade how many tenant requests it takes, on average, before the candidate has ``min_requests``.

    >>> grade_requests_before_judging(200).message
    '✗ 200 requests is what the candidate needs; only 5% of the traffic reaches it, so divide by 0.05.'
    """
    expected = min_requests / fraction
    mistakes = [
        (min_requests, f"is what the candidate needs; only {fraction:.0%} of the traffic reaches it, so divide by "
                       f"{fraction:g}."),
        (min_requests * fraction, f"multiplies by the fraction; the candidate sees {fraction:.0%} of the traffic, "
                                  "so the total must be larger, not smaller."),
        (min_requests / (1 - fraction), "divides by the stable share; the candidate's share is the canary fraction."),
    ]
    return _grade(answer, expected, unit="requests", what="the tenant requests needed", mistakes=mistakes,
                  fallback="total requests × canary fraction = candidate requests.", rel_tol=0.01)


def grade_sticky_share(answer: object, *, before: float = 0.05, after: float = 0.25) -> Verdict:
    """Grade which share of the keys on the candidate at ``before`` are still on it at ``after`` (all: 1.0).

    >>> grade_sticky_share(0.25).message
    '✗ 0.25 fraction is what a fresh random draw would give; the split compares a fixed hash with the fraction.'
    """
    mistakes = [
        (after, "is what a fresh random draw would give; the split compares a fixed hash with the fraction."),
        (before / after, "is the old canary's share of the new one; the question asks how many old keys stay."),
        (100.0, "is a percentage; the question asks for a fraction between 0 and 1."),
    ]
    return _grade(answer, 1.0, unit="fraction", what="the share that stays on the candidate", mistakes=mistakes,
                  fallback="A key is on the candidate when hash(key) < fraction; raising the fraction keeps it below.",
                  rel_tol=1e-9)


check_requests_before_judging = _printer(grade_requests_before_judging)
check_sticky_share = _printer(grade_sticky_share)


# --- chapter 12: batch_overhead -------------------------------------------------------------------


def grade_break_even_pct(answer: object, *, overhead: float = 0.10) -> Verdict:
    """Grade the utilisation (%) above which a merged GPU beats dynamic serving at ``overhead``.

    >>> grade_break_even_pct(90).message
    '✗ 90 % is 1 − overhead; dynamic serving needs (1 + overhead) GPU-time per unit of work, so use 1 / (1 + overhead).'
    """
    expected = 100 * break_even_utilisation(overhead)
    mistakes = [
        (100 * (1 - overhead), "is 1 − overhead; dynamic serving needs (1 + overhead) GPU-time per unit of work, "
                               "so use 1 / (1 + overhead)."),
        (expected / 100, "is a fraction; the question asks for a percentage (multiply by 100)."),
        (100 * (1 + overhead), "is the dynamic cost factor; the break-even is its inverse."),
    ]
    return _grade(answer, expected, unit="%", what="the break-even utilisation", mistakes=mistakes,
                  fallback="Merged wins when utilisation × (1 + overhead) ≥ 1.", rel_tol=0.002)


def grade_expected_distinct(answer: object, *, batch_size: int = 4, tenants: int = 2) -> Verdict:
    """Grade the expected distinct adapters in a batch of ``batch_size`` over ``tenants`` equally popular ones.

    >>> grade_expected_distinct(1.875).ok
    True
    """
    expected = expected_distinct(batch_size, [1.0 / tenants] * tenants)
    mistakes = [
        (float(min(batch_size, tenants)), "assumes every tenant always appears; each one is missing with "
                                          f"probability (1 − 1/{tenants})^{batch_size}."),
        (float(batch_size), "counts requests, not distinct adapters."),
        (tenants * (1 / tenants) ** batch_size, "is the chance of an adapter filling the whole batch; use "
                                                "1 − (1 − p)^B per adapter."),
    ]
    return _grade(answer, expected, unit="adapters", what="the expected distinct adapters", mistakes=mistakes,
                  fallback="E[distinct] = Σ 1 − (1 − p_i)^B.", rel_tol=0.005)


check_break_even_pct = _printer(grade_break_even_pct)
check_expected_distinct = _printer(grade_expected_distinct)


# --- chapter 13: inflight_admission ---------------------------------------------------------------


def _burst(slots: int, max_queue: int, arrivals: int) -> tuple[int, int, int]:
    """Admitted at once, queued and refused when ``arrivals`` distinct tenants arrive and nobody finishes."""
    gate = AdmissionController(standard_fleet(arrivals, budget_mb=16.0 * slots), max_queue=max_queue)
    refused = 0
    for i in range(1, arrivals + 1):
        try:
            gate.start(f"llama-3-8b:tenant-{i:02d}")
        except QueueFullError:
            refused += 1
    return gate.admitted_now, gate.queued, refused


def grade_refused(answer: object, *, slots: int = 2, max_queue: int = 2, arrivals: int = 5) -> Verdict:
    """Grade how many of ``arrivals`` distinct-tenant requests are refused when nobody finishes (default 1).

    >>> grade_refused(3).message
    '✗ 3 requests forgets the queue: 2 requests can wait for a finish instead of being refused.'
    """
    now, queued, refused = _burst(slots, max_queue, arrivals)
    mistakes = [
        (arrivals - slots, f"forgets the queue: {max_queue} requests can wait for a finish instead of being refused."),
        (0, f"lets the queue grow past its bound of {max_queue}: the {arrivals}th request finds it full."),
    ]
    return _grade(answer, refused, unit="requests", what="the number refused", mistakes=mistakes,
                  fallback=f"{slots} fit at once (every resident is then pinned), {max_queue} may wait, the rest are refused.",
                  integer=True)


def grade_admitted_after_finish(answer: object, *, slots: int = 2, max_queue: int = 2, arrivals: int = 4) -> Verdict:
    """Grade how many waiting requests one finish admits when every waiter needs its own slot (default 1).

    >>> grade_admitted_after_finish(2).message
    '✗ 2 requests frees more than one finish can: one 16 MiB slot comes free, and the second waiter needs its own.'
    """
    gate = AdmissionController(standard_fleet(arrivals, budget_mb=16.0 * slots), max_queue=max_queue)
    first = [gate.start(f"llama-3-8b:tenant-{i:02d}") for i in range(1, arrivals + 1)][0]
    expected = len(gate.finish(first.ticket))
    mistakes = [
        (max_queue, "frees more than one finish can: one 16 MiB slot comes free, and the second waiter needs its own."),
        (0, "keeps the slot pinned; a finished request releases its pin, so its adapter becomes evictable."),
    ]
    return _grade(answer, expected, unit="requests", what="the number admitted by one finish", mistakes=mistakes,
                  fallback="A finish unpins one adapter; FIFO admits waiters while each one fits.", integer=True)


check_refused = _printer(grade_refused)
check_admitted_after_finish = _printer(grade_admitted_after_finish)


# --- chapter 14: real_stack -----------------------------------------------------------------------


def grade_exact_adapter_mb(answer: Any, *, model: str = "llama-3-8b", rank: int = 16,
                           targets: Sequence[str] = ("q_proj", "k_proj", "v_proj", "o_proj"),
                           bytes_per_param: int = 2) -> Verdict:
    """Grade the exact size (MiB) of an adapter from the model's config.json; default Llama-3-8B r=16 q,k,v,o = 26.

    >>> grade_exact_adapter_mb(26).ok
    True
    >>> print(grade_exact_adapter_mb(32).message)
    ✗ 32 MiB is the naive formula: under grouped-query attention k and v map 4096 features to only 1024, so use r·(in + out) per projection.
    """
    cfg = load_model_config(model)
    expected = exact_adapter_mb(cfg, rank, targets, bytes=bytes_per_param)
    naive = adapter_vram_mb(rank, cfg.hidden_size, cfg.num_hidden_layers, len(targets), bytes_per_param)
    k_in, k_out = target_dims(cfg, "k_proj")
    mistakes: list[Mistake] = [
        (naive, f"is the naive formula: under grouped-query attention k and v map {k_in} features to only "
                f"{k_out}, so use r·(in + out) per projection."),
        (expected * 4 / bytes_per_param, f"uses 4 bytes per parameter (PEFT's F32 file); the question asks for "
                                         f"{bytes_per_param:g}-byte serving precision."),
        (expected * MIB / 1e6, "is in MB (10^6 bytes); the course counts in MiB (2^20 bytes)."),
        (expected / bytes_per_param * MIB / 1e6, "counts parameters in millions, not bytes: multiply by "
                                                 f"{bytes_per_param:g} bytes per parameter."),
        (expected / cfg.num_hidden_layers, f"is one layer; multiply by all {cfg.num_hidden_layers} layers."),
    ]
    mistakes = [(v, h) for v, h in mistakes if not _close(v, expected, 1e-9)]
    return _grade(answer, expected, unit="MiB", what="the exact adapter size", mistakes=mistakes,
                  fallback="Sum r·(in + out) over the targets (q: 4096→4096, k and v: 4096→1024, o: 4096→4096), "
                           "times the layers, times 2 bytes, over 2^20.")


def grade_peft_tensor_bytes(answer: Any, *, model: str = "tiny-llama-demo", rank: int = 16,
                            targets: Sequence[str] = ("q_proj", "k_proj", "v_proj", "o_proj")) -> Verdict:
    """Grade the bytes of tensor data PEFT writes by default (F32) for an adapter; default: the demo model, 57,344.

    >>> print(grade_peft_tensor_bytes(28672).message)
    ✗ 28,672 bytes is bf16 (2 bytes per parameter); PEFT saves adapter tensors in F32 by default, 4 bytes each.
    """
    cfg = load_model_config(model)
    params = lora_params(cfg, rank, targets)
    expected = params * 4
    naive = rank * 2 * cfg.hidden_size * len(targets) * cfg.num_hidden_layers * 4
    mistakes: list[Mistake] = [
        (params * 2, "is bf16 (2 bytes per parameter); PEFT saves adapter tensors in F32 by default, 4 bytes each."),
        (params, "counts parameters, not bytes: multiply by 4 bytes (F32)."),
        (naive, "uses the naive d x d formula; k and v are narrower under grouped-query attention "
                "(read the shapes from the config: heads x head_dim)."),
        (expected / cfg.num_hidden_layers, f"is one layer; the model has {cfg.num_hidden_layers}."),
    ]
    mistakes = [(v, h) for i, (v, h) in enumerate(mistakes)
                if not _close(v, expected, 1e-9) and not any(_close(v, w, 1e-9) for w, _ in mistakes[:i])]
    return _grade(answer, expected, unit="bytes", what="the tensor data in adapter_model.safetensors",
                  mistakes=mistakes, rel_tol=1e-9, integer=True,
                  fallback="Sum r·(in + out) over targets and layers, times 4 bytes (F32); the 8-byte prefix and "
                           "the JSON header are not tensor data.")


check_exact_adapter_mb = _printer(grade_exact_adapter_mb)
check_peft_tensor_bytes = _printer(grade_peft_tensor_bytes)
