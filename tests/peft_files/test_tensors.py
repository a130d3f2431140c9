"""labcore.peft_files.tensors gives every tensor of an adapter file a role, and refuses one the config does not allow."""

from __future__ import annotations

from pathlib import Path

import pytest

from labcore.peft_files import LOW_RANK_ROLES, AdapterFileError, read_peft_adapter
from labcore.sizing import MIB

from .conftest import PREFIX, assert_file_error, lora_tensors, write_adapter


def test_rank_pattern_allows_mixed_ranks_and_rank_is_the_largest(tmp_path: Path) -> None:
    tensors = lora_tensors(rank=4)
    tensors[PREFIX.format(i=1, m="v_proj") + ".lora_A.weight"] = ("F32", [12, 16])
    tensors[PREFIX.format(i=1, m="v_proj") + ".lora_B.weight"] = ("F32", [8, 12])
    folder = write_adapter(tmp_path / "a", tensors=tensors, config={"rank_pattern": {"layers.1.self_attn.v_proj": 12}})
    assert read_peft_adapter(folder).rank == 12
    with pytest.raises(AdapterFileError) as info:
        read_peft_adapter(write_adapter(tmp_path / "b", tensors=tensors))
    assert_file_error(info, tmp_path / "b" / "adapter_model.safetensors", "rank 12", "r=4")


def test_modules_to_save_copies_are_counted_apart_from_the_lora_bytes(tmp_path: Path) -> None:
    tensors = lora_tensors()
    tensors["base_model.model.lm_head.weight"] = ("F32", [256, 16])
    files = read_peft_adapter(write_adapter(tmp_path / "a", tensors=tensors, config={"modules_to_save": ["lm_head"]}))
    assert files.extra_tensors == ("base_model.model.lm_head.weight",)
    assert files.roles["base_model.model.lm_head.weight"] == "module_copy" and files.modules_to_save == ("lm_head",)
    assert files.param_count == 448 + 256 * 16 and files.lora_param_count == 448
    assert (files.lora_bytes, files.module_copy_bytes) == (4 * 448, 4 * 256 * 16)
    assert files.serving_bytes("bf16") == 2 * (448 + 256 * 16)
    assert files.serving_bytes("bf16", include=LOW_RANK_ROLES) == 2 * 448
    assert files.serving_bytes("bf16", include=("module_copy",)) == 2 * 256 * 16
    assert (
        files.to_adapter(
            name="x", version="1.0.0", base_model="t", base_digest="sha256:1", include=LOW_RANK_ROLES
        ).vram_mb
        == 2 * 448 / MIB
    )


@pytest.mark.parametrize(
    ("extra", "config", "words"),
    [
        ({"base_model.model.model.norm.weight": ("F32", [16])}, {}, "is neither a LoRA tensor nor accounted for"),
        ({"base_model.model.model.layers.0.self_attn.k_proj.bias": ("F32", [8])}, {}, "has bias='none'"),
        (
            {"base_model.model.model.layers.0.self_attn.k_proj.bias": ("F32", [8])},
            {"bias": "lora_only"},
            "bias of a module without LoRA",
        ),
        ({PREFIX.format(i=0, m="q_proj") + ".lora_magnitude_vector": ("F32", [16])}, {}, "use_dora=false"),
        ({PREFIX.format(i=0, m="q_proj") + ".lora_B.bias": ("F32", [16])}, {}, "lora_bias=false"),
        (
            {"base_model.model.model.embed_tokens.token_adapter.trainable_tokens_delta": ("F32", [2, 16])},
            {},
            "no trainable_token_indices",
        ),
        (
            {"base_model.model.model.embed_tokens.token_adapter.trainable_tokens_delta": ("F32", [2, 16])},
            {"trainable_token_indices": [1, 2, 3]},
            "gives 3 rows",
        ),
        (
            {PREFIX.format(i=0, m="q_proj") + ".lora_magnitude_vector": ("F32", [8])},
            {"use_dora": True},
            "a DoRA magnitude",
        ),
        ({}, {"use_dora": True}, "has no DoRA magnitude vector"),
    ],
)
def test_tensors_the_config_does_not_account_for_are_refused(
    tmp_path: Path, extra: dict, config: dict, words: str
) -> None:
    folder = write_adapter(tmp_path / "a", tensors={**lora_tensors(), **extra}, config=config)
    with pytest.raises(AdapterFileError) as info:
        read_peft_adapter(folder)
    assert_file_error(info, folder / "adapter_model.safetensors", words)


