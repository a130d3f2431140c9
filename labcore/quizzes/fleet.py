"""The self-check quizzes of the fleet chapters: chapter 1 (why multi-LoRA) and chapter 6 (the fleet plan).

Every number comes from :func:`labcore.fleet.fleet_plan` with the chapters' own experiment: 40 tenants
with Llama-3-8B r=16 q,v adapters (16 MiB by the lab's square formula), each sending
:data:`QUIET_TENANT_QPS` requests/s, on H100s at USD 3.20 an hour that sustain
:data:`labcore.fleet.GPU_QPS` requests/s, with the course's facts for the GPU split and the 5% dynamic
overhead (:mod:`labcore.capacity`). Chapter 1's fleet savings panel and chapter 6's fleet load panel
open on the same state.

>>> quiz = why_multi_lora_quiz()
>>> quiz.grade(1, 98.125)[0], quiz.grade(1, 98.75)[1]
(True, '✗ 98.75 % leaves out the dynamic overhead: 160 × 0.25 × 1.05 = 42 requests/s need 3 GPUs of 20, not 2.')
>>> fleet_quiz().grade(1, 35.0)[0]
True
"""

from __future__ import annotations

from ..adapter import tenant_adapters
from ..capacity import COURSE_ADAPTER_MB, DYNAMIC_OVERHEAD, TEACHING
from ..fleet import GPU_QPS, FleetPlan, fleet_plan
from ._quiz import Choice, MultipleChoice, Numeric, Quiz

__all__ = ["why_multi_lora_quiz", "fleet_quiz", "QUIET_TENANT_QPS"]

#: The chapters' parameters (inputs, not results): the fleet, the GPU price, the per-tenant loads.
TENANTS = 40
GPU_HOURLY_USD = 3.20
QUIET_TENANT_QPS = 0.25  # the chapters' experiment: a quiet tenant (the panels' default load)
LOADED_TENANT_QPS = 5.0  # chapter 1's "busy tenants"
DOUBLED_TENANTS = 80  # chapter 1, question 1
BIG_ADAPTER_OPTION_MB = 256.0  # chapter 1, question 1: an adapter 16 times the lab's (on the panel's slider)
GROWN_TENANTS = 160  # chapter 1, question 2
DEARER_USD = 4.80  # chapter 1, question 1 (on the panel's price slider)
BUSY_TENANT_QPS = 12.0  # chapter 6, question 2
BIG_ADAPTER_MB = 4096.0  # chapter 6, question 3 (a very high rank on a large model)


def _plan(
    tenants: int = TENANTS,
    *,
    vram_mb: float = COURSE_ADAPTER_MB,
    tenant_qps: float = QUIET_TENANT_QPS,
    gpu_hourly_usd: float = GPU_HOURLY_USD,
    dynamic_overhead: float = DYNAMIC_OVERHEAD,
) -> FleetPlan:
    """The chapters' fleet: ``tenants`` adapters at ``tenant_qps`` each, one GPU sustaining GPU_QPS."""
    return fleet_plan(
        tenant_adapters(tenants, vram_mb=vram_mb),
        gpu_hourly_usd=gpu_hourly_usd,
        tenant_qps=tenant_qps,
        gpu_qps=GPU_QPS,
        dynamic_overhead=dynamic_overhead,
        **TEACHING.split().fleet_kwargs(),
    )


def _gpus(n: int) -> str:
    return f"{n} GPU" + ("" if n == 1 else "s")


