"""labcore.engines.launch and .plan: every flag name and default checked against the engines' source.

The tables below were written from the source as read (no tag could be checked out: the vLLM and
SGLang snapshots are over the fetch tool's size limit, so the files were read in the public code
index and in vLLM's versioned API reference; the stored copies carry no line numbers, so each
entry names the class and field instead):

* vLLM ``vllm/config/lora.py``, ``class LoRAConfig``, fields ``max_lora_rank`` (16), ``max_loras``
  (``Field(default=1, ge=1)``), ``max_cpu_loras`` (None), ``target_modules`` (None), as shown in the
  API reference for v0.22.1; ``vllm/engine/arg_utils.py`` ``EngineArgs.enable_lora`` (store_true);
  ``vllm/config/cache.py`` ``CacheConfig.gpu_memory_utilization`` (``Field(default=0.92, gt=0, le=1)``
  in the 'stable' API reference; 0.9 through v0.11.1); ``vllm/config/model.py``
  ``ModelConfig.max_model_len`` (``SkipValidation[int] = None``).
* SGLang ``python/sglang/srt/server_args.py``, ``@dataclasses.dataclass class ServerArgs``: group
  "# Model and tokenizer" ``context_length: Optional[int] = None``; group "# Memory and scheduling"
  ``mem_fraction_static: Optional[float] = None``; group "# LoRA" ``enable_lora: Optional[bool] = None``,
  ``max_lora_rank: Optional[int] = None``, ``lora_target_modules: ... = None``,
  ``max_loaded_loras: Optional[int] = None``, ``max_loras_per_batch: int = 8``.
"""

from __future__ import annotations

import pytest

from labcore.engines import DEFAULT_SLOTS, FLAG_DEFAULTS, LaunchFlag, launch_commands, lora_slot_bytes, serving_plan
from labcore.errors import LabcoreError
from labcore.gpus import load_gpu
from labcore.kv_cache import kv_bytes_per_sequence

from .conftest import MIB

SOURCE_TABLE = {
    ("vllm", "--enable-lora"): "False",
    ("vllm", "--max-loras"): "1",
    ("vllm", "--max-lora-rank"): "16",
    ("vllm", "--max-cpu-loras"): "None",
    ("vllm", "--lora-target-modules"): "None",
    ("vllm", "--gpu-memory-utilization"): "0.92",
    ("vllm", "--max-model-len"): "None",
    ("sglang", "--enable-lora"): "None",
    ("sglang", "--max-loras-per-batch"): "8",
    ("sglang", "--max-lora-rank"): "None",
    ("sglang", "--lora-target-modules"): "None",
    ("sglang", "--max-loaded-loras"): "None",
    ("sglang", "--mem-fraction-static"): "None",
    ("sglang", "--context-length"): "None",
}


@pytest.mark.parametrize("targets", [None, ["q_proj", "v_proj"]])
def test_every_emitted_flag_and_default_is_in_the_source_table(targets):
    cmds = launch_commands("llama-3.1-8b", "H100-80GB", tenants=40, rank=16, context_tokens=8192,
                           target_modules=targets)
    for engine, cmd in cmds.items():
        for f in cmd.flags:
            assert SOURCE_TABLE[(engine, f.flag)] == f.default, f.flag
    assert {k: v for k, (v, _) in FLAG_DEFAULTS.items()} == SOURCE_TABLE


