"""python -m labcore: the worked example with no arguments, and the plan subcommand with its errors."""

import io
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

import labcore
from labcore.__main__ import main
from labcore.engines import PlanInputs, serving_plan
from labcore.engines.plan import plan_fleet
from labcore.gpus import known_gpus
from labcore.model_config import known_models

PLAN = ["plan", "--model", "llama-3.1-8b", "--gpu", "H100-80GB", "--tenants", "40", "--rank", "16"]


def run(*args, check=True):
    return subprocess.run([sys.executable, "-m", "labcore", *args], capture_output=True, text=True, check=check)


def test_worked_example_is_deterministic_and_complete():
    first, second = run().stdout, run().stdout
    assert first == second
    assert "REFUSED    finance-bot@1.0.0: BaseDigestMismatchError" in first
    assert "VersionExistsError" in first
    assert "['1.9.0', '1.10.0', '2.1.0']" in first
    assert "97.5% saved" in first
    assert "as its driver reports it (79.6 GiB) x 0.9 for the engine (71.7 GiB) - base 15.0 GiB" in first
    assert "80 GB" not in first


def test_plan_prints_memory_buffers_kv_and_both_commands():
    out = run(*PLAN).stdout
    assert out.startswith("llama-3.1-8b (meta-llama/Llama-3.1-8B) on one H100-80GB: 40 tenants")
    assert "GPU memory the driver reports: 81,559 MiB" in out and "73,403 MiB" in out
    assert "base weights (bf16): 15,317 MiB" in out
    assert "vllm    704.6" in out and "sglang  792.7" in out  # slot buffers per engine
    assert "459,055" in out and "    56\n" in out  # KV tokens left and sequences at 8,192 tokens
    modules = " ".join(f"tenant-{i:02d}=/adapters/tenant-{i:02d}" for i in range(1, 41))
    assert (
        "  vllm serve meta-llama/Llama-3.1-8B --enable-lora --max-loras 8 --max-lora-rank 16 --max-cpu-loras 40 "
        f"--lora-modules {modules} --gpu-memory-utilization 0.9 --max-model-len 8192\n"
    ) in out
    assert (
        "  python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --enable-lora "
        f"--max-loras-per-batch 9 --max-lora-rank 16 --max-loaded-loras 40 --lora-target-modules all "
        f"--lora-paths {modules} --mem-fraction-static 0.9 --context-length 8192\n"
    ) in out
    assert "--max-cpu-loras 40  (default None; costs 3,200 MiB of host memory)" in out
    assert "adapters: static, one PEFT folder per tenant in /adapters (tenant-01 ... tenant-40)" in out
    assert run(*PLAN).stdout == out


def test_plan_prices_the_fleet_of_replicas_of_its_own_table():
    """The fleet line takes the table's slots, rank, targets, context and sequences: replicas of the vLLM plan."""
    out = run(*PLAN).stdout
    assert (
        "fleet: every replica runs the vllm plan above (the base, 704.6 MiB of slot buffers shared by the 40 "
        "tenants, the rest in host memory, and the KV cache left: 56 sequences of 8,192 tokens); 5% dynamic"
    ) in out
    assert "dedicated 40 ($93,440/month), multi-LoRA 2 ($4,672/month, sized by load): 95% saved" in out
    busy = run(*PLAN, "--tenant-qps", "5").stdout
    assert "multi-LoRA 11 " in busy  # 40 x 5 x 1.05 / 20 = 10.5, rounded up: the 5% is charged


def test_a_rounded_rank_is_said_and_the_routes_set_their_environment():
    out = run(
        "plan",
        "--model",
        "qwen3-8b",
        "--gpu",
        "H100-80GB",
        "--tenants",
        "3",
        "--rank",
        "24",
        "--adapters",
        "resolver",
        "--adapter-dir",
        "/srv/lora",
    ).stdout
    assert "  rank 24 -> --max-lora-rank 32, the next value vLLM allows (1, 8, 16, 32, 64, 128, 256, 320, 512)" in out
    assert (
        "  VLLM_ALLOW_RUNTIME_LORA_UPDATING=True VLLM_PLUGINS=lora_filesystem_resolver "
        "VLLM_LORA_RESOLVER_CACHE_DIR=/srv/lora vllm serve Qwen/Qwen3-8B --enable-lora"
    ) in out
    assert "--max-lora-rank 24 " in out  # SGLang takes the rank as it is
    assert "no resolver in SGLang: load each tenant's adapter once the server is up" in out
    assert "curl -X POST localhost:30000/load_lora_adapter" in out


@pytest.mark.parametrize(
    ("model", "gpu", "short", "fits_with"),
    [
        ("mixtral-8x7b", "H100-80GB", "by 20,413 MiB", "tensor parallel 2 (--tp 2: two H100-80GB)"),
        ("llama-3-70b", "A10G-24GB", "by 119,632 MiB", "tensor parallel 8 (--tp 8: eight A10G-24GB)"),
    ],
)
def test_a_plan_that_does_not_fit_prints_no_command_and_says_what_would(model, gpu, short, fits_with):
    args = ["plan", "--model", model, "--gpu", gpu, "--tenants", "40", "--rank", "16"]
    out = run(*args).stdout
    assert "vllm serve" not in out and "sglang.launch_server" not in out and "fleet:" not in out
    assert f"does not fit on one {gpu}: no launch command" in out and short in out
    assert f"what would fit, one change at a time:\n  {fits_with}\n" in out
    tp = fits_with.split("--tp ")[1].split(":")[0]
    fitted = run(*args, "--tp", tp).stdout
    assert "vllm serve" in fitted and f"--tensor-parallel-size {tp} " in fitted and f"--tp-size {tp} " in fitted


