"""The course's engine facts and every command it prints, checked against the facts ``make engines`` read in the wheels.

``labcore/data/engines/*.json`` is written by ``scripts/engine_facts.py`` from the released wheels of vLLM 0.33.0
and SGLang 0.5.23 (their Python source, parsed, not imported). The reader's path is walked: ``python -m labcore
plan`` for every shipped model on every GPU, and every flag of every command it prints must exist at the release,
with a value of the flag's type and, where the flag has choices, one of them.
"""

from __future__ import annotations

import io
import json
import re
import shlex
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from labcore.__main__ import main
from labcore.engines import (
    FLAG_DEFAULTS,
    SGLANG,
    SOURCES,
    VLLM,
    VLLM_MAX_LORA_RANKS,
    PlanInputs,
    adapter_loading,
    launch_commands,
    lora_buffers,
    production_mapping,
    serving_plan,
)
from labcore.engines.adapters import SGLANG_PORT, VLLM_ENV, VLLM_PORT
from labcore.engines.kv import KV_SOURCES, vllm_kv_bytes_per_sequence
from labcore.engines.releases import RELEASES, flag_fact, release_facts, release_facts_name, release_file
from labcore.gpus import known_gpus
from labcore.model_config import known_models

from .conftest import MIB

FACTS = {engine: release_facts(engine) for engine in RELEASES}
ROOT = Path(__file__).resolve().parents[2]


def _flag(engine: str, name: str) -> dict:
    fact = FACTS[engine]["flags"].get(name)
    assert fact is not None, f"{engine} {RELEASES[engine]} has no flag {name}"
    return fact


def check_command(engine: str, line: str) -> list[str]:
    """Check one printed command line against the release's flags; return the flags it used."""
    words = shlex.split(line)
    while words and "=" in words[0] and not words[0].startswith("-"):
        name, _, _ = words.pop(0).partition("=")
        if engine == "vllm":
            assert name in FACTS["vllm"]["env"], f"{name} is not one of vllm/envs.py's variables"
    program = ["vllm", "serve"] if engine == "vllm" else ["python", "-m", "sglang.launch_server"]
    assert words[: len(program)] == program
    words = words[len(program) :]
    if engine == "vllm":
        words = words[1:]  # the model, vllm serve's positional argument
    used, i = [], 0
    while i < len(words):
        name = words[i]
        assert name.startswith("--"), f"{line!r}: expected a flag at {name!r}"
        fact = _flag(engine, name)
        values = []
        i += 1
        while i < len(words) and not words[i].startswith("--"):
            values.append(words[i])
            i += 1
        _check_values(engine, name, fact, values)
        used.append(name)
    return used


def _check_values(engine: str, name: str, fact: dict, values: list[str]) -> None:
    default, choices = fact["default"], fact["choices"]
    if fact.get("action", "").endswith("BooleanOptionalAction") or (engine == "sglang" and name == "--enable-lora"):
        assert values == [], f"{name} is a switch, got {values}"
        return
    assert values, f"{name} needs a value"
    for v in values:
        if isinstance(default, bool):
            continue
        if isinstance(default, int):
            assert str(int(v)) == v, f"{name} takes an int, got {v!r}"
        elif isinstance(default, float):
            float(v)
        if choices:
            typed = int(v) if all(isinstance(c, int) for c in choices if c is not None) else v
            assert typed in choices, f"{name} {v!r} is not one of {choices}"


def _plan(*argv: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["plan", *argv]) == 0
    return out.getvalue()


def test_the_newest_dated_file_is_the_one_read():
    assert release_file("vllm", versions={"vllm": RELEASES["vllm"]}).name == release_facts_name("vllm")
    with pytest.raises(ValueError, match="engine must be one of 'sglang', 'vllm', got 'tgi'"):
        release_file("tgi", versions=RELEASES)
    with pytest.raises(FileNotFoundError, match="no file of vllm 9.9.9 in labcore/data/engines: run make engines"):
        release_file("vllm", versions={"vllm": "9.9.9"})


