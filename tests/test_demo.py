"""Tests for labcore.demo: the real-LoRA demo's results reader and the files chapter 14 builds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labcore.demo import (
    DEMO_CHECKPOINTS,
    checkpoint_rows,
    load_demo_results,
    register_on_each_checkpoint,
    write_demo_adapter,
    write_digest_checkpoints,
    write_refused_adapters,
)
from labcore.digest import checkpoint_digest
from labcore.errors import AdapterFileError, UnsafeAdapterFormatError
from labcore.peft_files import read_peft_adapter

ROOT = Path(__file__).resolve().parents[1]
RESULTS = load_demo_results(ROOT / "results" / "real_lora.json")


def test_load_demo_results_reads_the_committed_file() -> None:
    results = RESULTS
    assert results["metrics.A.adapter_atbash_exact_match"] == 1.0
    assert results["registry.A"] == "registered"
    assert results["sizes.tensor_bytes"] == results["sizes.torch_tensor_bytes"]
    assert results.timings["unmerged_forward_ms"] > 0
    with pytest.raises(KeyError, match="metrics.Z"):
        results["metrics.Z.x"]


def test_load_demo_results_refuses_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(AdapterFileError, match="missing"):
        load_demo_results(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(AdapterFileError, match="not valid JSON"):
        load_demo_results(bad)
    bad.write_text(json.dumps({"format": "other"}))
    with pytest.raises(AdapterFileError, match="format must be"):
        load_demo_results(bad)
    bad.write_text(json.dumps({"format": "labcore.real_lora_demo/1", "deterministic": {}, "timings": []}))
    with pytest.raises(AdapterFileError, match="'timings'"):
        load_demo_results(bad)


def test_the_rebuilt_demo_adapter_has_the_real_files_layout(tmp_path: Path) -> None:
    sizes = RESULTS["sizes"]
    blob = write_demo_adapter(tmp_path / "a", sizes)
    files = read_peft_adapter(tmp_path / "a")
    assert len(blob) == files.file_bytes == sizes["file_bytes"]
    assert files.weights.header_bytes == sizes["header_bytes"] and files.tensor_bytes == sizes["tensor_bytes"]
    assert [[m.name, m.in_features, m.out_features, m.rank] for m in files.modules] == sizes["modules"]


def test_the_refused_adapters_are_refused_for_their_reasons(tmp_path: Path) -> None:
    write_demo_adapter(tmp_path / "a", RESULTS["sizes"])
    pickled, truncated = write_refused_adapters(tmp_path, tmp_path / "a")
    with pytest.raises(UnsafeAdapterFormatError):
        read_peft_adapter(pickled)
    with pytest.raises(AdapterFileError, match="adapter_model.safetensors"):
        read_peft_adapter(truncated)


def test_digest_checkpoints_same_content_same_digest_one_byte_another(tmp_path: Path) -> None:
    paths = write_digest_checkpoints(tmp_path, tensor_bytes=2**12)
    d = {k: checkpoint_digest(p) for k, p in paths.items()}
    assert d["original"] == d["resharded copy, 1970 timestamps"] != d["one byte changed"]
    assert (paths["resharded copy, 1970 timestamps"] / "training_args.bin").stat().st_mtime == 0


def test_registering_on_each_checkpoint_replays_the_recorded_outcomes(tmp_path: Path) -> None:
    write_demo_adapter(tmp_path / "a", RESULTS["sizes"])
    adapter = read_peft_adapter(tmp_path / "a").to_adapter(
        name="atbash",
        version="1.0.0",
        base_model="tiny-llama-demo",
        base_digest=RESULTS["digests"]["A"],
        serving_dtype="fp32",
    )
    outcomes, message = register_on_each_checkpoint(adapter, RESULTS["digests"])
    assert outcomes == dict(RESULTS["registry"]) and "digest" in message


def test_checkpoint_rows_describe_every_demo_checkpoint() -> None:
    rows = checkpoint_rows(RESULTS)
    assert [r["checkpoint"] for r in rows] == list(DEMO_CHECKPOINTS)
    assert rows[0]["registry"] == "registered" and rows[0]["adapter"] == "1.00"
