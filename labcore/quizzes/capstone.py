"""The self-check quiz of chapter 16 (putting it together): the request's path, the GPU split, the bill.

>>> quiz = capstone_quiz()
>>> quiz.grade(2, quiz.questions[2].answer)[0]
True
"""

from __future__ import annotations

import math

from ..capacity import DYNAMIC_OVERHEAD, fleet_under_load
from ..fleet import GPU_QPS
from ..sim import CAPSTONE
from ._quiz import Choice, MultipleChoice, Numeric, Quiz

__all__ = ["capstone_quiz"]


def capstone_quiz() -> Quiz:
    """Return chapter 16's quiz; its numbers come from :data:`labcore.sim.CAPSTONE` and :func:`fleet_under_load`."""
    s = CAPSTONE
    load_gpus = 3 * s.tenants * s.tenant_qps * (1 + DYNAMIC_OVERHEAD) / GPU_QPS
    a = s.assumptions  # the chapters' split for this customer (labcore.capacity.TEACHING)
    tripled = fleet_under_load(s.tenants, s.gpu_hourly_usd, a.adapter_mb, 3 * s.tenant_qps, assumptions=a)
    return Quiz(
        "capstone_quiz",
        "Chapter 16: putting it together",
        (
            MultipleChoice(
                "A request names llama-3-8b:tenant-07@1.0.0. Which check stops an adapter that was trained on another "
                "checkpoint of llama-3-8b?",
                (
                    Choice(
                        "The registry, when the adapter is registered: its base digest differs from the served "
                        "checkpoint's",
                        True,
                        "Right: at serving time nothing fails, the adapter just answers worse, so registration is the "
                        "one cheap place to catch it.",
                    ),
                    Choice(
                        "The router's base check, when the request arrives",
                        False,
                        "The router only compares base names; both say llama-3-8b, so the request passes.",
                    ),
                    Choice(
                        "The cache, when it loads the adapter",
                        False,
                        "The cache checks size against the VRAM budget; the adapter's shapes match the base, so it "
                        "loads without a word.",
                    ),
                ),
            ),
            MultipleChoice(
                f"The chapter's {s.tenants} customers fit one H100 with room for thousands more adapters. What sizes "
                "their shared fleet once each customer sends three times as many requests?",
                (
                    Choice(
                        "The load: requests per second over what one GPU sustains",
                        True,
                        f"Right: {3 * s.tenants * s.tenant_qps:g} requests per second, "
                        f"{DYNAMIC_OVERHEAD:.0%} more for dynamic serving, need {tripled.multi_lora_gpus} GPUs of "
                        f"{GPU_QPS:g} each; memory still needs one.",
                    ),
                    Choice(
                        "The adapter pool: more requests need more adapters resident",
                        False,
                        "The number of adapters is the number of customers, unchanged; more requests per customer do "
                        "not need more memory.",
                    ),
                    Choice(
                        "The KV-cache pool",
                        False,
                        "The course keeps a fixed share of each GPU for the KV cache; the load sets the GPU count.",
                    ),
                ),
            ),
            Numeric(
                f"At three times the load ({3 * s.tenant_qps:g} requests per second for each of {s.tenants} customers, "
                f"{GPU_QPS:g} per GPU), how many GPUs does the shared fleet need?",
                answer=float(tripled.multi_lora_gpus),
                unit="GPUs",
                explanation=f"{s.tenants} × {3 * s.tenant_qps:g} × {1 + DYNAMIC_OVERHEAD:g} / {GPU_QPS:g} = "
                f"{load_gpus:g} GPUs of load"
                + ("." if load_gpus == int(load_gpus) else f", rounded up to {tripled.multi_lora_gpus}."),
                mistakes=(
                    (1.0, "is what memory alone needs; the load needs more."),
                    *(
                        ((load_gpus, "is a fraction of a GPU: round up, a GPU is rented whole."),)
                        if load_gpus != int(load_gpus)
                        else ()
                    ),
                    *(
                        (
                            (
                                float(math.ceil(3 * s.tenants * s.tenant_qps / GPU_QPS - 1e-9)),
                                f"forgets the {DYNAMIC_OVERHEAD:.0%} dynamic overhead: every shared GPU sustains "
                                f"{GPU_QPS / (1 + DYNAMIC_OVERHEAD):.1f} requests/s of LoRA traffic, not {GPU_QPS:g}.",
                            ),
                        )
                        if math.ceil(3 * s.tenants * s.tenant_qps / GPU_QPS - 1e-9) != tripled.multi_lora_gpus
                        else ()
                    ),
                    (float(s.tenants), "is one GPU per customer: the dedicated fleet, not the shared one."),
                ),
            ),
        ),
    )