def test_the_files_are_the_releases_named_with_their_date():
    for engine, version in RELEASES.items():
        facts = FACTS[engine]
        assert release_facts_name(engine) == f"{engine}-{version}-{facts['read_on']}.json"
        assert facts["version"] == version and facts["wheel"].startswith(f"{engine}-{version}-")
        assert facts["python_files"] > 1000 and len(facts["flags"]) > 300


def test_flag_defaults_and_their_sources_are_the_releases():
    """FLAG_DEFAULTS states each default as read at the release, and cites the file the facts were read in."""
    for (engine, flag), (default, source) in FLAG_DEFAULTS.items():
        fact = flag_fact(engine, flag)
        assert default == str(fact["default"]).replace("false", "False"), (engine, flag)
        assert source.startswith(f"{engine}-{RELEASES[engine]} ")
        files = [part.split(" ")[0] for part in fact["source"].split("; ")]
        assert any(f in source for f in files), (engine, flag, source, fact["source"])


def test_vllm_ranks_ports_and_routes_are_the_releases():
    assert list(VLLM_MAX_LORA_RANKS) == _flag("vllm", "--max-lora-rank")["choices"]
    assert _flag("vllm", "--port")["default"] == VLLM_PORT and _flag("sglang", "--port")["default"] == SGLANG_PORT
    for env in VLLM_ENV.values():
        for name, value in env:
            assert name in FACTS["vllm"]["env"]
            if name == "VLLM_PLUGINS":
                assert value in FACTS["vllm"]["general_plugins"]
    assert "VLLM_LORA_RESOLVER_CACHE_DIR" in FACTS["vllm"]["env"]
    assert FACTS["vllm"]["general_plugins"]["lora_filesystem_resolver"].startswith(
        "vllm.plugins.lora_resolvers.filesystem_resolver:"
    )
    assert _flag("sglang", "--lora-eviction-policy")["choices"] == ["lru", "fifo"]
    assert _flag("sglang", "--max-loras-per-batch")["default"] == 8


@pytest.mark.parametrize("model", [m for m in known_models() if m != "tiny-llama-demo"])
def test_every_printed_command_passes_the_release_flag_table(model):
    """python -m labcore plan on every GPU (and, where it does not fit, with the tensor parallel it suggests).

    Each printed command's flags exist at the release, with values of their kind and among their choices.
    """
    printed = 0
    for gpu in known_gpus():
        for extra in ([], ["--targets", "q_proj", "v_proj", "--rank", "24", "--adapters", "resolver"]):
            argv = ["--model", model, "--gpu", gpu, "--tenants", "12", "--rank", "16", *extra]
            out = _plan(*argv)
            if "no launch command" in out:
                assert "vllm serve" not in out and "sglang.launch_server" not in out
                suggestion = out.split("what would fit, one change at a time:\n  ")[1].split("\n")[0]
                if "--tp " not in suggestion:
                    continue
                out = _plan(*argv, "--tp", suggestion.split("--tp ")[1].split(":")[0])
            lines = [ln.strip() for ln in out.splitlines()]
            for engine, marker in (("vllm", "vllm serve "), ("sglang", "python -m sglang.launch_server ")):
                commands = [ln for ln in lines if marker in ln]
                assert len(commands) == 1, (model, gpu, engine, out)
                used = check_command(engine, commands[0])
                assert "--enable-lora" in used
                printed += 1
    assert printed >= 4  # both engines, both variants, on at least one GPU (405B fits only eight H200s)


def test_sglang_target_modules_and_the_route_without_paths_are_the_releases():
    cmds = launch_commands(
        PlanInputs(
            model="qwen3-8b",
            gpu="H100-80GB",
            tenants=3,
            rank=16,
            context_tokens=8192,
            target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
        ),
        adapters=adapter_loading("runtime", 3),
    )
    used = check_command("sglang", cmds["sglang"].command)
    # lora_hook.py: with no --lora-paths, both --max-lora-rank and --lora-target-modules are required
    assert "--lora-paths" not in used and {"--max-lora-rank", "--lora-target-modules"} <= set(used)
    supported = FACTS["sglang"]["lora_target_modules"]
    assert supported["all"] == "all" and {"q_proj", "v_proj", "qkv_proj", "gate_up_proj"} <= set(supported["supported"])


