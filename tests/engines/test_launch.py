"""labcore.engines.launch and .plan: the commands a reader pastes, the adapters they serve, and plans that do not fit.

Every flag name and default here was read in the released wheels (vLLM 0.33.0: ``vllm/config/lora.py``
``LoRAConfig``, ``vllm/engine/arg_utils.py`` ``EngineArgs``, ``vllm/config/cache.py``, ``vllm/config/model.py``,
``vllm/config/parallel.py``, ``vllm/entrypoints/common/cli_args.py`` ``BaseFrontendArgs.lora_modules``; SGLang
0.5.23: ``sglang/srt/arg_groups/fields/lora.py``, ``model.py``, ``schedule.py``, ``parallel.py``).
``tests/engines/test_release_facts.py`` checks the same flags against the facts ``make engines`` extracts.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from labcore.engines import (
    DEFAULT_SLOTS,
    FLAG_DEFAULTS,
    AdapterLoading,
    LaunchFlag,
    PlanInputs,
    adapter_loading,
    fit_options,
    launch_commands,
    lora_slot_bytes,
    served_name,
    serving_plan,
)
from labcore.errors import LabcoreError, ModelConfigError
from labcore.gpus import load_gpu
from labcore.kv_cache import kv_bytes_per_sequence
from labcore.model_config import known_models

from .conftest import MIB, SHIPPED

SOURCE_TABLE = {
    ("vllm", "--enable-lora"): "False",
    ("vllm", "--max-loras"): "1",
    ("vllm", "--max-lora-rank"): "16",
    ("vllm", "--max-cpu-loras"): "None",
    ("vllm", "--lora-target-modules"): "None",
    ("vllm", "--gpu-memory-utilization"): "0.92",
    ("vllm", "--max-model-len"): "None",
    ("vllm", "--lora-modules"): "None",
    ("vllm", "--tensor-parallel-size"): "1",
    ("sglang", "--enable-lora"): "None",
    ("sglang", "--max-loras-per-batch"): "8",
    ("sglang", "--max-lora-rank"): "None",
    ("sglang", "--lora-target-modules"): "None",
    ("sglang", "--max-loaded-loras"): "None",
    ("sglang", "--mem-fraction-static"): "None",
    ("sglang", "--context-length"): "None",
    ("sglang", "--lora-paths"): "None",
    ("sglang", "--tp-size"): "1",
}


@pytest.mark.parametrize("targets", [None, ["q_proj", "v_proj"]])
def test_every_emitted_flag_and_default_is_in_the_source_table(targets):
    cmds = launch_commands(
        PlanInputs(
            model="llama-3.1-8b", gpu="H100-80GB", tenants=40, rank=16, context_tokens=8192, target_modules=targets
        )
    )
    for engine, cmd in cmds.items():
        for f in cmd.flags:
            assert SOURCE_TABLE[(engine, f.flag)] == f.default, f.flag
    assert {k: v for k, (v, _) in FLAG_DEFAULTS.items()} == SOURCE_TABLE


def test_the_commands_enable_lora_and_size_the_slots():
    cmds = launch_commands(PlanInputs(model="llama-3.1-8b", gpu="H100-80GB", tenants=40, rank=16, context_tokens=8192))
    v, s = cmds["vllm"], cmds["sglang"]
    modules = " ".join(f"tenant-{i:02d}=/adapters/tenant-{i:02d}" for i in range(1, 41))
    assert v.command == (
        "vllm serve meta-llama/Llama-3.1-8B --enable-lora --max-loras 8 --max-lora-rank 16 "
        f"--max-cpu-loras 40 --lora-modules {modules} --gpu-memory-utilization 0.9 "
        "--max-model-len 8192"
    )
    assert s.argv[:5] == ("python", "-m", "sglang.launch_server", "--model-path", "meta-llama/Llama-3.1-8B")
    assert f"--lora-paths {modules} --mem-fraction-static" in s.command and v.env == s.env == ()
    flags = {f.flag: f for f in s.flags}
    assert flags["--max-loras-per-batch"].value == str(DEFAULT_SLOTS + 1)  # the base model's requests count
    assert flags["--lora-target-modules"].value == "all" and flags["--max-loaded-loras"].value == "40"
    vflags = {f.flag: f for f in v.flags}
    assert vflags["--max-loras"].cost_mib == lora_slot_bytes("vllm", "llama-3.1-8b", slots=8, max_rank=16) / MIB
    assert (
        flags["--max-loras-per-batch"].cost_mib == lora_slot_bytes("sglang", "llama-3.1-8b", slots=9, max_rank=16) / MIB
    )
    assert vflags["--max-model-len"].cost_mib == kv_bytes_per_sequence("llama-3.1-8b", 8192) / MIB == 1024
    assert vflags["--gpu-memory-utilization"].cost_mib == load_gpu("H100-80GB").usable_mib * 0.9
    assert vflags["--max-cpu-loras"].memory == "host" and vflags["--enable-lora"].cost == ""


def test_vllm_rounds_the_rank_up_to_an_allowed_value_and_few_tenants_get_few_slots():
    cmds = launch_commands(
        PlanInputs(
            model="llama-3-8b", gpu="L4-24GB", tenants=3, rank=20, context_tokens=4096, target_modules=["q_proj"]
        )
    )
    vflags = {f.flag: f.value for f in cmds["vllm"].flags}
    assert vflags["--max-lora-rank"] == "32" and vflags["--max-loras"] == "3"
    assert vflags["--lora-target-modules"] == "q_proj"
    assert {f.flag: f.value for f in cmds["sglang"].flags}["--max-lora-rank"] == "20"
    assert cmds["vllm"].notes[0].startswith("rank 20 -> --max-lora-rank 32, the next value vLLM allows")
    assert not any("rank" in n for n in cmds["sglang"].notes)  # SGLang takes any rank as given
    exact = launch_commands(PlanInputs(model="llama-3-8b", gpu="L4-24GB", tenants=3, rank=32, context_tokens=4096))
    assert not exact["vllm"].notes


def test_each_route_says_how_the_adapters_arrive():
    """The fixed list names every tenant; the resolver and runtime routes set vLLM's variables and say how to load."""

    def cmds(mode):
        return launch_commands(
            PlanInputs(model="qwen3-8b", gpu="H100-80GB", tenants=3, rank=16, context_tokens=8192),
            adapters=adapter_loading(mode, 3, directory="/srv/lora"),
        )

    resolver = cmds("resolver")
    assert resolver["vllm"].env == (
        ("VLLM_ALLOW_RUNTIME_LORA_UPDATING", "True"),
        ("VLLM_PLUGINS", "lora_filesystem_resolver"),
        ("VLLM_LORA_RESOLVER_CACHE_DIR", "/srv/lora"),
    )
    assert resolver["vllm"].command.startswith(
        "VLLM_ALLOW_RUNTIME_LORA_UPDATING=True VLLM_PLUGINS=lora_filesystem_"
        "resolver VLLM_LORA_RESOLVER_CACHE_DIR=/srv/lora vllm serve Qwen/Qwen3-8B "
    )
    assert "base_model_name_or_path" in resolver["vllm"].notes[0] and "/srv/lora/tenant-01" in resolver["vllm"].notes[0]
    assert "--lora-modules" not in resolver["vllm"].command and "--lora-paths" not in resolver["sglang"].command
    assert resolver["sglang"].notes[0].startswith("no resolver in SGLang")
    assert "localhost:30000/load_lora_adapter" in resolver["sglang"].notes[1]
    runtime = cmds("runtime")
    assert runtime["vllm"].env == (("VLLM_ALLOW_RUNTIME_LORA_UPDATING", "True"),)
    assert "localhost:8000/v1/load_lora_adapter" in runtime["vllm"].notes[1]
    assert '"lora_path": "/srv/lora/tenant-01"' in runtime["vllm"].notes[1]
    # SGLang starts without --lora-paths only with both --max-lora-rank and --lora-target-modules (lora_hook.py)
    flags = {f.flag for f in runtime["sglang"].flags}
    assert {"--max-lora-rank", "--lora-target-modules"} <= flags
    static = cmds("static")
    assert (
        "--lora-modules tenant-01=/srv/lora/tenant-01 tenant-02=/srv/lora/tenant-02 tenant-03="
        in static["vllm"].command
    )


