"""Chapter 16's runs: one customer's day on one replica, and the design problem of its exercise.

:data:`CAPSTONE` is the customer the chapter follows from one request to the fleet bill. :data:`CAPSTONE_DESIGN`
is Exercise 16.1: a named tenant mix on a named GPU, a p99 target and a monthly budget;
:func:`evaluate_design` runs a learner's design (the KV-cache split, merged or dynamic per tenant class,
the shared replicas) through the memory split, the fleet plan and the simulator, and says which
constraint fails and why.

>>> CAPSTONE.tenants, CAPSTONE["gpu"]
(40, 'H100-80GB')
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..._validate import choice, count, distinct, instance, number, text
from ...adapter import Adapter
from ...capacity import COURSE_CONTEXT_TOKENS, DYNAMIC_OVERHEAD, TEACHING, ServingAssumptions, memory_split
from ...fleet import GPU_QPS, fleet_plan
from ...model_config import exact_adapter_mb
from ..replay import simulate, single_replica_router
from ..result import SimResult
from ..workload import Workload, make_trace
from ._by_name import ByName

__all__ = [
    "CapstoneScenario",
    "CAPSTONE",
    "capstone_day",
    "MERGED",
    "DYNAMIC",
    "MODES",
    "CONSTRAINTS",
    "TenantClass",
    "DesignScenario",
    "CAPSTONE_DESIGN",
    "CapstoneDesign",
    "DesignReport",
    "evaluate_design",
]

#: The router's latency on the bare base (ms), as every chapter's replica has it (labcore.sim.replay).
BASE_LATENCY_MS = 40.0
#: The base checkpoint the design's adapters are bound to (any digest: the plan only counts them).
DESIGN_DIGEST = "sha256:capstone-design"


@dataclass(frozen=True, slots=True)
class CapstoneScenario(ByName):
    """Chapter 16's customer: ``tenants`` support bots on ``model``, each an adapter of ``rank`` on ``targets``,
    each sending ``tenant_qps`` requests per second (Zipf-``zipf_s`` popularity), served on ``gpu`` GPUs at
    ``gpu_hourly_usd``; a day on one replica is ``requests`` seeded arrivals.

    >>> CAPSTONE.rate_per_s
    20.0
    """

    model: str
    gpu: str
    tenants: int
    rank: int
    targets: tuple[str, ...]
    tenant_qps: float
    gpu_hourly_usd: float
    zipf_s: float
    requests: int
    seed: int

    def __post_init__(self) -> None:
        count("tenants", self.tenants)
        count("rank", self.rank)
        number("tenant_qps", self.tenant_qps)
        number("gpu_hourly_usd", self.gpu_hourly_usd)
        number("zipf_s", self.zipf_s, inclusive=True)
        count("requests", self.requests)
        count("seed", self.seed, minimum=0)
        object.__setattr__(self, "targets", tuple(self.targets))

    @property
    def rate_per_s(self) -> float:
        """Requests per second the whole customer base sends: ``tenants * tenant_qps``."""
        return self.tenants * self.tenant_qps

    @property
    def assumptions(self) -> ServingAssumptions:
        """Return the chapters' assumptions (:data:`labcore.capacity.TEACHING`) for this customer's model and adapters.

        >>> a = CAPSTONE.assumptions
        >>> a.target_modules, a.sequences, round(a.adapter_mb, 1)
        (('q_proj', 'v_proj'), 24, 13.0)
        """
        return TEACHING.but(
            model=self.model, gpu=self.gpu, rank=self.rank, target_modules=self.targets, tenants=self.tenants
        )


#: Forty support bots on Llama-3-8B (r=16 on q and v), 0.5 requests per second each, H100s at $3.20 an hour.
CAPSTONE = CapstoneScenario(
    model="llama-3-8b",
    gpu="H100-80GB",
    tenants=40,
    rank=16,
    targets=("q_proj", "v_proj"),
    tenant_qps=0.5,
    gpu_hourly_usd=3.20,
    zipf_s=1.0,
    requests=20_000,
    seed=16,
)


def capstone_day(scenario: CapstoneScenario = CAPSTONE, *, adapter_mb: float, budget_mb: float) -> SimResult:
    """Replay ``scenario.requests`` seeded requests through one replica whose cache holds ``budget_mb`` MiB.

    Every tenant's adapter is ``adapter_mb`` MiB (the exact size from the model's config); a miss is a cold
    load from the object store over PCIe 4.0 (labcore.links), as on a real replica.

    >>> r = capstone_day(adapter_mb=13.0, budget_mb=13.0 * 40)
    >>> r.misses, r.p99_ms
    (40, 42.0)
    """
    w = Workload(
        tenants=scenario.tenants,
        requests=scenario.requests,
        zipf_s=scenario.zipf_s,
        rate_per_s=scenario.rate_per_s,
        seed=scenario.seed,
        adapter_mb=adapter_mb,
        rank=scenario.rank,
        base_model=scenario.model,
    )
    return simulate(lambda: single_replica_router(w, budget_mb=budget_mb), make_trace(w), windows=20)


# --------------------------------------------------------------------------- the design exercise (16.1)
MERGED, DYNAMIC = "merged", "dynamic"
MODES: tuple[str, ...] = (MERGED, DYNAMIC)
#: The constraints a design is checked against, in the order the check reports them.
CONSTRAINTS: tuple[str, ...] = ("memory", "load", "p99", "budget")


@dataclass(frozen=True, slots=True)
class TenantClass(ByName):
    """Tenants that look alike: ``tenants`` adapters of ``rank`` on ``targets``, each sending ``qps`` requests/s.

    >>> TenantClass("quiet", 95, 0.2, 16, ("q_proj", "v_proj")).total_qps
    19.0
    """

    name: str
    tenants: int
    qps: float
    rank: int
    targets: tuple[str, ...]

    def __post_init__(self) -> None:
        text("name", self.name)
        count("tenants", self.tenants)
        number("qps", self.qps)
        count("rank", self.rank)
        object.__setattr__(self, "targets", tuple(self.targets))

    @property
    def total_qps(self) -> float:
        """Requests per second the whole class sends."""
        return self.tenants * self.qps


@dataclass(frozen=True, slots=True)
class DesignScenario(ByName):
    """Chapter 16's design problem: tenant classes on ``model`` and ``gpu``, a p99 target and a monthly budget.

    Every GPU holds the base, a KV-cache pool of the design's sequences at ``context_tokens``, and (on a
    shared replica) the dynamic adapters, exact-size, in what is left (:func:`labcore.capacity.memory_split`).
    A request holds one sequence for ``request_s`` seconds, so a GPU serving ``q`` requests/s needs
    ``q x request_s`` sequences at once (Little's law). A GPU sustains ``gpu_qps`` requests/s on the base;
    dynamic serving costs :data:`labcore.capacity.DYNAMIC_OVERHEAD` more (:func:`labcore.fleet.fleet_plan`).

    >>> CAPSTONE_DESIGN.classes[0].total_qps, CAPSTONE_DESIGN.classes[1].total_qps, CAPSTONE_DESIGN.budget_usd
    (19.5, 19.0, 5000.0)
    """

    model: str
    gpu: str
    gpu_hourly_usd: float
    classes: tuple[TenantClass, ...]
    p99_target_ms: float
    budget_usd: float
    context_tokens: int = COURSE_CONTEXT_TOKENS
    request_s: float = 1.0
    gpu_qps: float = GPU_QPS
    hours_per_month: float = 730.0
    requests: int = 20_000
    seed: int = 16

    def __post_init__(self) -> None:
        text("model", self.model)
        object.__setattr__(self, "classes", tuple(self.classes))
        for c in self.classes:
            instance("each tenant class", c, TenantClass, error=ValueError)
        distinct("the tenant classes' names", [c.name for c in self.classes], nonempty=True)
        for name in ("gpu_hourly_usd", "p99_target_ms", "budget_usd", "request_s", "gpu_qps", "hours_per_month"):
            number(name, getattr(self, name))
        count("context_tokens", self.context_tokens)
        count("requests", self.requests)
        count("seed", self.seed, minimum=0)

    def cls(self, name: str) -> TenantClass:
        """Return the tenant class called ``name``."""
        for c in self.classes:
            if c.name == name:
                return c
        raise KeyError(f"no tenant class {name!r}; classes: {[c.name for c in self.classes]}")


#: One flagship tenant at 19.5 requests/s and 95 quiet ones at 0.2 each, on Llama-3-8B on H100s at $3.20 an hour:
#: a p99 of 50 ms and at most $5,000 a month.
CAPSTONE_DESIGN = DesignScenario(
    model="llama-3-8b",
    gpu="H100-80GB",
    gpu_hourly_usd=3.20,
    classes=(
        TenantClass(name="flagship", tenants=1, qps=19.5, rank=16, targets=("q_proj", "v_proj")),
        TenantClass(name="quiet", tenants=95, qps=0.2, rank=16, targets=("q_proj", "v_proj")),
    ),
    p99_target_ms=50.0,
    budget_usd=5000.0,
)


@dataclass(frozen=True, slots=True)
class CapstoneDesign:
    """A learner's design: KV sequences per GPU, each class merged or dynamic, and the shared (dynamic) replicas.

    Merged tenants get the dedicated GPUs their load needs; the dynamic classes share ``replicas`` replicas.

    >>> CapstoneDesign.of({"sequences": 24, "flagship": "merged", "quiet": "dynamic", "replicas": 1}).modes
    (('flagship', 'merged'), ('quiet', 'dynamic'))
    """

    sequences: int
    modes: tuple[tuple[str, str], ...]
    replicas: int

    def __post_init__(self) -> None:
        count("sequences", self.sequences)
        count("replicas", self.replicas, minimum=0)
        object.__setattr__(
            self, "modes", tuple((text("class", n), choice(f"{n}'s mode", m, MODES)) for n, m in self.modes)
        )

    @classmethod
    def of(cls, answer: Any, scenario: DesignScenario | None = None) -> CapstoneDesign:
        """Read a design from a dict ``{"sequences": .., "replicas": .., <class name>: "merged"|"dynamic"}``."""
        if isinstance(answer, CapstoneDesign):
            return answer
        if not isinstance(answer, Mapping):
            raise ValueError(
                f"a design is a dict like {{'sequences': 24, 'flagship': 'merged', 'quiet': 'dynamic', "
                f"'replicas': 1}}, got {answer!r}"
            )
        names = [c.name for c in (scenario or CAPSTONE_DESIGN).classes]
        missing = [k for k in ("sequences", "replicas", *names) if k not in answer]
        if missing:
            raise ValueError(f"the design needs {missing}; it has {sorted(answer)}")
        return cls(answer["sequences"], tuple((n, answer[n]) for n in names), answer["replicas"])

    def mode(self, name: str) -> str:
        """Return class ``name``'s mode."""
        return dict(self.modes)[name]


@dataclass(frozen=True, slots=True)
class DesignReport:
    """What a design costs and whether it holds: every failed constraint with the reason, in :data:`CONSTRAINTS` order.

    ``shared_needed_memory`` / ``shared_needed_load`` are the shared replicas the dynamic adapters' memory and
    load need (:func:`labcore.fleet.fleet_plan`), ``sequences_needed`` the KV sequences the busiest GPU needs.
    """

    design: CapstoneDesign
    gpus: int
    merged_gpus: int
    monthly_usd: float
    p99_ms: float | None
    pool_gib: float
    adapters_that_fit: int
    dynamic_adapters: int
    shared_needed_memory: int
    shared_needed_load: int
    sequences_needed: int
    failures: tuple[tuple[str, str], ...]

    @property
    def holds(self) -> bool:
        """Whether the design meets every constraint."""
        return not self.failures

    @property
    def failed(self) -> tuple[str, ...]:
        """The names of the constraints the design fails."""
        return tuple(name for name, _ in self.failures)


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


@functools.lru_cache(maxsize=32)
def _quiet_p99(
    tenants: int,
    qps_per_replica: float,
    adapter_mb: float,
    rank: int,
    budget_mb: float,
    model: str,
    requests: int,
    seed: int,
) -> float:
    w = Workload(
        tenants=tenants,
        requests=requests,
        zipf_s=0.0,
        rate_per_s=qps_per_replica,
        seed=seed,
        adapter_mb=adapter_mb,
        rank=rank,
        base_model=model,
    )
    return simulate(lambda: single_replica_router(w, budget_mb=budget_mb), make_trace(w), windows=4).p99_ms


def evaluate_design(design: Any, scenario: DesignScenario = CAPSTONE_DESIGN) -> DesignReport:
    """Run ``design`` on ``scenario``: split one GPU, plan the fleet, replay a shared replica, price the month.

    >>> r = evaluate_design({"sequences": 24, "flagship": "merged", "quiet": "dynamic", "replicas": 1})
    >>> r.holds, r.gpus, r.monthly_usd, r.p99_ms
    (True, 2, 4672.0, 42.0)
    >>> evaluate_design({"sequences": 24, "flagship": "dynamic", "quiet": "dynamic", "replicas": 2}).failed
    ('load',)
    """
    d = CapstoneDesign.of(design, scenario)
    unknown = {n for n, _ in d.modes} - {c.name for c in scenario.classes}
    if unknown:
        raise ValueError(f"unknown tenant classes {sorted(unknown)}; classes: {[c.name for c in scenario.classes]}")
    size = {c.name: exact_adapter_mb(scenario.model, c.rank, c.targets) for c in scenario.classes}
    dynamic = [c for c in scenario.classes if d.mode(c.name) == DYNAMIC]
    merged = [c for c in scenario.classes if d.mode(c.name) == MERGED]
    split = memory_split(
        scenario.model,
        scenario.gpu,
        sequences=d.sequences,
        context_tokens=scenario.context_tokens,
        adapter_mb=max((size[c.name] for c in dynamic), default=1.0),
    )
    failures: list[tuple[str, str]] = []
    dynamic_mb = sum(c.tenants * size[c.name] for c in dynamic)
    dynamic_qps = sum(c.total_qps for c in dynamic)
    pool_mb = split.pool_gib * 1024
    if split.pool_gib > 0 and all(size[c.name] <= pool_mb for c in dynamic):
        # the fleet plan of chapter 6 with the course's facts: merged GPUs, and what memory and load need shared
        adapters = [
            Adapter(
                f"{c.name}-{i:03d}",
                "1.0.0",
                scenario.model,
                DESIGN_DIGEST,
                rank=c.rank,
                vram_mb=size[c.name],
                merged=d.mode(c.name) == MERGED,
            )
            for c in scenario.classes
            for i in range(1, c.tenants + 1)
        ]
        plan = fleet_plan(
            adapters,
            gpu_hourly_usd=scenario.gpu_hourly_usd,
            hours_per_month=scenario.hours_per_month,
            tenant_qps=[c.qps for c in scenario.classes for _ in range(c.tenants)],
            **split.fleet_kwargs(),
            gpu_qps=scenario.gpu_qps,
            dynamic_overhead=DYNAMIC_OVERHEAD,
        )
        merged_gpus = plan.merged_gpus
        need_memory = plan.memory_bound_gpus if dynamic else 0
        need_load = plan.load_bound_gpus
    else:  # no room for the dynamic adapters at all: the memory check below says so
        merged_gpus = sum(c.tenants * max(1, math.ceil(c.qps / scenario.gpu_qps - 1e-9)) for c in merged)
        need_memory = 0
        need_load = math.ceil(dynamic_qps * (1 + DYNAMIC_OVERHEAD) / scenario.gpu_qps - 1e-9) if dynamic else 0
    busiest = max([dynamic_qps / d.replicas] if dynamic and d.replicas else [], default=0.0)
    busiest = max([busiest, *(min(c.qps, scenario.gpu_qps) for c in merged)])
    sequences_needed = math.ceil(busiest * scenario.request_s - 1e-9)
    # memory
    if split.pool_gib <= 0:
        failures.append(
            (
                "memory",
                f"base {split.base_gib:.1f} GiB + KV {split.kv_gib:.1f} GiB ({d.sequences} "
                f"sequences of {scenario.context_tokens:,} tokens) exceed the engine's "
                f"{split.budget_gib:.1f} GiB of the GPU: no room for any adapter",
            )
        )
    elif dynamic and 0 < d.replicas < need_memory:
        failures.append(
            (
                "memory",
                f"each shared replica's adapter pool is {split.pool_gib:.2f} GiB, room for "
                f"{split.adapters_that_fit} adapters; the {sum(c.tenants for c in dynamic)} dynamic "
                f"adapters ({dynamic_mb:,.0f} MiB) need {_n(need_memory, 'replica')}, the design has "
                f"{d.replicas}",
            )
        )
    # load
    if dynamic and d.replicas < need_load:
        failures.append(
            (
                "load",
                f"the dynamic classes send {dynamic_qps:g} requests/s, "
                f"{dynamic_qps * (1 + DYNAMIC_OVERHEAD):g} with the {DYNAMIC_OVERHEAD:.0%} dynamic "
                f"overhead: {_n(need_load, 'replica')} of "
                f"{scenario.gpu_qps:g} requests/s, the design has {d.replicas}",
            )
        )
    elif sequences_needed > d.sequences:
        failures.append(
            (
                "load",
                f"the busiest GPU serves {busiest:g} requests/s of {scenario.request_s:g} s each: "
                f"{sequences_needed} sequences at once, but its KV pool holds {d.sequences}",
            )
        )
    # p99: merged tenants get the bare base's latency; a shared replica's is replayed in the simulator
    p99: float | None = None
    quiet = [c for c in dynamic if c.tenants > 1]
    if dynamic and d.replicas and split.pool_gib > 0:
        pinned_mb = sum(c.tenants * size[c.name] for c in dynamic if c.tenants == 1)  # always hot: resident
        budget_mb = max(pool_mb - pinned_mb, 0.0)
        tail = (
            [
                _quiet_p99(
                    c.tenants,
                    c.total_qps / d.replicas,
                    size[c.name],
                    c.rank,
                    budget_mb,
                    scenario.model,
                    scenario.requests,
                    scenario.seed,
                )
                for c in quiet
            ]
            if budget_mb > 0
            else [math.inf]
        )
        p99 = max([BASE_LATENCY_MS * (1 + DYNAMIC_OVERHEAD), *tail])
    elif merged and not dynamic:
        p99 = BASE_LATENCY_MS
    if p99 is not None and p99 > scenario.p99_target_ms:
        failures.append(
            (
                "p99",
                f"a shared replica's p99 is {p99:,.0f} ms against the target of "
                f"{scenario.p99_target_ms:g} ms: its adapter pool ({split.adapters_that_fit} "
                f"adapters) is smaller than the working set, so requests miss and wait for a "
                "cold load",
            )
        )
    gpus = d.replicas + merged_gpus
    monthly = round(gpus * scenario.gpu_hourly_usd * scenario.hours_per_month, 2)
    if monthly > scenario.budget_usd:
        failures.append(
            (
                "budget",
                f"{gpus} GPUs ({merged_gpus} merged, {d.replicas} shared) cost "
                f"${monthly:,.0f} a month, over the budget of ${scenario.budget_usd:,.0f}",
            )
        )
    failures.sort(key=lambda f: CONSTRAINTS.index(f[0]))
    return DesignReport(
        design=d,
        gpus=gpus,
        merged_gpus=merged_gpus,
        monthly_usd=monthly,
        p99_ms=p99,
        pool_gib=split.pool_gib,
        adapters_that_fit=split.adapters_that_fit,
        dynamic_adapters=sum(c.tenants for c in dynamic),
        shared_needed_memory=need_memory,
        shared_needed_load=need_load,
        sequences_needed=sequences_needed,
        failures=tuple(failures),
    )