def why_multi_lora_quiz() -> Quiz:
    """Return chapter 1's quiz: what first forces a second GPU, the saving at 160 tenants, why load breaks it."""
    adapter_mb = COURSE_ADAPTER_MB
    overhead = 1 + DYNAMIC_OVERHEAD
    plan = _plan()
    pool_mb = plan.adapter_pool_mb_per_gpu
    doubled = _plan(DOUBLED_TENANTS)
    big = _plan(vram_mb=BIG_ADAPTER_OPTION_MB)
    dearer = _plan(gpu_hourly_usd=DEARER_USD)
    grown = _plan(GROWN_TENANTS)
    grown_bare = _plan(GROWN_TENANTS, dynamic_overhead=0.0)
    grown_memory = fleet_plan(tenant_adapters(GROWN_TENANTS, vram_mb=adapter_mb), **TEACHING.split().fleet_kwargs())
    loaded = _plan(tenant_qps=LOADED_TENANT_QPS)
    doubled_qps = DOUBLED_TENANTS * QUIET_TENANT_QPS
    return Quiz(
        "why_multi_lora_quiz",
        "Chapter 1: why multi-LoRA",
        (
            MultipleChoice(
                f"Chapter 1's {TENANTS} tenants, each sending {QUIET_TENANT_QPS:g} requests/s, fit on "
                f"{_gpus(plan.multi_lora_gpus)}. Which of these changes needs a second one?",
                (
                    Choice(
                        f"Twice the tenants: {DOUBLED_TENANTS}, with the same adapters and load",
                        True,
                        f"Right: the memory still fits ({DOUBLED_TENANTS * adapter_mb:,.0f} MiB of a "
                        f"{pool_mb / 1024:.1f} GiB pool), but {DOUBLED_TENANTS} × {QUIET_TENANT_QPS:g} × {overhead:g} = "
                        f"{doubled_qps * overhead:g} requests/s pass one GPU's {GPU_QPS:g}: "
                        f"{_gpus(doubled.multi_lora_gpus)}.",
                    ),
                    Choice(
                        f"Adapters of {BIG_ADAPTER_OPTION_MB:g} MiB instead of {adapter_mb:g} MiB",
                        False,
                        f"No: {TENANTS} × {BIG_ADAPTER_OPTION_MB:g} MiB = {TENANTS * BIG_ADAPTER_OPTION_MB / 1024:g}"
                        f" GiB still fits one GPU's {pool_mb / 1024:.1f} GiB pool: "
                        f"{_gpus(big.multi_lora_gpus)}.",
                    ),
                    Choice(
                        f"A GPU price of USD {DEARER_USD:.2f} an hour instead of USD {GPU_HOURLY_USD:.2f}",
                        False,
                        f"No: the price changes what each GPU costs, not how many are needed: "
                        f"{_gpus(dearer.multi_lora_gpus)}.",
                    ),
                ),
            ),
            Numeric(
                f"Chapter 1's fleet grows to {GROWN_TENANTS} tenants, each still sending {QUIET_TENANT_QPS:g} requests/s "
                f"with a {adapter_mb:g} MiB adapter. What percentage does multi-LoRA save now? Give two decimals.",
                answer=grown.savings_pct,
                unit="%",
                rel_tol=0.0005,
                explanation=f"{GROWN_TENANTS} × {QUIET_TENANT_QPS:g} × {overhead:g} = "
                f"{GROWN_TENANTS * QUIET_TENANT_QPS * overhead:g} requests/s need "
                f"{_gpus(grown.multi_lora_gpus)} of {GPU_QPS:g} (the adapters' memory needs "
                f"{grown.memory_bound_gpus}): 1 − {grown.multi_lora_gpus}/{grown.dedicated_gpus} = "
                f"{grown.savings_pct:g}%.",
                mistakes=(
                    (
                        grown_bare.savings_pct,
                        f"leaves out the dynamic overhead: {GROWN_TENANTS} × {QUIET_TENANT_QPS:g} × "
                        f"{overhead:g} = {GROWN_TENANTS * QUIET_TENANT_QPS * overhead:g} requests/s "
                        f"need {grown.multi_lora_gpus} GPUs of {GPU_QPS:g}, not "
                        f"{grown_bare.multi_lora_gpus}.",
                    ),
                    (
                        grown_memory.savings_pct,
                        f"counts memory only ({_gpus(grown_memory.multi_lora_gpus)}); the "
                        f"traffic needs {_gpus(grown.multi_lora_gpus)}.",
                    ),
                    (
                        plan.savings_pct,
                        f"is the {TENANTS}-tenant headline; with {GROWN_TENANTS} tenants the dedicated "
                        f"fleet needs {grown.dedicated_gpus} GPUs and the shared one "
                        f"{grown.multi_lora_gpus}.",
                    ),
                    (
                        100 - grown.savings_pct,
                        "is the share of the dedicated bill you still pay; the saving is 100% minus that.",
                    ),
                ),
            ),
            MultipleChoice(
                f"At {LOADED_TENANT_QPS:g} requests/s per tenant (one GPU sustains {GPU_QPS:g}), chapter 1's saving falls "
                f"from {plan.savings_pct:.1f}% to {loaded.savings_pct:.1f}%. What changed?",
                (
                    Choice(
                        "The traffic, not the adapters, now sizes the shared fleet",
                        True,
                        f"Right: {TENANTS} × {LOADED_TENANT_QPS:g} × {overhead:g} = "
                        f"{TENANTS * LOADED_TENANT_QPS * overhead:g} requests/s need {loaded.load_bound_gpus} GPUs, "
                        f"while the adapters' memory still needs {loaded.memory_bound_gpus}.",
                    ),
                    Choice(
                        "The adapters no longer fit in one GPU's spare memory",
                        False,
                        f"No: memory still needs {_gpus(loaded.memory_bound_gpus)}; its {pool_mb / 1024:.1f} GiB pool "
                        f"holds {int(pool_mb // adapter_mb):,} adapters of {adapter_mb:g} MiB.",
                    ),
                    Choice(
                        "The dedicated fleet needs more GPUs under load",
                        False,
                        f"No: each tenant's {LOADED_TENANT_QPS:g} requests/s fit on its own GPU, so the dedicated fleet "
                        f"stays at {loaded.dedicated_gpus}; the shared one grew to {loaded.multi_lora_gpus}.",
                    ),
                ),
            ),
        ),
    )