def test_the_commands_serve_the_hub_id_or_the_local_folder(tmp_path):
    for model in known_models():
        served = served_name(model)
        if served is None:
            assert model == "tiny-llama-demo"
            with pytest.raises(ModelConfigError, match="tiny-llama-demo has no published Hub repository"):
                launch_commands(PlanInputs(model=model, gpu="L4-24GB", tenants=1, rank=8, context_tokens=512))
            continue
        assert "/" in served and served in SHIPPED[model]["_source"] + SHIPPED[model].get(
            "_published_params_source", ""
        )
    (tmp_path / "config.json").write_text(json.dumps(SHIPPED["llama-3.1-8b"]))
    local = launch_commands(PlanInputs(model=str(tmp_path), gpu="L4-24GB", tenants=2, rank=8, context_tokens=2048))
    hub = launch_commands(PlanInputs(model="llama-3.1-8b", gpu="L4-24GB", tenants=2, rank=8, context_tokens=2048))
    assert local["vllm"].argv[2] == str(tmp_path) and local["sglang"].argv[4] == str(tmp_path)
    assert [f.cost_mib for f in local["vllm"].flags] == [f.cost_mib for f in hub["vllm"].flags]


def test_a_plan_that_does_not_fit_has_no_command_and_says_what_would():
    vllm, sglang = serving_plan(
        PlanInputs(model="mixtral-8x7b", gpu="H100-80GB", tenants=40, rank=16, context_tokens=8192)
    )
    assert vllm.command is None and sglang.command is None
    assert vllm.short_mib == pytest.approx(vllm.base_mib + vllm.lora_mib + vllm.sequence_mib - vllm.budget_mib)
    assert round(vllm.short_mib) == 20413
    options = fit_options(PlanInputs(model="mixtral-8x7b", gpu="H100-80GB", tenants=40, rank=16, context_tokens=8192))
    assert options[:2] == ["tensor parallel 2 (--tp 2: two H100-80GB)", "a larger GPU: H200-141GB"]
    assert all(
        p.fits and p.command
        for p in serving_plan(
            PlanInputs(model="mixtral-8x7b", gpu="H100-80GB", tenants=40, rank=16, context_tokens=8192, tp=2)
        )
    )
    assert all(
        p.fits
        for p in serving_plan(
            PlanInputs(model="mixtral-8x7b", gpu="H200-141GB", tenants=40, rank=16, context_tokens=8192)
        )
    )
    # slots and rank: a plan short by less than its slot buffers fits with fewer slots or a lower rank
    tight = PlanInputs(model="llama-3.1-8b", gpu="L4-24GB", tenants=8, rank=256, context_tokens=8192)
    assert not all(p.fits for p in serving_plan(tight))
    options = fit_options(tight)
    slots = int(options[2].split("--slots ")[1])
    rank = int(options[3].split("--rank ")[1])
    assert all(p.fits for p in serving_plan(replace(tight, slots=slots)))
    assert not all(p.fits for p in serving_plan(replace(tight, slots=slots + 1)))
    assert all(p.fits for p in serving_plan(replace(tight, rank=rank)))


