"""Run labcore from a terminal: ``python -m labcore`` (the worked example) or ``python -m labcore plan ...``.

With no subcommand it declares a base, registers adapters (one trained on another checkpoint,
refused), routes a sequence of requests through a small cache, and prints each decision, the
sizing and the fleet headline. ``plan`` prints one GPU's memory plan per engine, the two
launch commands, and the fleet for the tenants, every number from one
:class:`labcore.capacity.ServingAssumptions` built from the arguments (the GPU's memory as its driver reports it,
the engine's share of it, the base from its parameter count, the slot buffers, the KV cache they leave, the 5%
dynamic overhead): the table and the fleet line read the same plan, as the fleet calculator does. The output is
deterministic; a bad argument exits with status 2, a message on stderr and nothing on stdout.
"""

from __future__ import annotations

import argparse
import inspect
import io
import sys
from collections.abc import Sequence
from contextlib import redirect_stdout

from . import (
    LAB_HOST_TO_GPU,
    Adapter,
    AdapterCache,
    AdapterRegistry,
    LabcoreError,
    MultiLoRARouter,
    fleet_plan,
    tenant_adapters,
)
from .capacity import DYNAMIC_OVERHEAD, TEACHING, ServingAssumptions
from .engines import ADAPTER_MODES, DEFAULT_ADAPTER_DIR, EnginePlan, adapter_loading, fit_options, served_name
from .engines.measured import Calibration, calibrate
from .fleet import GPU_QPS
from .gpus import known_gpus
from .model_config import known_models
from .sim.replay import single_replica_router

BASE = "llama-3-8b"
#: The course's base latency per request: the simulator's default (labcore.sim.replay.single_replica_router).
COURSE_BASE_LATENCY_MS: float = inspect.signature(single_replica_router).parameters["base_latency_ms"].default
BASE_DIGEST = "sha256:9f2c4e"  # the checkpoint we serve
OTHER_DIGEST = "sha256:71ab03"  # "llama-3-8b" too, but another checkpoint


