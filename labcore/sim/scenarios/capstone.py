"""Chapter 16's run: the whole path, from one request to the fleet bill, for one customer's day on one replica.

>>> CAPSTONE.tenants, CAPSTONE["gpu"]
(40, 'H100-80GB')
"""

from __future__ import annotations

from dataclasses import dataclass

from ..._validate import count, number
from ..replay import simulate, single_replica_router
from ..result import SimResult
from ..workload import Workload, make_trace
from ._by_name import ByName

__all__ = ["CapstoneScenario", "CAPSTONE", "capstone_day"]


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


#: Forty support bots on Llama-3-8B (r=16 on q and v), 0.5 requests per second each, H100s at $3.20 an hour.
CAPSTONE = CapstoneScenario(model="llama-3-8b", gpu="H100-80GB", tenants=40, rank=16, targets=("q_proj", "v_proj"),
                            tenant_qps=0.5, gpu_hourly_usd=3.20, zipf_s=1.0, requests=20_000, seed=16)


def capstone_day(scenario: CapstoneScenario = CAPSTONE, *, adapter_mb: float, budget_mb: float) -> SimResult:
    """Replay ``scenario.requests`` seeded requests through one replica whose cache holds ``budget_mb`` MiB.

    Every tenant's adapter is ``adapter_mb`` MiB (the exact size from the model's config); a miss is a cold
    load from the object store over PCIe 4.0 (labcore.links), as on a real replica.

    >>> r = capstone_day(adapter_mb=13.0, budget_mb=13.0 * 40)
    >>> r.misses, r.p99_ms
    (40, 42.0)
    """
    w = Workload(tenants=scenario.tenants, requests=scenario.requests, zipf_s=scenario.zipf_s,
                 rate_per_s=scenario.rate_per_s, seed=scenario.seed, adapter_mb=adapter_mb, rank=scenario.rank,
                 base_model=scenario.model)
    return simulate(lambda: single_replica_router(w, budget_mb=budget_mb), make_trace(w), windows=20)
