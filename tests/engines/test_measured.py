"""The reader's own numbers: python -m labcore plan --nvidia-smi FILE --vllm-bench FILE, and the files it refuses."""

from __future__ import annotations

import json

import pytest

from labcore.__main__ import main
from labcore.engines import PlanInputs, serving_plan
from labcore.engines.measured import BENCH_FIELDS, parse_nvidia_smi, parse_vllm_bench

SMI_H100 = "name, memory.total [MiB]\nNVIDIA H100 80GB HBM3, 81559 MiB\n"
BENCH = {
    "request_throughput": 17.25,
    "mean_ttft_ms": 52.4,
    "p99_ttft_ms": 181.0,
    "mean_itl_ms": 11.2,
    "p99_itl_ms": 30.5,
    "output_throughput": 3300.0,
    "model_id": "meta-llama/Llama-3.1-8B",
}
PLAN = ["plan", "--model", "llama-3.1-8b", "--gpu", "H100-80GB", "--tenants", "40", "--rank", "16"]


def plan(capsys, *argv):
    status = main([*PLAN, *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def files(tmp_path):
    def write(name, text):
        path = tmp_path / name
        path.write_text(text)
        return str(path)

    return write


def test_the_plan_takes_the_readers_memory_throughput_and_latency(capsys, files):
    smi = files("smi.csv", "name, memory.total [MiB]\nNVIDIA H100 80GB HBM3, 81000 MiB\n")
    bench = files("bench.json", json.dumps(BENCH))
    status, out, _ = plan(capsys, "--nvidia-smi", smi, "--vllm-bench", bench)
    assert status == 0
    assert "GPU memory the driver reports: 81,000 MiB; the engine may take 0.9 of it: 72,900 MiB" in out
    assert f"  GPU memory 81,000 MiB: from {smi} (NVIDIA H100 80GB HBM3)" in out
    assert f"  one GPU's throughput 17.25 requests/s: from {bench}" in out
    assert f"  base latency: TTFT mean 52.4 ms, p99 181 ms; ITL mean 11.2 ms, p99 30.5 ms: from {bench}" in out
    mine = serving_plan(
        PlanInputs(model="llama-3.1-8b", gpu="H100-80GB", tenants=40, rank=16, context_tokens=8192, usable_mib=81000)
    )
    course = serving_plan(PlanInputs(model="llama-3.1-8b", gpu="H100-80GB", tenants=40, rank=16, context_tokens=8192))
    assert mine[0].kv_mib == pytest.approx(course[0].kv_mib - 559 * 0.9)  # the 559 MiB less, at 0.9
    assert f"vllm    704.6                  {mine[0].kv_mib:,.0f}" in out
    assert (
        "on GPUs of 17.25 requests/s" in out and "--gpu-memory-utilization 0.9  (default 0.92; costs 72,900 MiB" in out
    )
    # 40 x 0.5 x 1.05 = 21 requests/s: two replicas at 20 (the course's default), still two at 17.25; at 5 req/s each
    status, busy, _ = plan(capsys, "--vllm-bench", bench, "--tenant-qps", "5")
    assert "multi-LoRA 13 " in busy  # 40 x 5 x 1.05 / 17.25 = 12.2, rounded up (11 at the default 20)


def test_without_files_the_output_says_every_number_is_the_courses(capsys):
    _, out, _ = plan(capsys)
    assert "  GPU memory 81,559 MiB: the course's figure for an H100-80GB (labcore/data/gpus.json)" in out
    assert "  one GPU's throughput 20 requests/s: the course's default (labcore.fleet.GPU_QPS)" in out
    assert "  base latency 40 ms a request: the course's default (the simulator's)" in out


@pytest.mark.parametrize(
    ("flag", "name", "text", "message"),
    [
        (
            "--nvidia-smi",
            "smi.csv",
            "name, memory.total [MiB]\nNVIDIA L4, 23034 MiB\n",
            "reports NVIDIA L4, not an H100-80GB: run it on the GPU you plan for",
        ),
        (
            "--nvidia-smi",
            "smi.csv",
            "name, memory.total [MiB]\nNVIDIA A100-SXM4-80GB, 81920 MiB\n",
            "reports NVIDIA A100-SXM4-80GB, not an H100-80GB",
        ),
        (
            "--nvidia-smi",
            "smi.csv",
            "index, name\n0, NVIDIA H100 80GB HBM3\n",
            "is not what 'nvidia-smi --query-gpu=name,memory.total --format=csv' prints",
        ),
        ("--nvidia-smi", "smi.csv", "name, memory.total [MiB]\n", "lists no GPU under its header"),
        (
            "--nvidia-smi",
            "smi.csv",
            "name, memory.total [MiB]\nNVIDIA H100 80GB HBM3, 81559 MiB\nNVIDIA H100 PCIe, 81559 MiB\n",
            "lists different GPUs",
        ),
        ("--nvidia-smi", "smi.json", json.dumps(BENCH), "is not what 'nvidia-smi"),
        ("--vllm-bench", "bench.json", SMI_H100, "is not JSON: give the file 'vllm bench serve --save-result' writes"),
        (
            "--vllm-bench",
            "bench.json",
            json.dumps({k: v for k, v in BENCH.items() if k != "p99_itl_ms"}),
            "lacks p99_itl_ms",
        ),
        (
            "--vllm-bench",
            "bench.json",
            json.dumps({**BENCH, "request_throughput": 0}),
            "request_throughput must be a finite number > 0, got 0",
        ),
        ("--vllm-bench", "bench.json", json.dumps([BENCH]), "is JSON but not one benchmark result"),
    ],
)
def test_a_file_of_the_wrong_kind_or_gpu_is_refused_by_name(capsys, files, flag, name, text, message):
    status, out, err = plan(capsys, flag, files(name, text))
    assert status == 2 and out == "" and message in err


def test_a_missing_file_and_two_throughputs_are_refused(capsys, files):
    status, out, err = plan(capsys, "--vllm-bench", "/nonexistent/bench.json")
    assert status == 2 and out == "" and "cannot read /nonexistent/bench.json" in err
    status, out, err = plan(capsys, "--vllm-bench", files("b.json", json.dumps(BENCH)), "--gpu-qps", "30")
    assert status == 2 and "--gpu-qps or --vllm-bench, not both" in err


def test_every_course_gpu_accepts_its_own_driver_line_and_refuses_the_others():
    from labcore.gpus import known_gpus, load_gpu

    lines = {
        "H100-80GB": "NVIDIA H100 80GB HBM3",
        "H200-141GB": "NVIDIA H200",
        "A100-40GB": "NVIDIA A100-SXM4-40GB",
        "A100-80GB": "NVIDIA A100-SXM4-80GB",
        "L4-24GB": "NVIDIA L4",
        "L40S-48GB": "NVIDIA L40S",
        "A10G-24GB": "NVIDIA A10G",
    }
    assert set(lines) == set(known_gpus())
    for gpu, name in lines.items():
        text = f"name, memory.total [MiB]\n{name}, {load_gpu(gpu).usable_mib} MiB\n"
        assert parse_nvidia_smi(text, gpu=gpu).memory_mib == load_gpu(gpu).usable_mib
        for other in set(lines) - {gpu}:
            with pytest.raises(ValueError, match=f"reports {name}, not"):
                parse_nvidia_smi(text, gpu=other)
    assert parse_vllm_bench(json.dumps(BENCH)).request_throughput == 17.25 and len(BENCH_FIELDS) == 5
