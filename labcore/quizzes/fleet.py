"""The self-check quizzes of the fleet chapters: chapter 1 (why multi-LoRA) and chapter 6 (the fleet plan).

Every number comes from :func:`labcore.fleet.fleet_plan` with the chapters' own parameters: 40
tenants with Llama-3-8B r=16 q,v adapters on H100s at USD 3.20 an hour, and one GPU sustaining
:data:`labcore.fleet.GPU_QPS` requests per second.

>>> quiz = why_multi_lora_quiz()
>>> quiz.grade(1, 99.75)[0], quiz.grade(1, 97.5)[1]
(True, '✗ 97.5 % is the 40-tenant headline; with 400 tenants the dedicated fleet needs 400 GPUs and the shared one still 1.')
>>> fleet_quiz().grade(1, 40.0)[0]
True
"""

from __future__ import annotations

from ..adapter import tenant_adapters
from ..capacity import fleet_under_load
from ..fleet import GPU_QPS, fleet_plan
from ..model_config import load_model_config
from ..sizing import adapter_vram_mb
from ._quiz import Choice, MultipleChoice, Numeric, Quiz

__all__ = ["why_multi_lora_quiz", "fleet_quiz"]

#: The chapters' parameters (inputs, not results): the fleet, the GPU price, the per-tenant loads.
TENANTS = 40
GPU_HOURLY_USD = 3.20
LOADED_TENANT_QPS = 5.0      # chapter 1's "busy tenants"
GROWN_TENANTS = 400          # chapter 1, question 2
BUSY_TENANT_QPS = 12.0       # chapter 6, question 2
BIG_ADAPTER_MB = 4096.0      # chapter 6, question 3 (a very high rank on a large model)


def _headline_adapter_mb() -> float:
    """The chapters' adapter: Llama-3-8B, r=16 on q and v, bf16 (16 MiB by the square formula)."""
    cfg = load_model_config("llama-3-8b")
    return adapter_vram_mb(16, cfg.hidden_size, cfg.num_hidden_layers, ["q_proj", "v_proj"])


