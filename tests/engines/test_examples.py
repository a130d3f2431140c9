"""The example files chapter 15 and the fleet calculator read: they parse, say what they are, and hold only keys
``vllm bench serve --save-result`` writes at vLLM 0.33.0; calibrate marks each number's origin."""

from __future__ import annotations

import io
import json
import re
import zipfile
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from labcore.__main__ import COURSE_BASE_LATENCY_MS, main
from labcore.engines.measured import BENCH_FIELDS, EXAMPLES, calibrate
from labcore.engines.releases import release_facts
from labcore.fleet import GPU_QPS
from labcore.gpus import load_gpu

SMI = EXAMPLES / "nvidia-smi-a100-80gb.example.csv"
BENCH = EXAMPLES / "vllm-bench-serve-a100-80gb.example-not-measured.json"
WHEEL = Path.home() / ".cache" / "labcore-engines" / "vllm-0.33.0-cp38-abi3-manylinux_2_28_x86_64.whl"
#: The keys of the run's settings that serve.py adds to ``result_json`` (no BenchmarkMetrics field behind them).
SETTINGS = {
    "date",
    "endpoint_type",
    "backend",
    "label",
    "model_id",
    "tokenizer_id",
    "num_prompts",
    "request_rate",
    "burstiness",
    "max_concurrency",
    "duration",
}
#: result keys named differently from the BenchmarkMetrics field they are read from
RENAMED = {"total_input_tokens": "total_input", "total_output_tokens": "total_output"}


def test_the_files_say_what_they_are():
    assert "not-measured" in BENCH.name and "example" in SMI.name
    note = " ".join((EXAMPLES / "README.md").read_text(encoding="utf-8").split())
    assert "an example in the format vLLM 0.33.0 writes, with numbers chosen for the example, not a measurement" in note
    assert "keyu-tian/SparK #8" in note and "81252MiB" in note and BENCH.name in note and SMI.name in note


def test_calibrate_takes_each_number_from_its_file_and_says_so():
    c = calibrate("A100-80GB", course_latency_ms=COURSE_BASE_LATENCY_MS, nvidia_smi=SMI, vllm_bench=BENCH)
    assert (c.usable_mib, c.gpu_qps) == (81252.0, 14.2)
    assert load_gpu("A100-80GB").usable_mib == 81920  # the course's figure, 668 MiB more than the file's driver
    memory, qps, latency = c.rows()
    assert memory == ("GPU memory (MiB)", "81,920", "81,252", f"{SMI} (A100-SXM-80GB)")
    assert qps == ("one GPU's throughput (requests/s)", f"{GPU_QPS:g}", "14.2", str(BENCH))
    assert latency[1:] == (
        f"{COURSE_BASE_LATENCY_MS:g} ms a request",
        "TTFT mean 74.5 ms, p99 260 ms; ITL mean 15.8 ms, p99 41 ms",
        str(BENCH),
    )


def test_without_files_every_number_is_the_courses():
    c = calibrate("A100-80GB", course_latency_ms=COURSE_BASE_LATENCY_MS)
    assert (c.usable_mib, c.gpu_qps) == (81920.0, GPU_QPS)
    assert all(row[1] == row[2] and "the course's" in row[3] for row in c.rows())
    assert calibrate("A100-80GB", course_latency_ms=40, gpu_qps=12).rows()[1][2:] == ("12", "yours (--gpu-qps)")
    with pytest.raises(ValueError, match="--gpu-qps or --vllm-bench, not both"):
        calibrate("A100-80GB", course_latency_ms=40, gpu_qps=12, vllm_bench=BENCH)


def test_the_plan_command_prints_calibrates_lines():
    """python -m labcore plan with the two example files prints what calibrate says, line for line."""
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(
            [
                "plan",
                "--model",
                "llama-3.1-8b",
                "--gpu",
                "A100-80GB",
                "--tenants",
                "40",
                "--rank",
                "16",
                "--nvidia-smi",
                str(SMI),
                "--vllm-bench",
                str(BENCH),
            ]
        )
    assert status == 0
    c = calibrate("A100-80GB", course_latency_ms=COURSE_BASE_LATENCY_MS, nvidia_smi=SMI, vllm_bench=BENCH)
    assert "\n".join(c.lines()) in out.getvalue()
    assert "GPU memory the driver reports: 81,252 MiB" in out.getvalue()
    assert "on GPUs of 14.2 requests/s" in out.getvalue()


def test_the_example_json_metric_keys_are_benchmark_metrics_fields_at_0_33_0():
    fields = set(release_facts("vllm")["cited_files"]["vllm/benchmarks/serve.py"])
    data = json.loads(BENCH.read_text(encoding="utf-8"))
    assert set(BENCH_FIELDS) <= set(data)
    for key in set(data) - SETTINGS:
        p99 = re.fullmatch(r"p99_(\w+)_ms", key)
        field = f"percentiles_{p99.group(1)}_ms" if p99 else RENAMED.get(key, key)
        assert f"BenchmarkMetrics.{field}" in fields, key
    assert data["completed"] / data["duration"] == pytest.approx(data["request_throughput"], abs=0.05)


@pytest.mark.skipif(not WHEEL.exists(), reason="the vLLM 0.33.0 wheel is not cached (make engines downloads it)")
def test_every_key_is_one_serve_py_writes_at_0_33_0():
    """Read from the wheel: each key is a string serve.py writes, or one process_one_metric forms for the default
    percentile metrics (ttft, tpot, itl) and percentile (99)."""
    with zipfile.ZipFile(WHEEL) as wheel:
        source = wheel.read("vllm/benchmarks/serve.py").decode()
    assert 'default_percentile_metrics = "ttft,tpot,itl"' in source and 'default="99"' in source
    for key in json.loads(BENCH.read_text(encoding="utf-8")):
        formed = re.fullmatch(r"(mean|median|std|p99)_(ttft|tpot|itl)_ms", key)
        assert formed or f'"{key}": ' in source or f'result_json["{key}"] = ' in source, key


def test_the_readers_own_files_replace_the_examples_one_by_one(tmp_path):
    """The fleet calculator's Live cell: a file of the reader's in the folder is read, the other stays the example."""
    from labcore.engines.measured import reader_files

    assert reader_files(tmp_path) == {"nvidia_smi": SMI, "vllm_bench": BENCH}
    (tmp_path / "nvidia-smi.csv").write_text("name, memory.total [MiB]\nNVIDIA A100-SXM4-80GB, 81920 MiB\n")
    files = reader_files(tmp_path)
    assert files == {"nvidia_smi": tmp_path / "nvidia-smi.csv", "vllm_bench": BENCH}
    c = calibrate("A100-80GB", course_latency_ms=COURSE_BASE_LATENCY_MS, **files)
    assert c.rows(names_only=True)[0][2:] == ("81,920", "nvidia-smi.csv (NVIDIA A100-SXM4-80GB)")
    assert c.lines(names_only=True)[1] == f"  one GPU's throughput 14.2 requests/s: from {BENCH.name}"
    (tmp_path / "vllm-bench.json").write_text('{"request_throughput": 9.5}')
    with pytest.raises(ValueError, match="vllm-bench.json lacks mean_ttft_ms"):
        calibrate("A100-80GB", course_latency_ms=COURSE_BASE_LATENCY_MS, **reader_files(tmp_path))
    with pytest.raises(ValueError, match="reports NVIDIA A100-SXM4-80GB, not an H100-80GB"):
        calibrate("H100-80GB", course_latency_ms=COURSE_BASE_LATENCY_MS, **files)
