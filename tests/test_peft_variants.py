"""Every LoraConfig variant people train, written by the real peft and read back by labcore.peft_files.

Each case builds a tiny seeded model from a config (Llama, Qwen2, Mixtral, GPT-2), wraps it with
``peft.get_peft_model``, saves it with ``save_pretrained`` and compares labcore's torch-free reading
with peft's own in-memory model: tensor names, dtypes and shapes; per-module rank and scaling from
peft's ``LoraLayer``; bytes per role; and the A/B count ``labcore.model_config`` predicts. The cases
labcore does not read (MoE ``target_parameters``) must be refused with an error naming the feature.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from labcore.errors import AdapterFileError
from labcore.model_config import peft_lora_params
from labcore.peft_files import LOW_RANK_ROLES, TENSOR_ROLES, read_peft_adapter, variant_table

from .real_stack import lora_tuners, peft, safetensors_torch, skip_without_real_stack, torch, transformers

skip_without_real_stack()

VOCAB, HIDDEN, INTER, LAYERS, HEADS, KV_HEADS, EXPERTS = 64, 32, 48, 2, 4, 2, 4
LLAMA = dict(
    vocab_size=VOCAB,
    hidden_size=HIDDEN,
    intermediate_size=INTER,
    num_hidden_layers=LAYERS,
    num_attention_heads=HEADS,
    num_key_value_heads=KV_HEADS,
    tie_word_embeddings=False,
)


def llama():
    return transformers.LlamaForCausalLM(transformers.LlamaConfig(**LLAMA))


def qwen2():  # q, k and v carry biases
    return transformers.Qwen2ForCausalLM(transformers.Qwen2Config(**LLAMA))


def qwen3():  # explicit head_dim (8 heads of 8 on a hidden of 32: q is wider than the hidden size)
    return transformers.Qwen3ForCausalLM(transformers.Qwen3Config(**{**LLAMA, "num_attention_heads": 8}, head_dim=8))


def qwen2_tied():  # lm_head shares the embedding's weight
    return transformers.Qwen2ForCausalLM(transformers.Qwen2Config(**{**LLAMA, "tie_word_embeddings": True}))


def mixtral():
    return transformers.MixtralForCausalLM(
        transformers.MixtralConfig(**LLAMA, num_local_experts=EXPERTS, num_experts_per_tok=2)
    )


def gpt2():  # Conv1D layers (fan_in_fan_out), fused c_attn, biases everywhere
    cfg = transformers.GPT2Config(
        vocab_size=VOCAB, n_embd=HIDDEN, n_layer=LAYERS, n_head=HEADS, n_positions=32, bos_token_id=0, eos_token_id=0
    )
    return transformers.GPT2LMHeadModel(cfg)


QV = ["q_proj", "v_proj"]
# name -> (model, LoraConfig keywords, get_peft_model keywords)
READ: dict[str, tuple[Callable, dict, dict]] = {
    "llama q,v": (llama, dict(target_modules=QV), {}),
    "llama all-linear": (llama, dict(target_modules="all-linear"), {}),
    "qwen2 all-linear": (qwen2, dict(target_modules="all-linear"), {}),
    "mixtral attention": (mixtral, dict(target_modules=["q_proj", "k_proj", "v_proj", "o_proj"]), {}),
    "llama suffix targets": (llama, dict(target_modules=["self_attn.q_proj", "self_attn.v_proj"]), {}),
    "llama regex target": (llama, dict(target_modules=r".*\.layers\.1\..*(q_proj|v_proj)"), {}),
    "llama rslora": (llama, dict(target_modules=QV, r=16, lora_alpha=16, use_rslora=True), {}),
    "llama rank/alpha pattern": (
        llama,
        dict(
            target_modules=QV, rank_pattern={"layers.1.self_attn.v_proj": 16, "q_proj": 2}, alpha_pattern={"v_proj": 3}
        ),
        {},
    ),
    "llama layers_to_transform": (llama, dict(target_modules=QV, layers_to_transform=[1]), {}),
    "llama exclude_modules": (llama, dict(target_modules="all-linear", exclude_modules=["down_proj", "o_proj"]), {}),
    "llama embedding + q": (
        llama,
        dict(target_modules=["embed_tokens", "q_proj"], rank_pattern={"embed_tokens": 16}),
        {},
    ),
    "llama embedding only": (llama, dict(target_modules=["embed_tokens"]), {}),
    "llama lm_head LoRA": (llama, dict(target_modules=["q_proj", "lm_head"]), {}),
    "llama modules_to_save lm_head": (llama, dict(target_modules=QV, modules_to_save=["lm_head"]), {}),
    "qwen2 modules_to_save embed+norm": (
        qwen2,
        dict(target_modules=QV, modules_to_save=["embed_tokens", "model.norm"]),
        {},
    ),
    "llama trainable tokens": (llama, dict(target_modules=QV, trainable_token_indices=[1, 2, 3]), {}),
    "llama DoRA": (llama, dict(target_modules=QV, use_dora=True), {}),
    "llama DoRA embedding": (llama, dict(target_modules=["embed_tokens", "q_proj"], use_dora=True), {}),
    "qwen2 bias=all": (qwen2, dict(target_modules=["q_proj"], bias="all"), {}),
    "qwen2 bias=lora_only": (qwen2, dict(target_modules=QV, bias="lora_only"), {}),
    "llama lora_bias": (llama, dict(target_modules=QV, lora_bias=True), {}),
    "gpt2 c_attn": (gpt2, dict(target_modules=["c_attn"], fan_in_fan_out=True), {}),
    "gpt2 all-linear": (gpt2, dict(target_modules="all-linear"), {}),
    "gpt2 wte embedding + c_attn": (gpt2, dict(target_modules=["wte", "c_attn"], fan_in_fan_out=True), {}),
    "gpt2 bias=all": (gpt2, dict(target_modules=["c_attn"], bias="all", fan_in_fan_out=True), {}),
    "qwen3 all-linear": (qwen3, dict(target_modules="all-linear"), {}),
    "qwen3 rslora + patterns": (
        qwen3,
        dict(
            target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
            use_rslora=True,
            rank_pattern={"o_proj": 8},
            alpha_pattern={"layers.0.self_attn.k_proj": 32},
        ),
        {},
    ),
    "qwen3 exclude regex": (qwen3, dict(target_modules="all-linear", exclude_modules=r".*\.layers\.0\..*"), {}),
    "qwen2 tied embedding LoRA": (qwen2_tied, dict(target_modules=["embed_tokens", "q_proj"]), {}),
    "qwen2 tied lm_head LoRA": (qwen2_tied, dict(target_modules=["lm_head", "q_proj"]), {}),
    "qwen2 tied modules_to_save + weight tying": (
        qwen2_tied,
        dict(target_modules=QV, modules_to_save=["embed_tokens"], ensure_weight_tying=True),
        {},
    ),
    "qwen2 tied trainable tokens": (qwen2_tied, dict(target_modules=QV, trainable_token_indices=[1, 5]), {}),
    "llama trainable tokens by module": (
        llama,
        dict(target_modules=QV, trainable_token_indices={"embed_tokens": [1, 2]}),
        {},
    ),
    "llama DoRA + rsLoRA": (llama, dict(target_modules=QV, use_dora=True, use_rslora=True, r=16), {}),
    "llama modules_to_save norms": (llama, dict(target_modules=QV, modules_to_save=["input_layernorm"]), {}),
    "gpt2 modules_to_save lm_head (tied)": (
        gpt2,
        dict(target_modules=["c_attn"], modules_to_save=["lm_head"], fan_in_fan_out=True),
        {},
    ),
    "llama bf16 stored": (
        lambda: llama().to(torch.bfloat16),
        dict(target_modules=QV),
        dict(autocast_adapter_dtype=False),
    ),
}
REFUSED: dict[str, tuple[Callable, dict, str]] = {
    "mixtral all-linear": (mixtral, dict(target_modules="all-linear"), "target_parameters (MoE expert parameters)"),
    "mixtral router gate": (
        mixtral,
        dict(target_modules=["q_proj", "gate"]),
        "target_parameters (MoE expert parameters)",
    ),
    "mixtral experts": (
        mixtral,
        dict(target_modules=[], target_parameters=["experts.gate_up_proj"]),
        "target_parameters",
    ),
    "llama PiSSA init": (
        llama,
        dict(target_modules=QV, init_lora_weights="pissa_niter_2"),
        "init_lora_weights='pissa_niter_2'",
    ),
    "llama OLoRA init": (llama, dict(target_modules=QV, init_lora_weights="olora"), "rewrote the base weights"),
}


def save(tmp_path: Path, make: Callable, lora: dict, extra: dict) -> tuple[object, Path]:
    torch.manual_seed(0)
    model = make()
    model.name_or_path = "tiny"
    kw = {"r": 4, "lora_alpha": 8, "lora_dropout": 0.0, **lora}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        peft_model = peft.get_peft_model(model, peft.LoraConfig(**kw), **extra)
        peft_model.save_pretrained(tmp_path / "adapter")
    return peft_model, tmp_path / "adapter"


def peft_layers(peft_model) -> dict[str, dict]:
    """Per adapted module, what peft holds in memory: kind, rank, scaling, A and B shapes."""
    out = {}
    for name, module in peft_model.named_modules():
        if not isinstance(module, lora_tuners.LoraLayer) or "default" not in module.r:
            continue
        if "default" in module.lora_A:
            kind, a, b = "linear", module.lora_A["default"].weight, module.lora_B["default"].weight
        else:
            kind, a, b = "embedding", module.lora_embedding_A["default"], module.lora_embedding_B["default"]
        out[name.removeprefix("base_model.model.")] = {
            "kind": kind,
            "rank": module.r["default"],
            "scaling": module.scaling["default"],
            "a": tuple(a.shape),
            "b": tuple(b.shape),
        }
    return out


@pytest.mark.parametrize("case", list(READ))
def test_labcore_reads_every_variant_as_peft_holds_it(tmp_path: Path, case: str) -> None:
    make, lora, extra = READ[case]
    peft_model, folder = save(tmp_path, make, lora, extra)
    files = read_peft_adapter(folder)

    # 1. the tensors exactly as on disk
    with safetensors_torch.safe_open(str(folder / "adapter_model.safetensors"), framework="pt") as fh:
        on_disk = {k: fh.get_slice(k) for k in fh.keys()}
        header = {t.name: t for t in files.weights.tensors}
        assert header.keys() == on_disk.keys()
        for name, sl in on_disk.items():
            assert list(header[name].shape) == list(sl.get_shape()) and header[name].dtype == sl.get_dtype()
    assert set(files.roles) == set(header) and set(files.roles.values()) <= set(TENSOR_ROLES)

    # 2. per-module rank, scaling and shapes against peft's LoraLayer
    layers = peft_layers(peft_model)
    read = {m.key: m for m in files.modules}
    assert read.keys() == layers.keys()
    for key, want in layers.items():
        m = read[key]
        assert (m.kind, m.rank) == (want["kind"], want["rank"]), key
        assert math.isclose(m.scaling, want["scaling"], rel_tol=1e-12), (key, m.scaling, want["scaling"])
        assert (m.rank, m.in_features) == want["a"] and (m.out_features, m.rank) == want["b"], key
    assert files.rank == max(w["rank"] for w in layers.values())

    # 3. bytes: the roles add up, and the low-rank part is exactly the A/B pairs
    by_role = files.bytes_by_role()
    assert sum(by_role.values()) == files.tensor_bytes
    per = 2 if extra.get("autocast_adapter_dtype") is False else 4
    assert by_role["lora"] + by_role["embedding_lora"] == per * sum(m.param_count for m in files.modules)
    assert files.serving_bytes("bf16", include=LOW_RANK_ROLES) == 2 * files.lora_param_count
    assert files.serving_bytes("bf16") == 2 * files.param_count

    # 4. labcore.model_config predicts the A/B count from the model config and the LoraConfig
    config = json.loads((folder / "adapter_config.json").read_text())
    assert peft_lora_params(peft_model.base_model.model.config.to_dict(), config) == files.lora_param_count


def _bytes(case: str, tmp_path: Path) -> dict[str, int]:
    make, lora, extra = READ[case]
    _, folder = save(tmp_path, make, lora, extra)
    return read_peft_adapter(folder).bytes_by_role()


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("llama q,v", {}),
        ("llama modules_to_save lm_head", {"module_copy": VOCAB * HIDDEN}),
        ("qwen2 modules_to_save embed+norm", {"module_copy": VOCAB * HIDDEN + HIDDEN}),
        ("llama embedding only", {"module_copy": VOCAB * HIDDEN}),  # peft also saves the embedding whole
        ("llama lm_head LoRA", {"module_copy": VOCAB * HIDDEN}),
        ("llama trainable tokens", {"trainable_tokens": 3 * HIDDEN}),
        ("llama DoRA", {"dora_magnitude": LAYERS * (HIDDEN + KV_HEADS * HIDDEN // HEADS)}),
        ("llama DoRA embedding", {"dora_magnitude": LAYERS * HIDDEN + HIDDEN, "module_copy": VOCAB * HIDDEN}),
        ("qwen2 bias=all", {"bias": LAYERS * (HIDDEN + 2 * KV_HEADS * HIDDEN // HEADS)}),
        ("qwen2 bias=lora_only", {"bias": LAYERS * (HIDDEN + KV_HEADS * HIDDEN // HEADS)}),
        ("llama lora_bias", {"bias": LAYERS * (HIDDEN + KV_HEADS * HIDDEN // HEADS)}),
        (
            "qwen2 tied modules_to_save + weight tying",
            {"module_copy": 2 * VOCAB * HIDDEN},
        ),  # both copies are in the file
        ("qwen2 tied trainable tokens", {"trainable_tokens": 2 * HIDDEN}),
        ("llama modules_to_save norms", {"module_copy": LAYERS * HIDDEN}),
    ],
)
def test_each_extra_is_reported_in_its_own_bytes(tmp_path: Path, case: str, expected: dict[str, int]) -> None:
    by_role = _bytes(case, tmp_path)
    for role in TENSOR_ROLES:
        if role not in LOW_RANK_ROLES:
            assert by_role[role] == 4 * expected.get(role, 0), (role, by_role)


@pytest.mark.parametrize("case", list(REFUSED))
def test_unreadable_variants_are_refused_by_name(tmp_path: Path, case: str) -> None:
    make, lora, words = REFUSED[case]
    _, folder = save(tmp_path, make, lora, {})
    with pytest.raises(AdapterFileError, match=words.replace("(", r"\(").replace(")", r"\)")) as info:
        read_peft_adapter(folder)
    assert info.value.path == str(folder / "adapter_config.json")


def test_modules_to_save_dominates_the_serving_size(tmp_path: Path) -> None:
    """The issue's figure: a saved lm_head copy is several times the A/B bytes on the tiny model."""
    make, lora, extra = READ["llama modules_to_save lm_head"]
    _, folder = save(tmp_path, make, lora, extra)
    files = read_peft_adapter(folder)
    low_rank = files.serving_bytes("bf16", include=LOW_RANK_ROLES)
    assert files.serving_bytes("bf16") == low_rank + 2 * VOCAB * HIDDEN
    assert files.module_copy_bytes / files.lora_bytes == VOCAB * HIDDEN / (
        LAYERS * 4 * (3 * HIDDEN + HIDDEN // 2)
    )  # 2.3x


def test_a_tampered_config_is_refused_not_misread(tmp_path: Path) -> None:
    """Real peft files with a config that no longer matches them: each mismatch is named."""
    make, lora, extra = READ["llama rank/alpha pattern"]
    _, folder = save(tmp_path, make, lora, extra)
    config_path = folder / "adapter_config.json"
    original = json.loads(config_path.read_text())
    for change, words in [
        ({"rank_pattern": {}}, "has rank 2 but adapter_config.json says r=4"),
        ({"target_modules": ["q_proj"]}, "adapts modules ['v_proj']"),
        ({"layers_to_transform": [0]}, "layers_to_transform=[0]"),
        ({"use_dora": True}, "has no DoRA magnitude vector"),
        ({"lora_bias": True}, "has no LoRA bias"),
    ]:
        config_path.write_text(json.dumps({**original, **change}))
        with pytest.raises(AdapterFileError, match=words.replace("[", r"\[").replace("]", r"\]")):
            read_peft_adapter(folder)


def test_variant_table_covers_every_case_here() -> None:
    rows = variant_table()
    assert len({r.variant for r in rows}) == len(rows)
    labels = " ".join(r.variant for r in rows).lower()
    for word in (
        "all-linear",
        "rslora",
        "rank_pattern",
        "embed",
        "modules_to_save",
        "dora",
        "bias",
        "trainable",
        "target_parameters",
        "layers_to_transform",
    ):
        assert word in labels, word
    assert all(r.labcore_reads and r.peft_writes and r.serving_engine for r in rows)
    assert all(r.engine_source for r in rows if "not checked" not in r.serving_engine)  # every engine fact is cited


def _corrupt(blob: bytes, edit) -> bytes:
    n = int.from_bytes(blob[:8], "little")
    header = json.loads(blob[8 : 8 + n])
    edit(header)
    raw = json.dumps(header).encode()
    return len(raw).to_bytes(8, "little") + raw + blob[8 + n :]


def _alias(h: dict) -> None:
    names = [k for k in h if k != "__metadata__"]
    h[names[1]]["data_offsets"] = h[names[0]]["data_offsets"]


def _huge(h: dict) -> None:
    name = next(k for k in h if k != "__metadata__")
    h[name]["shape"] = [2**40, 2**40]


def _past_end(h: dict) -> None:
    name = max((k for k in h if k != "__metadata__"), key=lambda k: h[k]["data_offsets"][1])
    begin, end = h[name]["data_offsets"]
    h[name]["data_offsets"] = [begin + 8, end + 8]


@pytest.mark.parametrize(
    ("corruption", "words"),
    [
        (lambda b: b[:-1], "holds"),
        (lambda b: b[:7], "shorter than the 8-byte"),
        (lambda b: (2**40).to_bytes(8, "little") + b[8:], "exceeds the"),
        (lambda b: _corrupt(b, _alias), "overlaps"),
        (lambda b: _corrupt(b, _huge), "data_offsets span"),
        (lambda b: _corrupt(b, _past_end), "gap of 8 bytes"),
        (lambda b: _corrupt(b, lambda h: h.update({"__metadata__": {"format": 1}})), "__metadata__"),
    ],
    ids=["truncated", "cut-in-prefix", "huge-header", "aliased", "huge-shape", "offset-past-end", "bad-metadata"],
)
def test_corrupted_real_adapters_are_refused(tmp_path: Path, corruption, words: str) -> None:
    make, lora, extra = READ["llama q,v"]
    _, folder = save(tmp_path, make, lora, extra)
    weights = folder / "adapter_model.safetensors"
    weights.write_bytes(corruption(weights.read_bytes()))
    with pytest.raises(AdapterFileError, match=words) as info:
        read_peft_adapter(folder)
    assert info.value.path == str(weights)


def test_a_real_pickle_only_adapter_is_refused_unopened(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = llama()
    model.name_or_path = "tiny"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        peft_model = peft.get_peft_model(model, peft.LoraConfig(r=4, lora_alpha=8, target_modules=QV))
        peft_model.save_pretrained(tmp_path / "adapter", safe_serialization=False)
    assert (tmp_path / "adapter" / "adapter_model.bin").is_file()
    with pytest.raises(AdapterFileError, match="pickle-based weights are refused"):
        read_peft_adapter(tmp_path / "adapter")
