"""Panels for the fleet plan: the bill of one GPU per tenant against many adapters per GPU.

Chapters 1 and 6 open their panels on the same experiment: 40 tenants with the lab's 16 MiB adapters,
each sending 0.25 requests/s, on H100s at USD 3.20 an hour that sustain 20 requests/s, with the chapters' GPU
split (:data:`labcore.capacity.TEACHING`) and the 5% dynamic overhead. The fleet calculator prices the engine's
plan instead, from :data:`CALCULATOR` (:func:`labcore.capacity.fleet_quote`, as ``python -m labcore plan``).

>>> p = fleet_savings_panel()
>>> p.row()["savings_pct"], p.row()["multi_lora_gpus"]
(97.5, 1)
>>> fleet_load_panel().row(tenant_qps=5.0)["multi_lora_gpus"]      # 40 × 5 × 1.05 = 210 requests/s
11
"""

from __future__ import annotations

from typing import Any

from ..capacity import COURSE, COURSE_ADAPTER_MB, DYNAMIC_OVERHEAD, TEACHING, fleet_quote, fleet_under_load
from ..fleet import GPU_QPS, FleetPlan
from ..implementation import YOURS_COLOR, Implementation, Missing, implementation, on_your_code
from ..plots import OKABE_ITO
from ._panel import Control, Lines, Panel, Series

__all__ = [
    "fleet_savings_panel",
    "fleet_load_panel",
    "fleet_calculator_panel",
    "plan_measures",
    "plan_readout",
    "load_readout",
    "QUIET_TENANT_QPS",
    "your_fleet_panel",
    "your_fleet_state",
]

PRICES_USD_PER_HOUR: tuple[float, ...] = tuple(round(0.8 * i, 2) for i in range(1, 7))  # 0.80, 1.60 ... 4.80
ADAPTER_SIZES_MB: tuple[float, ...] = (16.0, 256.0, 1024.0, 4096.0)
TENANT_QPS: tuple[float, ...] = (0.25, 0.5, 1.0, 2.0, 5.0, 10.0)
#: The chapters' experiment: a quiet tenant's load (requests/s), the default of both chapters' panels.
QUIET_TENANT_QPS = 0.25
#: Chapter 6's load slider: 0.25 to 20 requests/s per tenant, in steps of 0.25.
LOAD_PANEL_QPS: tuple[float, ...] = tuple(0.25 * i for i in range(1, 81))
BILLS = (
    Series("dedicated_monthly_usd", "one GPU per tenant", OKABE_ITO["vermillion"]),
    Series("multi_lora_monthly_usd", "multi-LoRA", OKABE_ITO["bluish_green"]),
)


def plan_measures(p: FleetPlan) -> dict[str, Any]:
    """Return the numbers a fleet panel shows for one plan."""
    return {
        "dedicated_gpus": p.dedicated_gpus,
        "multi_lora_gpus": p.multi_lora_gpus,
        "dedicated_monthly_usd": p.dedicated_monthly_usd,
        "multi_lora_monthly_usd": p.multi_lora_monthly_usd,
        "savings_usd": p.savings_usd,
        "savings_pct": p.savings_pct,
        "memory_bound_gpus": p.memory_bound_gpus,
        "load_bound_gpus": p.load_bound_gpus,
        "binding": p.binding_constraint,
    }


def _gpus(n: int) -> str:
    return f"{n:,} GPU" + ("" if n == 1 else "s")


def plan_readout(row: Any) -> str:
    """Return the three readout lines of a fleet state."""
    why = "traffic" if row["binding"] == "load" else "adapter memory"
    return (
        f"{row['tenants']} tenants, one GPU each: {_gpus(row['dedicated_gpus'])}, "
        f"${row['dedicated_monthly_usd']:,.0f}/mo\n"
        f"multi-LoRA: {_gpus(row['multi_lora_gpus'])}, ${row['multi_lora_monthly_usd']:,.0f}/mo: "
        f"{abs(row['savings_pct']):.1f}% {'cheaper' if row['savings_pct'] >= 0 else 'dearer'}\n"
        f"sized by {why} (memory needs {row['memory_bound_gpus']}, "
        f"load {row['load_bound_gpus']})"
    )


def load_readout(row: Any) -> str:
    """Return a fleet state's readout with the traffic the shared GPUs carry, overhead included."""
    gpu_qps = row.get("gpu_qps", GPU_QPS)
    heavy = row["tenants"] * row["tenant_qps"] * (1 + DYNAMIC_OVERHEAD)
    return (
        plan_readout(row) + f"\nload {row['tenants']} × {row['tenant_qps']:g} × {1 + DYNAMIC_OVERHEAD:g} = "
        f"{heavy:,.4g} req/s, {gpu_qps:g} per GPU"
    )


def _price() -> Control:
    return Control("gpu_hourly_usd", "GPU price (USD/hour)", values=PRICES_USD_PER_HOUR, default=3.2)


