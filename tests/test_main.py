"""python -m labcore: the worked example with no arguments, and the plan subcommand with its errors."""

import subprocess
import sys

import pytest

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
    assert "as its driver reports it (79.6 GiB) - base 15.0 GiB" in first and "80 GB" not in first


def test_plan_prints_memory_buffers_kv_and_both_commands():
    out = run(*PLAN).stdout
    assert "GPU memory the driver reports: 81,559 MiB" in out and "73,403 MiB" in out
    assert "base weights (bf16): 15,317 MiB" in out
    assert "vllm    704.6" in out and "sglang  792.7" in out  # slot buffers per engine
    assert "459,055" in out and "    56\n" in out  # KV tokens left and sequences at 8,192 tokens
    assert ("vllm serve llama-3.1-8b --enable-lora --max-loras 8 --max-lora-rank 16 --max-cpu-loras 40 "
            "--gpu-memory-utilization 0.9 --max-model-len 8192") in out
    assert "python -m sglang.launch_server --model-path llama-3.1-8b --enable-lora --max-loras-per-batch 9" in out
    assert "--max-cpu-loras 40  (default None; costs 3,200 MiB of host memory)" in out
    assert run(*PLAN).stdout == out


def test_plan_prices_the_fleet_with_the_course_facts():
    """The fleet line is labcore.capacity.fleet_quote's: the numbers the chapters and the calculator print."""
    from labcore.capacity import DYNAMIC_OVERHEAD, fleet_quote

    out = run(*PLAN).stdout
    quote = fleet_quote("llama-3.1-8b", "H100-80GB", tenants=40, tenant_qps=0.5, rank=16)
    assert "the GPU's memory as the driver reports it (79.6 GiB)" in out
    assert "the base from its parameter count (15.0 GiB)" in out
    assert "a KV pool of 24 sequences of 8,192 tokens (24.0 GiB)" in out and f"{DYNAMIC_OVERHEAD:.0%} dynamic" in out
    assert f"multi-LoRA {quote.plan.multi_lora_gpus} (${quote.plan.multi_lora_monthly_usd:,.0f}/month, sized by load)" in out
    busy = run(*PLAN, "--tenant-qps", "5").stdout
    assert "multi-LoRA 11 " in busy  # 40 x 5 x 1.05 / 20 = 10.5, rounded up: the 5% is charged


def test_plan_takes_targets_context_and_slots():
    out = run(*PLAN, "--targets", "q_proj", "v_proj", "--context", "4096", "--slots", "4").stdout
    assert "--lora-target-modules q_proj v_proj" in out and "--max-model-len 4096" in out and "--max-loras 4 " in out


def test_help_names_the_subcommand_and_the_choices():
    assert "plan" in run("--help").stdout
    text = run("plan", "--help").stdout
    assert "--tenants" in text and "H100-80GB" in text and "llama-3.1-8b" in text


@pytest.mark.parametrize(("change", "message"), [
    ({"--model": "llama-9"}, "llama-9: neither a known model"),
    ({"--gpu": "B300"}, "unknown GPU 'B300'; valid: ["),
    ({"--tenants": "0"}, "tenants must be a positive int, got 0"),
    ({"--rank": "1000"}, "rank must be at most vLLM's largest --max-lora-rank 512, got 1000"),
    ({"--tenants": "many"}, "argument --tenants: invalid int value: 'many'"),
])
def test_plan_errors_name_the_value_exit_2_and_print_nothing(change, message):
    args = list(PLAN)
    for flag, value in change.items():
        args[args.index(flag) + 1] = value
    result = run(*args, check=False)
    assert result.returncode == 2 and result.stdout == "" and message in result.stderr


def test_a_missing_required_argument_exits_2():
    result = run("plan", "--model", "llama-3-8b", check=False)
    assert result.returncode == 2 and result.stdout == "" and "--gpu" in result.stderr