def test_every_shipped_architecture_is_read_at_both_releases():
    architectures = {
        json.loads(p.read_text())["architectures"][0] for p in (ROOT / "labcore/data/models").glob("*.json")
    }
    for engine in RELEASES:
        assert set(FACTS[engine]["architectures"]) == architectures
    for arch, facts in FACTS["vllm"]["architectures"].items():
        assert facts["supports_lora"], arch
        assert facts["packed_modules_mapping"]["qkv_proj"], arch


def _citations() -> list[tuple[str, str]]:
    """Every (engine, citation) the course states a vLLM or SGLang fact with."""
    out = [(engine, source) for (engine, _), (_, source) in FLAG_DEFAULTS.items()]
    out += [(key.split(".")[0], source) for key, source in SOURCES.items()]
    out += [("vllm", source) for source in KV_SOURCES.values()]
    out += [
        ({VLLM: "vllm", SGLANG: "sglang"}[r.engine], r.source)
        for r in production_mapping()
        if r.engine in (VLLM, SGLANG)
    ]
    return out


_PATH = re.compile(r"\b(?:vllm|sglang)/[\w/]+\.py\b")
_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?")


@pytest.mark.parametrize(("engine", "citation"), _citations())
def test_every_citation_names_a_file_and_names_defined_in_it_at_the_release(engine, citation):
    """A citation is the release, a file in its wheel, and the classes, functions and fields it reads there."""
    assert f"{engine}-{RELEASES[engine]} " in citation, citation
    cited = FACTS[engine]["cited_files"]
    paths = _PATH.findall(citation)
    assert paths, citation
    for part in citation.split(";"):
        found = _PATH.search(part)
        if not found:
            continue
        path = found.group(0)
        names = cited.get(path)
        assert names, f"{path} is not in the {engine} {RELEASES[engine]} wheel"
        words = re.split(r"[(:']", part[found.end() :])[0]
        for word in _NAME.findall(words):
            if word in {"and", "or", "the", "a", "of", "by", "when", "from", "is", "since"}:
                continue
            assert word in names or any(n.endswith(f".{word}") for n in names), f"{word} is not defined in {path}"


@pytest.mark.parametrize("model", [m for m in known_models() if m != "tiny-llama-demo"])
def test_vllm_embedding_buffers_follow_each_architectures_embedding_modules(model):
    """vLLM wraps embed_tokens and lm_head only where the model class declares them (Qwen3 since PR #29816)."""
    config = json.loads((ROOT / f"labcore/data/models/{model}.json").read_text())
    declared = FACTS["vllm"]["architectures"][config["architectures"][0]]["embedding_modules"]
    modules = {b.module for b in lora_buffers("vllm", model, slots=2, max_rank=8)}
    assert ({"embed_tokens", "lm_head"} <= modules) == bool(declared), declared
    assert not ({"embed_tokens", "lm_head"} & modules) or declared == {
        "embed_tokens": "input_embeddings",
        "lm_head": "output_embeddings",
    }