def _size(values: tuple[float, ...] = ADAPTER_SIZES_MB) -> Control:
    lab = f"{COURSE_ADAPTER_MB:g} MiB (r={TEACHING.rank} {TEACHING.modules} on 8B)"
    names = {COURSE_ADAPTER_MB: lab, 256.0: "256 MiB", 1024.0: "1 GiB", 4096.0: "4 GiB"}
    return Control(
        "adapter_vram_mb",
        "adapter size (MiB)",
        values=values,
        default=COURSE_ADAPTER_MB,
        labels=tuple(names[v] for v in values),
    )


def fleet_savings_panel() -> Panel:
    """Move tenants, GPU price, adapter size and per-tenant load; read both bills and the saving (chapter 1)."""
    return Panel(
        "fleet_savings_panel",
        title="Monthly bill: one GPU per tenant vs one base with many adapters",
        controls=[
            Control("tenants", "tenants", values=tuple(range(10, 201, 10)), default=40),
            _price(),
            _size(),
            Control("tenant_qps", "load per tenant (requests/s)", values=TENANT_QPS, default=QUIET_TENANT_QPS),
        ],
        compute=lambda tenants, gpu_hourly_usd, adapter_vram_mb, tenant_qps: plan_measures(
            fleet_under_load(tenants, gpu_hourly_usd, adapter_vram_mb, tenant_qps)
        ),
        readout=load_readout,
        chart=Lines(
            "tenants",
            BILLS,
            y_title="monthly bill (USD, log scale)",
            y_log=True,
            y_domain=(500, 1_000_000),
            y_format="$,.0f",
        ),
    )


def fleet_load_panel() -> Panel:
    """Raise the load per tenant: the saving falls to the dedicated fleet's idle share less the overhead (ch. 6)."""
    return Panel(
        "fleet_load_panel",
        title="Under load the shared fleet grows: the saving shrinks",
        controls=[
            Control("tenant_qps", "load per tenant (requests/s)", values=LOAD_PANEL_QPS, default=QUIET_TENANT_QPS),
            Control("tenants", "tenants", values=(10, 20, 40, 80, 160), default=40),
            Control("gpu_qps", "one GPU sustains (requests/s)", values=(10.0, 20.0, 40.0), default=20.0),
            _size((16.0, 1024.0, 4096.0)),
        ],
        compute=lambda tenant_qps, tenants, gpu_qps, adapter_vram_mb: plan_measures(
            fleet_under_load(tenants, 3.2, adapter_vram_mb, tenant_qps, gpu_qps=gpu_qps)
        ),
        readout=load_readout,
        chart=Lines(
            "tenant_qps",
            BILLS,
            y_title="monthly bill at $3.20/GPU-hour (USD, log)",
            y_log=True,
            y_domain=(1_000, 1_000_000),
            y_format="$,.0f",
        ),
    )


CALCULATOR_MODELS: tuple[str, ...] = (
    "llama-3.2-3b",
    "llama-3.1-8b",
    "qwen2.5-7b",
    "mistral-7b",
    "gemma-2-9b",
    "qwen3-14b",
    "llama-3.3-70b",
)
CALCULATOR_GPUS: tuple[str, ...] = ("L4-24GB", "A100-40GB", "A100-80GB", "H100-80GB", "H200-141GB")
#: The calculator's assumptions: :data:`labcore.capacity.COURSE` on Llama-3.1-8B with rank-16 adapters on q and v,
#: the launch panel's defaults; the panel changes only the model, the GPU and the tenants.
CALCULATOR = COURSE.but(model="llama-3.1-8b", target_modules=("q_proj", "v_proj"))


def _quote_state(tenants: int, tenant_qps: float, model: str, gpu: str, gpu_hourly_usd: float) -> dict[str, Any]:
    q = fleet_quote(
        CALCULATOR.but(model=model, gpu=gpu, tenants=tenants), tenant_qps=tenant_qps, gpu_hourly_usd=gpu_hourly_usd
    )
    p = q.plan
    row: dict[str, Any] = {
        "gpu_gib": p.usable_mib / 1024,
        "budget_gib": p.budget_mib / 1024,
        "adapter_mb": q.assumptions.adapter_mb,
        "base_gib": p.base_mib / 1024,
        "lora_mib": p.lora_mib,
        "sequences": p.sequences,
        "short_mib": p.short_mib,
        "fits": q.fits,
    }
    if q.fleet is None:
        keys = (
            "dedicated_gpus",
            "multi_lora_gpus",
            "dedicated_monthly_usd",
            "multi_lora_monthly_usd",
            "savings_usd",
            "savings_pct",
            "memory_bound_gpus",
            "load_bound_gpus",
            "binding",
        )
        return row | dict.fromkeys(keys)
    return row | plan_measures(q.fleet)


def _quote_readout(r: Any) -> str:
    head = f"{r['model']}: {r['base_gib']:,.1f} GiB in bf16\n{r['gpu']}: {r['budget_gib']:,.1f} GiB for the engine"
    if not r["fits"]:
        return (
            f"{head}\nweights + slots + one sequence: {r['short_mib']:,.0f} MiB over;\n"
            "a bigger GPU or tensor parallel (python -m labcore plan)"
        )
    return (
        f"{head}\nslots {r['lora_mib']:,.0f} MiB (r={CALCULATOR.rank} on q,v), "
        f"{r['sequences']:,} sequences\n{plan_readout(r)}"
    )