def fleet_quiz() -> Quiz:
    """Return chapter 6's quiz: the price cancels, the saving is the idle share less the overhead, the larger count."""
    overhead = 1 + DYNAMIC_OVERHEAD
    plan = _plan()
    doubled = _plan(gpu_hourly_usd=2 * GPU_HOURLY_USD)
    busy = _plan(tenant_qps=BUSY_TENANT_QPS)
    busy_bare = _plan(tenant_qps=BUSY_TENANT_QPS, dynamic_overhead=0.0)
    utilisation_pct = 100 * BUSY_TENANT_QPS / GPU_QPS
    big = _plan(vram_mb=BIG_ADAPTER_MB, tenant_qps=LOADED_TENANT_QPS)
    memory, load = big.memory_bound_gpus, big.load_bound_gpus
    if len({memory, load, memory + load, big.multi_lora_gpus}) != 3:
        raise ValueError(f"question 3 needs distinct memory ({memory}) and load ({load}) counts; change its inputs")
    return Quiz(
        "fleet_quiz",
        "Chapter 6: the fleet plan",
        (
            MultipleChoice(
                f"The H100 price doubles from USD {GPU_HOURLY_USD:.2f} to USD {2 * GPU_HOURLY_USD:.2f} an hour. What "
                f"happens to the {plan.savings_pct:.1f}% saving for {TENANTS} quiet tenants?",
                (
                    Choice(
                        f"It stays at {doubled.savings_pct:.1f}%",
                        True,
                        f"Right: both bills are GPUs × price × hours, so the price cancels: {plan.multi_lora_gpus} GPU "
                        f"against {plan.dedicated_gpus} either way. Only the dollars double (USD "
                        f"{plan.savings_usd:,.0f} → USD {doubled.savings_usd:,.0f} saved a month).",
                    ),
                    Choice(
                        "It rises: the dedicated bill grows by more dollars than the shared one",
                        False,
                        f"The dollar gap does grow, from USD {plan.savings_usd:,.0f} to USD {doubled.savings_usd:,.0f} a "
                        f"month, but as a share of the dedicated bill it is still 1 − {doubled.multi_lora_gpus}/"
                        f"{doubled.dedicated_gpus}.",
                    ),
                    Choice(
                        "It falls: the shared GPU costs twice as much",
                        False,
                        f"So does every one of the {doubled.dedicated_gpus} dedicated GPUs; the ratio of GPU counts does "
                        "not move.",
                    ),
                ),
            ),
            Numeric(
                f"Each of {TENANTS} tenants now sends {BUSY_TENANT_QPS:g} requests/s, keeping its own dedicated GPU "
                f"{utilisation_pct:.0f}% busy (one GPU sustains {GPU_QPS:g}). What percentage does multi-LoRA save?",
                answer=busy.savings_pct,
                unit="%",
                rel_tol=0.001,
                explanation=f"{TENANTS} × {BUSY_TENANT_QPS:g} × {overhead:g} = "
                f"{TENANTS * BUSY_TENANT_QPS * overhead:g} requests/s need {busy.multi_lora_gpus} GPUs: "
                f"1 − {busy.multi_lora_gpus}/{busy.dedicated_gpus} = {busy.savings_pct:g}%, the dedicated "
                f"fleet's idle share ({100 - utilisation_pct:.0f}%) less what the "
                f"{100 * DYNAMIC_OVERHEAD:g}% overhead costs on the shared GPUs.",
                mistakes=(
                    (
                        busy_bare.savings_pct,
                        f"is the dedicated fleet's idle share, which leaves out the dynamic overhead: "
                        f"every shared request costs {100 * DYNAMIC_OVERHEAD:g}% more, so the shared "
                        f"fleet needs {busy.multi_lora_gpus} GPUs, not {busy_bare.multi_lora_gpus}.",
                    ),
                    (
                        utilisation_pct,
                        f"is how busy each dedicated GPU is; multi-LoRA saves about their idle share (the "
                        f"shared fleet needs {busy.multi_lora_gpus} GPUs for the traffic).",
                    ),
                    (
                        plan.savings_pct,
                        f"is the quiet-tenant headline; under this load the shared fleet needs "
                        f"{busy.multi_lora_gpus} GPUs.",
                    ),
                    (busy.savings_pct / 100, "is a fraction; the question asks for a percentage (multiply by 100)."),
                ),
            ),
            MultipleChoice(
                f"{TENANTS} tenants each have a {BIG_ADAPTER_MB / 1024:g} GiB adapter and send {LOADED_TENANT_QPS:g} "
                f"requests/s; one GPU sustains {GPU_QPS:g}. How many GPUs does the shared fleet need?",
                (
                    Choice(
                        f"{big.multi_lora_gpus}: the larger of the memory count and the load count",
                        True,
                        f"Right: every GPU brings both its {big.adapter_pool_mb_per_gpu / 1024:.1f} GiB adapter pool and "
                        f"its {GPU_QPS:g} requests/s, so the {load} GPUs the traffic needs ({TENANTS} × "
                        f"{LOADED_TENANT_QPS:g} × {overhead:g} requests/s) also hold the adapters (memory alone needs "
                        f"{memory}).",
                    ),
                    Choice(
                        f"{memory + load}: the memory count plus the load count",
                        False,
                        "No: the GPUs bought for the traffic hold adapters too; adding the counts pays twice for the same "
                        "GPUs.",
                    ),
                    Choice(
                        f"{memory}: memory decides, load only matters for the dedicated fleet",
                        False,
                        f"No: {TENANTS * LOADED_TENANT_QPS:g} requests/s need {load} GPUs of {GPU_QPS:g} requests/s "
                        "each (with the overhead), whatever the adapters weigh.",
                    ),
                ),
            ),
        ),
    )