def test_the_commands_enable_lora_and_size_the_slots():
    cmds = launch_commands("llama-3.1-8b", "H100-80GB", tenants=40, rank=16, context_tokens=8192)
    v, s = cmds["vllm"], cmds["sglang"]
    assert v.command == ("vllm serve llama-3.1-8b --enable-lora --max-loras 8 --max-lora-rank 16 --max-cpu-loras 40 "
                         "--gpu-memory-utilization 0.9 --max-model-len 8192")
    assert s.argv[:5] == ("python", "-m", "sglang.launch_server", "--model-path", "llama-3.1-8b")
    flags = {f.flag: f for f in s.flags}
    assert flags["--max-loras-per-batch"].value == str(DEFAULT_SLOTS + 1)  # the base model's requests count
    assert flags["--lora-target-modules"].value == "all" and flags["--max-loaded-loras"].value == "40"
    vflags = {f.flag: f for f in v.flags}
    assert vflags["--max-loras"].cost_mib == lora_slot_bytes("vllm", "llama-3.1-8b", slots=8, max_rank=16) / MIB
    assert flags["--max-loras-per-batch"].cost_mib == lora_slot_bytes("sglang", "llama-3.1-8b", slots=9,
                                                                      max_rank=16) / MIB
    assert vflags["--max-model-len"].cost_mib == kv_bytes_per_sequence("llama-3.1-8b", 8192) / MIB == 1024
    assert vflags["--gpu-memory-utilization"].cost_mib == load_gpu("H100-80GB").usable_mib * 0.9
    assert vflags["--max-cpu-loras"].memory == "host" and vflags["--enable-lora"].cost == ""


def test_vllm_rounds_the_rank_up_to_an_allowed_value_and_few_tenants_get_few_slots():
    cmds = launch_commands("llama-3-8b", "L4-24GB", tenants=3, rank=20, context_tokens=4096, target_modules=["q_proj"])
    vflags = {f.flag: f.value for f in cmds["vllm"].flags}
    assert vflags["--max-lora-rank"] == "32" and vflags["--max-loras"] == "3"
    assert vflags["--lora-target-modules"] == "q_proj"
    assert {f.flag: f.value for f in cmds["sglang"].flags}["--max-lora-rank"] == "20"


def test_the_plan_leaves_the_kv_cache_what_weights_and_buffers_do_not_take():
    vllm, sglang = serving_plan("llama-3.1-8b", "H100-80GB", tenants=40, rank=16, context_tokens=8192)
    assert vllm.usable_mib == 81559 and vllm.budget_mib == pytest.approx(81559 * 0.9)
    assert vllm.kv_mib == pytest.approx(vllm.budget_mib - vllm.base_mib - vllm.lora_mib)
    assert vllm.sequences == int(vllm.kv_mib * MIB // (1024 * MIB)) and vllm.fits
    assert sglang.lora_mib > vllm.lora_mib  # one more slot for the base model
    tight = serving_plan("llama-3.1-70b", "A100-40GB", tenants=4, rank=16, context_tokens=8192)
    assert not any(p.fits for p in tight) and all(p.kv_mib == 0 for p in tight)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"tenants": 0}, r"tenants must be a positive int, got 0"),
    ({"rank": 1000}, r"rank must be at most vLLM's largest --max-lora-rank 512, got 1000"),
    ({"context_tokens": -1}, r"context_tokens must be a positive int, got -1"),
    ({"memory_fraction": 1.5}, r"memory_fraction must be a finite number in \[0, 1\], got 1.5"),
    ({"memory_fraction": 0}, r"memory_fraction must be a finite number > 0, got 0"),
    ({"gpu": "B300"}, r"unknown GPU 'B300'"),
    ({"model": "llama-9"}, r"llama-9: neither a known model"),
])
def test_bad_plan_arguments_are_refused_by_name(kwargs, match):
    args = {"model": "llama-3-8b", "gpu": "H100-80GB", "tenants": 4, "rank": 16, "context_tokens": 4096, **kwargs}
    with pytest.raises(LabcoreError if "gpu" in kwargs or "model" in kwargs else ValueError, match=match):
        launch_commands(args.pop("model"), args.pop("gpu"), **args)


def test_flag_records_validate():
    with pytest.raises(ValueError, match=r"flag must start with '--', got 'max-loras'"):
        LaunchFlag("vllm", "max-loras", "8", "1", None, "", "src")
    with pytest.raises(ValueError, match=r"a cost needs its memory"):
        LaunchFlag("vllm", "--max-loras", "8", "1", 1.0, "", "src")