def fleet_calculator_panel() -> Panel:
    """Quote both fleets for your tenants, load, model, GPU and price on the engine's plan (the fleet calculator).

    >>> row = fleet_calculator_panel().row()
    >>> row["sequences"], row["multi_lora_gpus"], row["binding"]
    (56, 2, 'load')
    """
    return Panel(
        "fleet_calculator_panel",
        title="Your fleet: one GPU per tenant vs one base with many adapters",
        controls=[
            Control("tenants", "tenants", values=(10, 40, 100, 200, 500), default=CALCULATOR.tenants),
            Control("tenant_qps", "load per tenant (requests/s)", values=(0.1, 0.5, 1.0, 2.0, 5.0), default=0.5),
            Control("model", "base model", values=CALCULATOR_MODELS, default=CALCULATOR.model),
            Control("gpu", "GPU", values=CALCULATOR_GPUS, default=CALCULATOR.gpu),
            Control("gpu_hourly_usd", "GPU price (USD/hour)", values=(1.0, 2.0, 3.2, 6.0), default=3.2),
        ],
        compute=_quote_state,
        readout=_quote_readout,
        chart=Lines(
            "tenants",
            BILLS,
            y_title="monthly bill (USD, log scale)",
            x_log=True,
            y_log=True,
            y_domain=(500, 20_000_000),
            y_format="$,.0f",
            x_title="tenants (log)",
        ),
    )


YOUR_LOADS: tuple[float, ...] = tuple(round(0.25 * i, 2) for i in range(1, 21))  # 0.25 ... 5.0 requests/s per tenant


def your_fleet_state(lab: Implementation, tenant_qps: float, tenants: int) -> dict[str, Any]:
    """Plan ``tenants`` 16 MiB adapters at ``tenant_qps`` each with the reference's ``fleet_plan`` and ``lab``'s.

    Both run with ``fleet_plan``'s own defaults (the lab's function, as the learner writes it): at these loads the
    traffic sizes the fleet, never the adapters' memory.

    >>> from labcore.implementation import implementation
    >>> s = your_fleet_state(implementation("reference"), 1.0, 40)
    >>> s["multi_lora_gpus"] == s["yours_multi_lora_gpus"], s["dedicated_gpus"]
    (True, 40)
    """
    state: dict[str, Any] = {}
    for who, code in (("", implementation("reference")), ("yours_", lab)):
        plan = code.get("fleet_plan")(
            code.get("tenant_adapters")(tenants, vram_mb=16.0), tenant_qps=tenant_qps, gpu_qps=GPU_QPS
        )
        state |= {
            f"{who}multi_lora_gpus": plan.multi_lora_gpus,
            f"{who}dedicated_gpus": plan.dedicated_gpus,
            f"{who}savings_pct": plan.savings_pct,
        }
    return state


def _your_readout(r: Any, lab: Implementation) -> str:
    head = (
        f"{r['tenants']} tenants at {r['tenant_qps']:g} req/s, a GPU {GPU_QPS:g} req/s\n"
        f"reference: {_gpus(r['multi_lora_gpus'])} vs {r['dedicated_gpus']:,} dedicated, "
        f"{r['savings_pct']:.1f}% saved"
    )
    if lab.is_reference:
        return head + '\nin the live version, "mine" runs your fleet_plan too'
    return (
        f"{head}\nyours: {_gpus(r['yours_multi_lora_gpus'])} vs {r['yours_dedicated_gpus']:,} dedicated, "
        f"{r['yours_savings_pct']:.1f}% saved"
    )


def your_fleet_panel(lab: Implementation | None = None) -> Panel | Missing:
    """Plan a fleet under load with ``lab``'s ``fleet_plan`` (a learner's ``lab/mine``) beside the reference (ch. 6).

    Returns the :class:`~labcore.implementation.Missing` function where the learner's plan is not written yet.
    """

    def build(code: Implementation) -> Panel:
        series = [
            Series("dedicated_gpus", "reference: one GPU per tenant", OKABE_ITO["vermillion"], dashed=True),
            Series("multi_lora_gpus", "reference: multi-LoRA", OKABE_ITO["bluish_green"]),
        ]
        if not code.is_reference:
            series.append(Series("yours_multi_lora_gpus", "yours: multi-LoRA", YOURS_COLOR))
        return Panel(
            "your_fleet_panel",
            title="Your fleet plan against the reference, under load",
            controls=[
                Control("tenant_qps", "load per tenant (requests/s)", values=YOUR_LOADS, default=1.0),
                Control("tenants", "tenants (16 MiB adapters)", values=(10, 40, 100), default=40),
            ],
            compute=lambda tenant_qps, tenants: your_fleet_state(code, tenant_qps, tenants),
            readout=lambda r: _your_readout(r, code),
            chart=Lines("tenant_qps", tuple(series), y_title="GPUs", y_log=True, y_domain=(1, 100)),
            variant="" if code.is_reference else code.name,
        )

    return on_your_code(lab, build)