def test_embedding_and_head_shapes_as_the_cited_source_writes_them():
    """Shapes written out from VocabParallelEmbeddingWithLoRA / LogitsProcessorWithLoRA (vLLM 0.33.0) and
    LoRAMemoryPool.get_embedding_lora_A/B_shape with init_lora_modules' untied head (SGLang 0.5.23)."""
    qwen = {
        (b.module, b.a_shape, b.b_shape) for b in lora_buffers("vllm", "qwen3-8b", slots=8, max_rank=64) if b.count == 1
    }
    assert qwen == {
        ("embed_tokens", (8, 151936, 64), (8, 1, 4096, 64)),
        ("lm_head", (8, 1, 64, 4096), (8, 1, 151936, 64)),
    }
    extra = sum(b.bytes for b in lora_buffers("vllm", "qwen3-8b", slots=8, max_rank=64) if b.count == 1)
    assert round(extra / MIB, 1) == 304.8  # what the decoder-only count left out (the issue measured the same)
    tied = {
        (b.module, b.a_shape, b.b_shape)
        for b in lora_buffers("sglang", "llama-3.2-1b", slots=9, max_rank=16)
        if b.count == 1
    }
    assert tied == {("embed_tokens", (9, 16, 128256), (9, 2048, 16)), ("lm_head", (9, 16, 2048), (9, 128256, 16))}
    assert "embed_tokens" not in {b.module for b in lora_buffers("vllm", "mistral-7b", slots=2, max_rank=8)}


@pytest.mark.parametrize(
    ("model", "gpu", "context", "blocks"),
    [
        # gemma-2-9b: 42 layers alternating sliding (4096) and full; 8 KV heads x 256 x 2 (K, V) x 2 B x 16 tokens a block.
        # L4: max_num_batched_tokens 2048, two batches in flight: sliding min(4095 + 4096, 8192) = 8191 -> 512 + 1 blocks
        ("gemma-2-9b", "L4-24GB", 8192, 21 * 512 + 21 * (512 + 1)),
        # H100: 8192 batched x 2 in flight: min(4095 + 16384, 32768) = 20479 -> 1280 + 1 blocks on each sliding layer
        ("gemma-2-9b", "H100-80GB", 32768, 21 * 2048 + 21 * (1280 + 1)),
        # L4 at 32k: min(4095 + 4096, 32768) = 8191 -> 512 + 1 blocks on each sliding layer
        ("gemma-2-9b", "L4-24GB", 32768, 21 * 2048 + 21 * (512 + 1)),
        # no window: cdiv(8192, 16) blocks on each of 32 layers
        ("llama-3-8b", "H100-80GB", 8192, 32 * 512),
    ],
)
def test_vllm_kv_reservation_as_the_cited_source_writes_it(model, gpu, context, blocks):
    config = json.loads((ROOT / f"labcore/data/models/{model}.json").read_text())
    head_dim = config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]
    block_bytes = 16 * config["num_key_value_heads"] * head_dim * 2 * 2
    assert vllm_kv_bytes_per_sequence(model, context, gpu=gpu) == blocks * block_bytes
    assert FACTS["vllm"]["cited_files"]["vllm/v1/kv_cache_interface.py"]  # read at the release
    plans = {
        p.engine: p for p in serving_plan(PlanInputs(model=model, gpu=gpu, tenants=4, rank=16, context_tokens=context))
    }
    assert plans["vllm"].sequence_mib * MIB == blocks * block_bytes


def test_the_gemma_2_9b_window_at_8k_is_a_third_more_than_the_window_alone():
    """The issue's case: vLLM keeps more than the window (about +17% with one 2,048-token batch in flight)."""
    windowed = json.loads((ROOT / "labcore/data/models/gemma-2-9b.json").read_text())
    alone = 21 * 8192 + 21 * windowed["sliding_window"]
    reserved = vllm_kv_bytes_per_sequence("gemma-2-9b", 8192, gpu="L4-24GB") // (16 * 8 * 256 * 2 * 2) * 16
    assert round(reserved / alone - 1, 3) == 0.335  # two batches in flight by default (async scheduling)


def test_the_bench_fields_the_plan_reads_are_vllm_bench_serves():
    """request_throughput and the mean TTFT/ITL are BenchmarkMetrics fields at 0.33.0 (p99_* come from its
    default percentile 99 over the same metrics)."""
    from labcore.engines.measured import BENCH_FIELDS

    names = FACTS["vllm"]["cited_files"]["vllm/benchmarks/serve.py"]
    for field in BENCH_FIELDS:
        metric = field.replace("p99_", "mean_")
        assert f"BenchmarkMetrics.{metric}" in names, field