def _table(rows: list[tuple], header: tuple) -> str:
    cells = [tuple(str(c) for c in header)] + [tuple(str(c) for c in row) for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def worked_example() -> None:
    """Print the worked example."""
    teaching = TEACHING  # the chapters' assumptions (labcore.capacity): r=16 on q,v, a 24-sequence KV pool
    size_mb = teaching.square_adapter_mb
    print(
        f"1. Sizing: a Llama-3-8B LoRA, r={teaching.rank} on {teaching.modules}, bf16 = {size_mb:g} MiB "
        "(square-projection estimate)"
    )
    split = teaching.split(adapter_mb=size_mb)
    print(
        f"   an {split.gpu} as its driver reports it ({split.gpu_gib:.1f} GiB) x {split.memory_fraction:g} for the "
        f"engine ({split.budget_gib:.1f} GiB) - base {split.base_gib:.1f} GiB (parameters x 2 bytes) - KV cache "
        f"{split.kv_gib:.1f} GiB ({split.sequences} sequences of {split.context_tokens:,} tokens)"
    )
    print(f"   leaves {split.pool_gib:.1f} GiB: {split.adapters_that_fit:,} such adapters fit\n")

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
    print(
        f"3. Routing through a cache of {cache.budget_mb:g} MiB (two adapters), "
        f"{cache.transfer_mb_per_ms:g} MiB/ms host-to-device:"
    )
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
        rows.append(
            (ref, d.mode, str(d.adapter or "-"), hit, ",".join(map(str, d.evicted)) or "-", f"{d.total_latency_ms:.1f}")
        )
    print(_table(rows, ("request", "mode", "adapter", "cache", "evicted", "latency_ms")))
    print(
        f"   cache: {cache.hits} hits, {cache.misses} misses, evicted {[str(key) for key in cache.eviction_log]}, "
        f"{cache.used_mb:g}/{cache.budget_mb:g} MiB used\n"
    )

    plan = fleet_plan(tenant_adapters(40, vram_mb=size_mb), **split.fleet_kwargs())
    print(
        f"4. Fleet (memory only): {plan.tenants} tenants on $3.20/hr GPUs: dedicated {plan.dedicated_gpus} GPUs "
        f"(${plan.dedicated_monthly_usd:,.0f}/month) vs multi-LoRA {plan.multi_lora_gpus} GPU "
        f"(${plan.multi_lora_monthly_usd:,.0f}/month): {plan.savings_pct:g}% saved"
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m labcore", description="Without a subcommand, print the worked example."
    )
    sub = parser.add_subparsers(dest="command", metavar="{plan}")
    plan = sub.add_parser(
        "plan",
        help="plan one GPU for many LoRA tenants, per engine",
        description="Print one GPU's memory plan for vLLM and SGLang (driver-reported memory, "
        "base weights, LoRA slot buffers, KV cache left, concurrent sequences) and "
        "the two launch commands.",
    )
    plan.add_argument(
        "--model",
        required=True,
        metavar="NAME_OR_PATH",
        help=f"a shipped model config, served by its Hub id (one of: {', '.join(known_models())}), or "
        "a local folder holding config.json and the weights, served by that path",
    )
    plan.add_argument("--gpu", required=True, help=f"one of: {', '.join(known_gpus())}")
    plan.add_argument("--tenants", required=True, type=int, help="adapters to serve (one per tenant)")
    plan.add_argument("--rank", required=True, type=int, help="the largest adapter rank")
    plan.add_argument(
        "--context",
        type=int,
        default=8192,
        metavar="TOKENS",
        help="tokens per sequence (prompt and output); default 8192",
    )
    plan.add_argument("--slots", type=int, default=None, help="adapters in one batch; default: the tenants, at most 8")
    plan.add_argument(
        "--targets",
        nargs="+",
        default=None,
        metavar="MODULE",
        help="LoRA target modules (q_proj v_proj ..., or qkv_proj ...); default: every module the engine supports",
    )
    plan.add_argument(
        "--tp",
        type=int,
        default=1,
        metavar="GPUS",
        help="tensor-parallel size: the model split over this many GPUs of the kind; default 1",
    )
    plan.add_argument(
        "--adapters",
        choices=ADAPTER_MODES,
        default="static",
        help="how the adapters arrive: static (a fixed list at start), resolver (vLLM loads a "
        "tenant's folder on its first request), runtime (loaded by a call); default static",
    )
    plan.add_argument(
        "--adapter-dir",
        default=DEFAULT_ADAPTER_DIR,
        metavar="DIR",
        help=f"the folder holding one PEFT folder per tenant (tenant-1, ...); default {DEFAULT_ADAPTER_DIR}",
    )
    plan.add_argument(
        "--memory-fraction", type=float, default=0.9, help="share of the GPU's memory the engine may take; default 0.9"
    )
    plan.add_argument(
        "--tenant-qps",
        type=float,
        default=0.5,
        metavar="REQ_PER_S",
        help="requests per second each tenant sends, for the fleet line; default 0.5",
    )
    plan.add_argument(
        "--gpu-qps",
        type=float,
        default=None,
        metavar="REQ_PER_S",
        help=f"requests per second one GPU sustains on the base; default {GPU_QPS:g}, or your --vllm-bench file's",
    )
    plan.add_argument(
        "--nvidia-smi",
        metavar="FILE",
        default=None,
        help="your GPU's memory: the CSV 'nvidia-smi --query-gpu=name,memory.total --format=csv' prints",
    )
    plan.add_argument(
        "--vllm-bench",
        metavar="FILE",
        default=None,
        help="one GPU's throughput and base latency: the JSON 'vllm bench serve --save-result' writes",
    )
    plan.add_argument(
        "--price", type=float, default=3.20, metavar="USD_PER_HOUR", help="one GPU's price per hour; default 3.20"
    )
    return parser


def _print_commands(plans: Sequence[EnginePlan]) -> None:
    for p in plans:
        assert p.command is not None
        print(f"\n{p.engine}:\n  {p.command.command}")
        for name, value in p.command.env:
            print(f"    {name}={value}  (environment)")
        for f in p.command.flags:
            cost = f"; costs {f.cost}" if f.cost else ""
            print(f"    {f.flag} {f.value or '(switch)'}  (default {f.default}{cost})")
        for note in p.command.notes:
            print(f"  {note}")


def _print_shortfall(args: argparse.Namespace, plans: Sequence[EnginePlan], usable_mib: float | None) -> None:
    where = f"{args.tp} {args.gpu}" if args.tp > 1 else f"one {args.gpu}"
    print(f"\ndoes not fit on {where}: no launch command")
    for p in plans:
        if p.fits:
            continue
        print(
            f"  {p.engine}: the weights ({p.base_mib:,.0f} MiB), the LoRA slot buffers ({p.lora_mib:,.1f} MiB) and "
            f"one {args.context:,}-token sequence ({p.sequence_mib:,.0f} MiB) exceed the {p.budget_mib:,.0f} MiB "
            f"the engine may take by {p.short_mib:,.0f} MiB"
        )
    print("what would fit, one change at a time:")
    for option in fit_options(plan_assumptions(args, usable_mib=usable_mib)):
        print(f"  {option}")


def _measured(args: argparse.Namespace) -> Calibration:
    """Read the reader's files over the course's defaults (labcore.engines.measured.calibrate)."""
    calibration = calibrate(
        args.gpu,
        course_latency_ms=COURSE_BASE_LATENCY_MS,
        nvidia_smi=args.nvidia_smi,
        vllm_bench=args.vllm_bench,
        gpu_qps=args.gpu_qps,
    )
    args.gpu_qps = calibration.gpu_qps
    return calibration


def _print_plan(args: argparse.Namespace) -> None:
    calibration = _measured(args)
    usable = None if calibration.smi is None else calibration.usable_mib
    adapters = adapter_loading(args.adapters, args.tenants, directory=args.adapter_dir)
    assumptions = plan_assumptions(args, usable_mib=usable)
    plans = assumptions.engine_plans(adapters)
    first = plans[0]
    served = served_name(args.model)
    gpus = f"{args.tp} x {args.gpu} (tensor parallel, per GPU below)" if args.tp > 1 else f"one {args.gpu}"
    print(
        f"{args.model}{f' ({served})' if served and served != args.model else ''} on {gpus}: {args.tenants} "
        f"tenants, adapters up to rank {args.rank}, {args.context:,}-token sequences"
    )
    print(
        f"GPU memory the driver reports: {first.usable_mib:,.0f} MiB; the engine may take "
        f"{args.memory_fraction:g} of it: {first.budget_mib:,.0f} MiB"
    )
    print(f"base weights (bf16): {first.base_mib:,.0f} MiB")
    print("where the numbers come from (--nvidia-smi and --vllm-bench take your own):")
    print("\n".join(calibration.lines()))
    print()
    rows = [(p.engine, f"{p.lora_mib:,.1f}", f"{p.kv_mib:,.0f}", f"{p.kv_tokens:,}", f"{p.sequences:,}") for p in plans]
    print(_table(rows, ("engine", "LoRA slot buffers MiB", "KV cache left MiB", "KV tokens", "sequences at once")))
    if not all(p.fits for p in plans):
        _print_shortfall(args, plans, usable)
        return
    if served is None:
        print(
            f"\n{args.model} has no published Hub repository: give --model the folder of its config.json and "
            "weights for the launch commands"
        )
    else:
        print(
            f"\nadapters: {adapters.mode}, one PEFT folder per tenant in {adapters.directory} "
            f"({adapters.names[0]} ... {adapters.names[-1]})"
        )
        _print_commands(plans)
    _print_fleet(args, assumptions)


def plan_assumptions(args: argparse.Namespace, *, usable_mib: float | None = None) -> ServingAssumptions:
    """Return the one set of assumptions the plan's table, commands and fleet line all read (the vLLM plan's)."""
    return ServingAssumptions(
        model=args.model,
        gpu=args.gpu,
        rank=args.rank,
        context_tokens=args.context,
        target_modules=args.targets,
        tenants=args.tenants,
        slots=args.slots,
        memory_fraction=args.memory_fraction,
        tp=args.tp,
        usable_mib=usable_mib,
    )


def _print_fleet(args: argparse.Namespace, assumptions: ServingAssumptions) -> None:
    plan = assumptions.plan
    fleet = assumptions.fleet(tenant_qps=args.tenant_qps, gpu_qps=args.gpu_qps, gpu_hourly_usd=args.price)
    unit = f"replicas of {args.tp} GPUs" if args.tp > 1 else "GPUs"
    print(
        f"\nfleet: every replica runs the {plan.engine} plan above (the base, {plan.lora_mib:,.1f} MiB of slot "
        f"buffers shared by the {args.tenants} tenants, the rest in host memory, and the KV cache left: "
        f"{plan.sequences:,} sequences of {args.context:,} tokens); {DYNAMIC_OVERHEAD:.0%} dynamic overhead"
    )
    print(
        f"  {fleet.tenants} tenants at {args.tenant_qps:g} requests/s on {unit} of {args.gpu_qps:g} requests/s at "
        f"${args.price * args.tp:.2f}/hour: dedicated {fleet.dedicated_gpus} "
        f"(${fleet.dedicated_monthly_usd:,.0f}/month), "
        f"multi-LoRA {fleet.multi_lora_gpus} (${fleet.multi_lora_monthly_usd:,.0f}/month, sized by "
        f"{fleet.binding_constraint}): {fleet.savings_pct:g}% saved"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the worked example (no arguments) or a subcommand; return the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        worked_example()
        return 0
    out = io.StringIO()  # printed only once the whole plan is computed: an error leaves stdout empty
    try:
        with redirect_stdout(out):
            _print_plan(args)  # the library checks every value and names the bad one
    except (LabcoreError, ValueError) as error:
        print(f"python -m labcore plan: error: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
