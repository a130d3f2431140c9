"""One plan, one set of assumptions: every number ``python -m labcore plan`` prints follows from the table's inputs.

For every shipped model (labcore/data/models) on every GPU (labcore/data/gpus.json) the command is run as a reader
runs it; the test reads its output back and checks, against :class:`labcore.capacity.ServingAssumptions` built from
the same arguments, that the table is that value's plan, that the fleet line's slot buffers and sequences are the
table's vLLM row, and that its replica count is what those numbers and the load give (recomputed here, not read
from the library's fleet plan).
"""

from __future__ import annotations

import contextlib
import io
import math
import re

import pytest

from labcore.__main__ import main
from labcore.capacity import COURSE, DYNAMIC_OVERHEAD, TEACHING, ServingAssumptions, fleet_quote, memory_split
from labcore.engines import PlanInputs, serving_plan
from labcore.fleet import GPU_QPS
from labcore.gpus import known_gpus
from labcore.model_config import known_models

TENANTS, RANK, CONTEXT, TENANT_QPS = 40, 16, 8192, 0.5
ROW = re.compile(r"^(vllm|sglang)\s+([\d,.]+)\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)$", re.M)
FLEET = re.compile(
    r"^fleet: every replica runs the vllm plan above \(the base, ([\d,.]+) MiB of slot buffers shared by "
    r"the (\d+) tenants, the rest in host memory, and the KV cache left: ([\d,]+) sequences of ([\d,]+) "
    r"tokens\); (\d+)% dynamic overhead$",
    re.M,
)
BILL = re.compile(
    r"^  (\d+) tenants at ([\d.]+) requests/s on GPUs of ([\d.]+) requests/s at \$([\d.]+)/hour: "
    r"dedicated (\d+) \(\$([\d,]+)/month\), multi-LoRA (\d+) \(\$([\d,]+)/month, sized by (\w+)\)",
    re.M,
)


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _plan_output(model: str, gpu: str, *extra: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(
            [
                "plan",
                "--model",
                model,
                "--gpu",
                gpu,
                "--tenants",
                str(TENANTS),
                "--rank",
                str(RANK),
                "--context",
                str(CONTEXT),
                "--tenant-qps",
                str(TENANT_QPS),
                *extra,
            ]
        )
    assert status == 0, err.getvalue()
    return out.getvalue()


@pytest.mark.parametrize("gpu", known_gpus())
@pytest.mark.parametrize("model", known_models())
def test_every_number_the_plan_prints_follows_from_its_tables_assumptions(model: str, gpu: str) -> None:
    out = _plan_output(model, gpu)
    a = ServingAssumptions(model=model, gpu=gpu, rank=RANK, context_tokens=CONTEXT, tenants=TENANTS)
    rows = {m.group(1): [_number(g) for g in m.groups()[1:]] for m in ROW.finditer(out)}
    assert set(rows) == {"vllm", "sglang"}, out
    for p in a.plans:  # the table is the assumptions' plan, engine by engine
        lora, kv, tokens, sequences = rows[p.engine]
        assert (lora, kv, tokens, sequences) == (round(p.lora_mib, 1), round(p.kv_mib), p.kv_tokens, p.sequences)
        # and its sequences follow from its own figures: the KV left over one sequence's reservation
        assert sequences == max(0, math.floor((p.budget_mib - p.base_mib - p.lora_mib) / p.sequence_mib + 1e-9))
    fleet, bill = FLEET.search(out), BILL.search(out)
    if not all(p.fits for p in a.plans):
        assert fleet is None and bill is None and "no launch command" in out
        assert not fleet_quote(a).fits or not a.but(engine="sglang").plan.fits
        return
    assert fleet and bill, out
    slot_mib, tenants, fleet_sequences, context, overhead_pct = (_number(g) for g in fleet.groups())
    assert (slot_mib, fleet_sequences) == (rows["vllm"][0], rows["vllm"][3])  # the table's vLLM row, not a second split
    assert (tenants, context, overhead_pct) == (TENANTS, CONTEXT, round(100 * DYNAMIC_OVERHEAD))
    # the replicas: memory never adds one (the slots are shared, the rest wait in host memory); the load does
    load_gpus = math.ceil(TENANTS * TENANT_QPS * (1 + DYNAMIC_OVERHEAD) / GPU_QPS - 1e-9)
    assert (int(bill.group(5)), int(bill.group(7))) == (TENANTS, max(1, load_gpus))
    assert int(bill.group(7)) == a.fleet(tenant_qps=TENANT_QPS).multi_lora_gpus == fleet_quote(a).fleet.multi_lora_gpus


def test_the_plans_arguments_reach_every_number() -> None:
    """Targets, rank, context and slots given on the command line change the table and the fleet line together."""
    out = _plan_output(
        "llama-3.1-8b",
        "H100-80GB",
        "--targets",
        "q_proj",
        "v_proj",
        "--slots",
        "4",
        "--context",
        "32768",
        "--tenant-qps",
        "5",
    )
    a = ServingAssumptions(
        model="llama-3.1-8b",
        gpu="H100-80GB",
        rank=RANK,
        context_tokens=32768,
        tenants=TENANTS,
        target_modules=("q_proj", "v_proj"),
        slots=4,
    )
    vllm = a.plan
    fleet = FLEET.search(out)
    assert fleet and _number(fleet.group(1)) == round(vllm.lora_mib, 1) and _number(fleet.group(3)) == vllm.sequences
    assert _number(fleet.group(4)) == 32768
    assert vllm.sequences != COURSE.but(model="llama-3.1-8b").sequences  # the arguments did change the plan
    assert int(BILL.search(out).group(7)) == math.ceil(TENANTS * 5 * (1 + DYNAMIC_OVERHEAD) / GPU_QPS)


def test_the_teaching_value_is_the_course_value_with_its_simplifications_named() -> None:
    """The chapters' assumptions differ from the engine plan's only in the fields they say they simplify."""
    same = (
        "model",
        "gpu",
        "rank",
        "context_tokens",
        "tenants",
        "slots",
        "memory_fraction",
        "engine",
        "dtype_bytes",
        "tp",
        "usable_mib",
    )
    assert all(getattr(TEACHING, f) == getattr(COURSE, f) for f in same)
    assert (TEACHING.target_modules, COURSE.target_modules) == (("q_proj", "v_proj"), None)
    assert (TEACHING.sequences, COURSE.sequences) == (24, COURSE.plan.sequences)
    split = TEACHING.split()
    assert split.budget_gib == pytest.approx(COURSE.plan.budget_mib / 1024)  # the engine's 0.9 share, not the GPU
    assert split.base_gib == pytest.approx(COURSE.plan.base_mib / 1024)


def test_assumptions_refuse_a_bad_value_by_name() -> None:
    with pytest.raises(ValueError, match="engine must be one of"):
        COURSE.but(engine="tgi")
    with pytest.raises(ValueError, match="target_modules must be a list"):
        COURSE.but(target_modules="q_proj")
    with pytest.raises(ValueError, match="kv_sequences"):
        COURSE.but(kv_sequences=-1)
    with pytest.raises(TypeError):
        ServingAssumptions("llama-3-8b", "H100-80GB", 16, 8192)  # keyword only
    with pytest.raises(ValueError, match=r"memory_fraction must be a finite number in \[0, 1\], got 1.5"):
        memory_split(memory_fraction=1.5)


def test_the_assumptions_are_the_plan_inputs_the_engines_take() -> None:
    """ServingAssumptions is a PlanInputs: serving_plan takes it as it is, and its engine and KV pool change no plan."""
    inputs = PlanInputs(model=COURSE.model, gpu=COURSE.gpu, tenants=COURSE.tenants, rank=16, context_tokens=8192)
    assert serving_plan(inputs) == serving_plan(COURSE) == COURSE.plans == TEACHING.but(target_modules=None).plans