def why_multi_lora_quiz() -> Quiz:
    """Return chapter 1's quiz: what first forces a second GPU, the saving at 400 tenants, why load breaks it."""
    adapter_mb = _headline_adapter_mb()
    plan = fleet_plan(tenant_adapters(TENANTS, vram_mb=adapter_mb), gpu_hourly_usd=GPU_HOURLY_USD)
    pool_mb = plan.adapter_pool_mb_per_gpu
    fits = int(pool_mb // adapter_mb)
    limit_mb = pool_mb / TENANTS                                     # the largest adapter 40 of which fit one pool
    too_big = fleet_plan(tenant_adapters(TENANTS, vram_mb=2 * limit_mb))
    pricier = fleet_plan(tenant_adapters(TENANTS, vram_mb=adapter_mb), gpu_hourly_usd=2 * GPU_HOURLY_USD)
    one_more = fleet_plan(tenant_adapters(TENANTS + 1, vram_mb=adapter_mb))
    grown = fleet_plan(tenant_adapters(GROWN_TENANTS, vram_mb=adapter_mb), gpu_hourly_usd=GPU_HOURLY_USD)
    loaded = fleet_plan(tenant_adapters(TENANTS, vram_mb=adapter_mb), tenant_qps=LOADED_TENANT_QPS, gpu_qps=GPU_QPS)
    return Quiz("why_multi_lora_quiz", "Chapter 1: why multi-LoRA", (
        MultipleChoice(
            f"Chapter 1's {TENANTS} tenants fit on {plan.multi_lora_gpus} shared GPU. Which of these changes would "
            "need a second one?",
            (Choice(f"Adapters of more than {limit_mb:,.0f} MiB each", True,
                    f"Right: one GPU keeps {pool_mb / 1024:.0f} GiB for adapters, so {TENANTS} of them fit up to "
                    f"{limit_mb:,.0f} MiB each; at {2 * limit_mb:,.0f} MiB the shared fleet needs "
                    f"{too_big.multi_lora_gpus} GPUs."),
             Choice(f"A GPU price of USD {2 * GPU_HOURLY_USD:.2f} an hour instead of USD {GPU_HOURLY_USD:.2f}", False,
                    f"No: the price changes what each GPU costs, not how many are needed; the shared fleet stays at "
                    f"{pricier.multi_lora_gpus} GPU."),
             Choice(f"One more tenant ({TENANTS + 1} in all) with the same {adapter_mb:g} MiB adapter", False,
                    f"No: {TENANTS + 1} adapters are {(TENANTS + 1) * adapter_mb:,.0f} MiB, and one GPU's pool holds "
                    f"{fits:,} of them; the fleet stays at {one_more.multi_lora_gpus} GPU."))),
        Numeric(
            f"Chapter 1's fleet grows to {GROWN_TENANTS} tenants with the same {adapter_mb:g} MiB adapters, memory "
            "the only limit. What percentage does multi-LoRA save now? Give two decimals.",
            answer=grown.savings_pct, unit="%", rel_tol=0.001,
            explanation=f"1 − {grown.multi_lora_gpus} / {grown.dedicated_gpus} GPUs = {grown.savings_pct:g}%: "
                        f"{GROWN_TENANTS} adapters are {GROWN_TENANTS * adapter_mb:,.0f} MiB, still one GPU's pool.",
            mistakes=(
                (plan.savings_pct, f"is the {TENANTS}-tenant headline; with {GROWN_TENANTS} tenants the dedicated "
                                   f"fleet needs {grown.dedicated_gpus} GPUs and the shared one still "
                                   f"{grown.multi_lora_gpus}."),
                (grown.savings_pct / 100, "is a fraction; the question asks for a percentage (multiply by 100)."),
                (100 - grown.savings_pct, "is the share of the dedicated bill you still pay; the saving is 100% "
                                          "minus that."),
                (grown.dedicated_gpus - grown.multi_lora_gpus, "is the number of GPUs saved, not the percentage."),
            )),
        MultipleChoice(
            f"At {LOADED_TENANT_QPS:g} requests/s per tenant (one GPU sustains {GPU_QPS:g}), chapter 1's saving falls "
            f"from {plan.savings_pct:.1f}% to {loaded.savings_pct:.1f}%. What changed?",
            (Choice("The traffic, not the adapters, now sizes the shared fleet", True,
                    f"Right: {TENANTS} × {LOADED_TENANT_QPS:g} = {TENANTS * LOADED_TENANT_QPS:g} requests/s need "
                    f"{loaded.load_bound_gpus} GPUs, while the adapters' memory still needs "
                    f"{loaded.memory_bound_gpus}."),
             Choice("The adapters no longer fit in one GPU's spare memory", False,
                    f"No: memory still needs {loaded.memory_bound_gpus} GPU; its {pool_mb / 1024:.0f} GiB pool holds "
                    f"{fits:,} adapters of {adapter_mb:g} MiB."),
             Choice("The dedicated fleet needs more GPUs under load", False,
                    f"No: each tenant's {LOADED_TENANT_QPS:g} requests/s fit on its own GPU, so the dedicated fleet "
                    f"stays at {loaded.dedicated_gpus}; the shared one grew to {loaded.multi_lora_gpus}."))),
    ))


def fleet_quiz() -> Quiz:
    """Return chapter 6's quiz: the price cancels, the saving is the idle share, the larger of two counts."""
    adapter_mb = _headline_adapter_mb()
    plan = fleet_plan(tenant_adapters(TENANTS, vram_mb=adapter_mb), gpu_hourly_usd=GPU_HOURLY_USD)
    doubled = fleet_plan(tenant_adapters(TENANTS, vram_mb=adapter_mb), gpu_hourly_usd=2 * GPU_HOURLY_USD)
    busy = fleet_under_load(TENANTS, GPU_HOURLY_USD, adapter_mb, BUSY_TENANT_QPS, gpu_qps=GPU_QPS)
    utilisation_pct = 100 * BUSY_TENANT_QPS / GPU_QPS
    big = fleet_under_load(TENANTS, GPU_HOURLY_USD, BIG_ADAPTER_MB, LOADED_TENANT_QPS, gpu_qps=GPU_QPS)
    memory, load = big.memory_bound_gpus, big.load_bound_gpus
    if len({memory, load, memory + load, big.multi_lora_gpus}) != 3:
        raise ValueError(f"question 3 needs distinct memory ({memory}) and load ({load}) counts; change its inputs")
    return Quiz("fleet_quiz", "Chapter 6: the fleet plan", (
        MultipleChoice(
            f"The H100 price doubles from USD {GPU_HOURLY_USD:.2f} to USD {2 * GPU_HOURLY_USD:.2f} an hour. What "
            f"happens to the {plan.savings_pct:.1f}% saving for {TENANTS} quiet tenants?",
            (Choice(f"It stays at {doubled.savings_pct:.1f}%", True,
                    f"Right: both bills are GPUs × price × hours, so the price cancels: {plan.multi_lora_gpus} GPU "
                    f"against {plan.dedicated_gpus} either way. Only the dollars double (USD "
                    f"{plan.savings_usd:,.0f} → USD {doubled.savings_usd:,.0f} saved a month)."),
             Choice("It rises: the dedicated bill grows by more dollars than the shared one", False,
                    f"The dollar gap does grow, from USD {plan.savings_usd:,.0f} to USD {doubled.savings_usd:,.0f} a "
                    f"month, but as a share of the dedicated bill it is still 1 − {doubled.multi_lora_gpus}/"
                    f"{doubled.dedicated_gpus}."),
             Choice("It falls: the shared GPU costs twice as much", False,
                    f"So does every one of the {doubled.dedicated_gpus} dedicated GPUs; the ratio of GPU counts does "
                    "not move."))),
        Numeric(
            f"Each of {TENANTS} tenants now sends {BUSY_TENANT_QPS:g} requests/s, keeping its own dedicated GPU "
            f"{utilisation_pct:.0f}% busy (one GPU sustains {GPU_QPS:g}). What percentage does multi-LoRA save?",
            answer=busy.savings_pct, unit="%", rel_tol=0.001,
            explanation=f"{TENANTS} × {BUSY_TENANT_QPS:g} = {TENANTS * BUSY_TENANT_QPS:g} requests/s need "
                        f"{busy.multi_lora_gpus} GPUs: 1 − {busy.multi_lora_gpus}/{busy.dedicated_gpus} = "
                        f"{busy.savings_pct:g}%, exactly the dedicated fleet's idle share.",
            mistakes=(
                (utilisation_pct, f"is how busy each dedicated GPU is; multi-LoRA saves their idle share (the shared "
                                  f"fleet needs {busy.multi_lora_gpus} GPUs for the traffic)."),
                (plan.savings_pct, f"is the memory-only headline; under this load the shared fleet needs "
                                   f"{busy.multi_lora_gpus} GPUs."),
                (busy.savings_pct / 100, "is a fraction; the question asks for a percentage (multiply by 100)."),
                (busy.dedicated_gpus - busy.multi_lora_gpus, "is the number of GPUs saved, not the percentage."),
            )),
        MultipleChoice(
            f"{TENANTS} tenants each have a {BIG_ADAPTER_MB / 1024:g} GiB adapter and send {LOADED_TENANT_QPS:g} "
            f"requests/s; one GPU sustains {GPU_QPS:g}. How many GPUs does the shared fleet need?",
            (Choice(f"{big.multi_lora_gpus}: the larger of the memory count and the load count", True,
                    f"Right: every GPU brings both its {big.adapter_pool_mb_per_gpu / 1024:.0f} GiB adapter pool and "
                    f"its {GPU_QPS:g} requests/s, so the {load} GPUs the traffic needs also hold the adapters "
                    f"(memory alone needs {memory})."),
             Choice(f"{memory + load}: the memory count plus the load count", False,
                    "No: the GPUs bought for the traffic hold adapters too; adding the counts pays twice for the same "
                    "GPUs."),
             Choice(f"{memory}: memory decides, load only matters for the dedicated fleet", False,
                    f"No: {TENANTS * LOADED_TENANT_QPS:g} requests/s need {load} GPUs of {GPU_QPS:g} requests/s "
                    "each, whatever the adapters weigh."))),
    ))