def test_plan_serves_a_local_folder_by_its_path(tmp_path):
    (tmp_path / "config.json").write_text((Path(labcore.__file__).parent / "data/models/llama-3.1-8b.json").read_text())
    local = run("plan", "--model", str(tmp_path), "--gpu", "L4-24GB", "--tenants", "2", "--rank", "8").stdout
    hub = run("plan", "--model", "llama-3.1-8b", "--gpu", "L4-24GB", "--tenants", "2", "--rank", "8").stdout
    assert f"vllm serve {tmp_path} --enable-lora" in local and f"--model-path {tmp_path} --enable-lora" in local
    assert local.split("\n", 1)[1].replace(str(tmp_path), "meta-llama/Llama-3.1-8B") == hub.split("\n", 1)[1]
    demo = run("plan", "--model", "tiny-llama-demo", "--gpu", "L4-24GB", "--tenants", "2", "--rank", "8").stdout
    assert (
        "tiny-llama-demo has no published Hub repository: give --model the folder" in demo and "vllm serve" not in demo
    )


def test_plan_takes_targets_context_and_slots():
    out = run(*PLAN, "--targets", "q_proj", "v_proj", "--context", "4096", "--slots", "4").stdout
    assert "--lora-target-modules q_proj v_proj" in out and "--max-model-len 4096" in out and "--max-loras 4 " in out


def test_help_names_the_subcommand_and_the_choices():
    assert "plan" in run("--help").stdout
    text = run("plan", "--help").stdout
    assert "--tenants" in text and "H100-80GB" in text and "llama-3.1-8b" in text


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"--model": "llama-9"}, "llama-9: neither a known model"),
        ({"--gpu": "B300"}, "unknown GPU 'B300'; valid: ["),
        ({"--tenants": "0"}, "tenants must be a positive int, got 0"),
        ({"--rank": "1000"}, "rank must be an int in [1, 512], got 1000"),
        ({"--tenants": "many"}, "argument --tenants: invalid int value: 'many'"),
    ],
)
def test_plan_errors_name_the_value_exit_2_and_print_nothing(change, message):
    args = list(PLAN)
    for flag, value in change.items():
        args[args.index(flag) + 1] = value
    result = run(*args, check=False)
    assert result.returncode == 2 and result.stdout == "" and message in result.stderr


def test_a_missing_required_argument_exits_2():
    result = run("plan", "--model", "llama-3-8b", check=False)
    assert result.returncode == 2 and result.stdout == "" and "--gpu" in result.stderr


def _plan_out(*argv: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["plan", *argv]) == 0
    return out.getvalue()


def _number(text: str) -> float:
    return float(text.replace(",", ""))


@pytest.mark.parametrize("model", known_models())
def test_every_number_the_plan_prints_follows_from_its_table(model):
    """For every GPU: the flags' costs, the shortfall and the fleet line are the table's numbers, same inputs."""
    for gpu in known_gpus():
        out = _plan_out("--model", model, "--gpu", gpu, "--tenants", "40", "--rank", "24", "--context", "16384")
        plans = serving_plan(PlanInputs(model=model, gpu=gpu, tenants=40, rank=24, context_tokens=16384))
        rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.startswith(("vllm ", "sglang "))}
        for p in plans:
            lora, kv, tokens, sequences = (_number(v) for v in rows[p.engine])
            assert (lora, kv, tokens, sequences) == (round(p.lora_mib, 1), round(p.kv_mib), p.kv_tokens, p.sequences)
            assert p.sequences == int(p.kv_mib // p.sequence_mib) if p.kv_mib else p.sequences == 0
            assert p.kv_mib == pytest.approx(max(0.0, p.budget_mib - p.base_mib - p.lora_mib))
        if not all(p.fits for p in plans):
            for p in plans:
                if not p.fits:
                    assert f"the engine may take by {p.short_mib:,.0f} MiB" in out
            assert "fleet:" not in out and "vllm serve" not in out and "launch_server" not in out
            continue
        vllm, sglang = plans
        if vllm.command is None:  # the demo model: no Hub repository, so no command, but the fleet still prices
            assert "no published Hub repository" in out
        else:
            costs = {f.flag: f for f in vllm.command.flags}
            assert costs["--max-loras"].cost_mib == pytest.approx(vllm.lora_mib)
            assert costs["--max-model-len"].cost_mib == pytest.approx(vllm.sequence_mib)
            assert costs["--gpu-memory-utilization"].cost_mib == pytest.approx(vllm.budget_mib)
            assert {f.flag: f for f in sglang.command.flags}["--max-loras-per-batch"].cost_mib == pytest.approx(
                sglang.lora_mib
            )
            assert "--max-lora-rank 32 " in vllm.command.command and "--max-lora-rank 24 " in sglang.command.command
            assert "--max-model-len 16384 " in vllm.command.command + " "
        fleet = plan_fleet(vllm, tenants=40)
        assert (
            f"the base, {vllm.lora_mib:,.1f} MiB of slot buffers shared by the 40 tenants, the rest in host memory, "
            f"and the KV cache left: {vllm.sequences:,} sequences of 16,384 tokens"
        ) in out
        assert (
            f"dedicated {fleet.dedicated_gpus} (${fleet.dedicated_monthly_usd:,.0f}/month), multi-LoRA "
            f"{fleet.multi_lora_gpus} (${fleet.multi_lora_monthly_usd:,.0f}/month, sized by "
            f"{fleet.binding_constraint})"
        ) in out
        assert fleet.memory_bound_gpus == 1  # the slot buffers are in the table: memory adds no replica