def test_the_plan_leaves_the_kv_cache_what_weights_and_buffers_do_not_take():
    vllm, sglang = serving_plan(
        PlanInputs(model="llama-3.1-8b", gpu="H100-80GB", tenants=40, rank=16, context_tokens=8192)
    )
    assert vllm.usable_mib == 81559 and vllm.budget_mib == pytest.approx(81559 * 0.9)
    assert vllm.kv_mib == pytest.approx(vllm.budget_mib - vllm.base_mib - vllm.lora_mib)
    assert vllm.sequences == int(vllm.kv_mib * MIB // (1024 * MIB)) and vllm.fits
    assert sglang.lora_mib > vllm.lora_mib  # one more slot for the base model
    tight = serving_plan(PlanInputs(model="llama-3.1-70b", gpu="A100-40GB", tenants=4, rank=16, context_tokens=8192))
    assert not any(p.fits for p in tight) and all(p.kv_mib == 0 and p.command is None for p in tight)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"tenants": 0}, r"tenants must be a positive int, got 0"),
        ({"rank": 1000}, r"rank must be an int in \[1, 512\], got 1000"),
        ({"context_tokens": -1}, r"context_tokens must be a positive int, got -1"),
        ({"memory_fraction": 1.5}, r"memory_fraction must be a finite number in \[0, 1\], got 1.5"),
        ({"memory_fraction": 0}, r"memory_fraction must be a finite number > 0, got 0"),
        ({"gpu": "B300"}, r"unknown GPU 'B300'"),
        ({"model": "llama-9"}, r"llama-9: neither a known model"),
    ],
)
def test_bad_plan_arguments_are_refused_by_name(kwargs, match):
    args = {"model": "llama-3-8b", "gpu": "H100-80GB", "tenants": 4, "rank": 16, "context_tokens": 4096, **kwargs}
    with pytest.raises(LabcoreError if "gpu" in kwargs or "model" in kwargs else ValueError, match=match):
        launch_commands(PlanInputs(**args))


def test_the_functions_take_one_plan_value():
    with pytest.raises(TypeError, match="inputs must be a PlanInputs, got str: 'llama-3-8b'"):
        launch_commands("llama-3-8b")
    with pytest.raises(TypeError, match="inputs must be a PlanInputs, got str"):
        fit_options("llama-3-8b")
    with pytest.raises(TypeError):
        PlanInputs("llama-3-8b", "L4-24GB", 4, 16, 4096)  # keyword only


def test_flag_records_validate():
    with pytest.raises(ValueError, match=r"flag must start with '--', got 'max-loras'"):
        LaunchFlag("vllm", "max-loras", "8", "1", None, "", "src")
    with pytest.raises(ValueError, match=r"a cost needs its memory"):
        LaunchFlag("vllm", "--max-loras", "8", "1", 1.0, "", "src")
    with pytest.raises(ValueError, match=r"memory must be one of 'gpu', 'host', '', got 'disk'"):
        LaunchFlag("vllm", "--max-loras", "8", "1", 1.0, "disk", "src")


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (("by post", "/a", ("a",)), r"adapter loading must be one of 'static', 'resolver', 'runtime', got 'by post'"),
        (("static", "/a", ("a", "a")), r"adapter names must be one or more distinct values, got \['a', 'a'\]"),
        (("static", "/a", ()), r"adapter names must be one or more distinct values, got \[\]"),
        (("static", "/a b", ("a",)), r"take no spaces, '=' or ',', got '/a b'"),
    ],
)
def test_an_adapter_route_is_refused_by_name(args, match):
    with pytest.raises(ValueError, match=match):
        AdapterLoading(*args)
