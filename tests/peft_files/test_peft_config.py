"""labcore.peft_files.peft_config applies PEFT's adapter_config.json rules, and refuses what it cannot read exactly."""

from __future__ import annotations

from pathlib import Path

import pytest

from labcore.peft_files import (
    UNSUPPORTED_FEATURES,
    AdapterFileError,
    is_targeted,
    module_rank_and_alpha,
    read_peft_adapter,
)

from .conftest import assert_file_error, write_adapter

BASE = {"r": 4, "lora_alpha": 8, "target_modules": ["q_proj"]}
Q0 = "model.layers.0.self_attn.q_proj"


@pytest.mark.parametrize(
    ("config", "key", "expected"),
    [
        ({"target_modules": ["q_proj"]}, Q0, True),
        ({"target_modules": ["self_attn.q_proj"]}, Q0, True),
        ({"target_modules": ["attn.q_proj"]}, Q0, False),  # a suffix must start at a '.'
        ({"target_modules": [Q0]}, Q0, True),
        ({"target_modules": ["q"]}, Q0, False),
        ({"target_modules": "q_proj"}, Q0, False),  # a string is a full-match regex
        ({"target_modules": r".*q_proj"}, Q0, True),
        ({"target_modules": "all-linear"}, "model.layers.0.mlp.down_proj", True),
        ({"target_modules": "all-linear"}, "lm_head", False),
        ({"layers_to_transform": [1]}, Q0, False),
        ({"layers_to_transform": 1}, "model.layers.1.self_attn.q_proj", True),
        (
            {"target_modules": [Q0], "layers_to_transform": [1]},
            Q0,
            True,
        ),  # an exact path ignores layers_to_transform, as in peft
        ({"layers_to_transform": [2], "layers_pattern": "h"}, "transformer.h.2.attn.q_proj", True),
        ({"exclude_modules": ["q_proj"]}, Q0, False),
        ({"exclude_modules": r".*\.0\..*"}, Q0, False),
        ({"target_modules": ["lm_head"], "modules_to_save": ["lm_head"]}, "lm_head", False),
    ],
    ids=[
        "name",
        "dotted-suffix",
        "suffix-not-at-a-dot",
        "exact-path",
        "prefix-of-a-name",
        "string-is-a-regex",
        "regex",
        "all-linear",
        "all-linear-not-the-head",
        "other-layer",
        "layer-as-int",
        "exact-path-any-layer",
        "layers-pattern",
        "excluded-by-name",
        "excluded-by-regex",
        "saved-whole",
    ],
)
def test_which_modules_a_config_adapts_follows_peft(config: dict, key: str, expected: bool) -> None:
    assert is_targeted({**BASE, **config}, key) is expected


def test_the_first_matching_rank_pattern_key_wins() -> None:
    assert module_rank_and_alpha({**BASE, "rank_pattern": {"q_proj": 8, "layers.0.self_attn.q_proj": 2}}, Q0) == (8, 8)


REFUSED = [
    pytest.param({"peft_type": "PREFIX_TUNING"}, ("peft_type is 'PREFIX_TUNING'", "'LORA'"), id="peft-type"),
    pytest.param({"r": 0}, ("r must be a positive int, got 0",), id="zero-rank"),
    pytest.param({"r": "16"}, ("r must be a positive int, got '16'",), id="string-rank"),
    pytest.param({"lora_alpha": -1}, ("lora_alpha must be a positive number",), id="negative-alpha"),
    pytest.param({"target_modules": []}, ("target_modules must be",), id="no-targets"),
    pytest.param({"target_modules": [3]}, ("target_modules must be",), id="int-target"),
    pytest.param({"base_model_name_or_path": 42}, ("base_model_name_or_path must be a string or null",), id="int-base"),
    pytest.param({"rank_pattern": [1]}, ("rank_pattern must be an object",), id="list-rank-pattern"),
    *(
        pytest.param(
            {feature: ["experts.gate_up_proj"] if feature == "target_parameters" else True},
            (feature, "not supported"),
            id=feature,
        )
        for feature in sorted(UNSUPPORTED_FEATURES)
    ),
    *(
        pytest.param({"init_lora_weights": init}, (f"init_lora_weights={init!r}", "modified base"), id=f"init-{init}")
        for init in ("pissa", "pissa_niter_4", "olora", "corda", "loftq")
    ),  # they rewrote the base weights
]


@pytest.mark.parametrize(("config", "words"), REFUSED)
def test_configs_it_cannot_read_exactly_are_refused_with_the_file_named(
    tmp_path: Path, config: dict, words: tuple[str, ...]
) -> None:
    folder = write_adapter(tmp_path / "a", config=config)
    with pytest.raises(AdapterFileError) as info:
        read_peft_adapter(folder)
    assert_file_error(info, folder / "adapter_config.json", *words)


@pytest.mark.parametrize("text", [b"{oops", b"[1]", b"\xff\xfe", b'{"r": 1, "r": 2}'])
def test_unparseable_adapter_config_is_refused(tmp_path: Path, text: bytes) -> None:
    folder = write_adapter(tmp_path / "a")
    (folder / "adapter_config.json").write_bytes(text)
    with pytest.raises(AdapterFileError) as info:
        read_peft_adapter(folder)
    assert_file_error(info, folder / "adapter_config.json")


@pytest.mark.parametrize("init", [True, False, "gaussian", "eva", "orthogonal", "lora_ga"])
def test_inits_that_leave_the_base_alone_are_read(tmp_path: Path, init: object) -> None:
    assert read_peft_adapter(write_adapter(tmp_path / "a", config={"init_lora_weights": init})).rank == 4


def test_regex_target_modules_are_kept_as_written(tmp_path: Path) -> None:
    folder = write_adapter(tmp_path / "a", config={"target_modules": r".*\.(q_proj|v_proj)"})
    files = read_peft_adapter(folder)
    assert files.target_modules == (r".*\.(q_proj|v_proj)",) and files.target_names == ("q_proj", "v_proj")