def test_rslora_and_patterns_give_per_module_scaling(tmp_path: Path) -> None:
    rs = read_peft_adapter(write_adapter(tmp_path / "rs", config={"r": 4, "lora_alpha": 8, "use_rslora": True}))
    assert rs.scaling == 8 / 2 and all(m.scaling == 4.0 for m in rs.modules)
    tensors = lora_tensors()
    tensors[PREFIX.format(i=1, m="v_proj") + ".lora_A.weight"] = ("F32", [16, 16])
    tensors[PREFIX.format(i=1, m="v_proj") + ".lora_B.weight"] = ("F32", [8, 16])
    files = read_peft_adapter(
        write_adapter(
            tmp_path / "p",
            tensors=tensors,
            config={"rank_pattern": {"layers.1.self_attn.v_proj": 16}, "alpha_pattern": {"q_proj": 2}},
        )
    )
    got = {(m.key.split(".")[2], m.target): (m.rank, m.lora_alpha, m.scaling) for m in files.modules}
    assert got == {
        ("0", "q_proj"): (4, 2, 0.5),
        ("0", "v_proj"): (4, 8, 2.0),
        ("1", "q_proj"): (4, 2, 0.5),
        ("1", "v_proj"): (16, 8, 0.5),
    }
    assert files.rank == 16 and files.default_rank == 4
    with pytest.raises(AdapterFileError, match="different scalings"):
        _ = files.scaling  # reading the property raises


def test_an_embedding_only_adapter_reads_with_the_embedding_rank(tmp_path: Path) -> None:
    tensors = {
        "base_model.model.model.embed_tokens.lora_embedding_A": ("F32", [32, 256]),
        "base_model.model.model.embed_tokens.lora_embedding_B": ("F32", [16, 32]),
        "base_model.model.model.embed_tokens.base_layer.weight": ("F32", [256, 16]),
    }
    files = read_peft_adapter(
        write_adapter(
            tmp_path / "e",
            tensors=tensors,
            config={"r": 8, "target_modules": ["embed_tokens"], "rank_pattern": {"embed_tokens": 32}},
        )
    )
    (m,) = files.modules
    assert (m.kind, m.rank, m.in_features, m.out_features, m.target) == ("embedding", 32, 256, 16, "embed_tokens")
    assert files.rank == 32 and files.target_names == ("embed_tokens",)
    assert files.bytes_by_role()["embedding_lora"] == 4 * 32 * (256 + 16)
    assert files.module_copy_bytes == 4 * 256 * 16


UNPAIRED = {name: t for name, t in lora_tensors().items() if name != PREFIX.format(i=0, m="q_proj") + ".lora_B.weight"}


@pytest.mark.parametrize(
    ("tensors", "weights", "word"),
    [
        (UNPAIRED, None, "unpaired"),
        ({"base_model.model.lm_head.weight": ("F32", [4, 4])}, None, "no LoRA tensors"),
        ({"x.q_proj.lora_A.weight": ("F32", [4, 16]), "x.q_proj.lora_B.weight": ("F32", [16, 3])}, None, "(out x r)"),
        ({"x.k_proj.lora_A.weight": ("F32", [4, 16]), "x.k_proj.lora_B.weight": ("F32", [8, 4])}, None, "['k_proj']"),
        (None, b"\x01\x00", "shorter than"),  # malformed weights inside a directory
    ],
    ids=["unpaired", "no-lora-tensors", "shapes-disagree", "untargeted-module", "truncated-weights"],
)
def test_tensor_layout_problems_name_the_weights_file(
    tmp_path: Path, tensors: dict | None, weights: bytes | None, word: str
) -> None:
    folder = write_adapter(tmp_path / "a", tensors=tensors, weights=weights)
    with pytest.raises(AdapterFileError) as info:
        read_peft_adapter(folder)
    assert_file_error(info, folder / "adapter_model.safetensors", word)
