"""Check the real-files exercises: exact adapter size from config.json and peft tensor bytes (chapter 14)."""

from __future__ import annotations

import json
import struct
from collections.abc import Sequence
from typing import Any

from ..model_config import exact_adapter_mb, load_model_config, lora_params, target_dims
from ..peft_files.safetensors_header import safetensors_bytes
from ..sizing import MIB, adapter_vram_mb
from .exercise import Exercise
from .rules import NumberRule, graded
from .verdict import Mistake, Verdict, _close, _printer

__all__ = [
    "grade_exact_adapter_mb",
    "grade_peft_tensor_bytes",
    "check_exact_adapter_mb",
    "check_peft_tensor_bytes",
    "HEADER_PROBE",
    "grade_safetensors_header",
    "check_safetensors_header",
]


def rule_exact_adapter_mb(
    *,
    model: str = "llama-3-8b",
    rank: int = 16,
    targets: Sequence[str] = ("q_proj", "k_proj", "v_proj", "o_proj"),
    bytes_per_param: int = 2,
) -> NumberRule:
    """Grade the exact size (MiB) of an adapter from the model's config.json; default Llama-3-8B r=16 q,k,v,o = 26.

    >>> grade_exact_adapter_mb(26).ok
    True
    >>> print(grade_exact_adapter_mb(32).message)
    ✗ 32 MiB is the naive formula: under grouped-query attention k and v map 4096 features to only 1024, so use r·(in + out) per projection.
    """
    cfg = load_model_config(model)
    expected = exact_adapter_mb(cfg, rank, targets, bytes=bytes_per_param)
    naive = adapter_vram_mb(rank, cfg.hidden_size, cfg.num_hidden_layers, len(targets), bytes_per_param)
    k_in, k_out = target_dims(cfg, "k_proj")
    mistakes: list[Mistake] = [
        (
            naive,
            f"is the naive formula: under grouped-query attention k and v map {k_in} features to only "
            f"{k_out}, so use r·(in + out) per projection.",
        ),
        (
            expected * 4 / bytes_per_param,
            f"uses 4 bytes per parameter (PEFT's F32 file); the question asks for "
            f"{bytes_per_param:g}-byte serving precision.",
        ),
        (expected * MIB / 1e6, "is in MB (10^6 bytes); the course counts in MiB (2^20 bytes)."),
        (
            expected / bytes_per_param * MIB / 1e6,
            f"counts parameters in millions, not bytes: multiply by {bytes_per_param:g} bytes per parameter.",
        ),
        (expected / cfg.num_hidden_layers, f"is one layer; multiply by all {cfg.num_hidden_layers} layers."),
    ]
    mistakes = [(v, h) for v, h in mistakes if not _close(v, expected, 1e-9)]
    dims = ", ".join(f"{t.removesuffix('_proj')}: {a}→{b}" for t in targets for a, b in [target_dims(cfg, t)])
    return NumberRule(
        expected,
        unit="MiB",
        what="the exact adapter size",
        mistakes=mistakes,
        fallback=f"Sum r·(in + out) over the targets ({dims}), times the {cfg.num_hidden_layers} layers, "
        f"times {bytes_per_param:g} bytes, over 2^20.",
    )


def rule_peft_tensor_bytes(
    *, model: str = "tiny-llama-demo", rank: int = 16, targets: Sequence[str] = ("q_proj", "k_proj", "v_proj", "o_proj")
) -> NumberRule:
    """Grade the bytes of tensor data PEFT writes by default (F32) for an adapter; default: the demo model, 57,344.

    >>> print(grade_peft_tensor_bytes(28672).message)
    ✗ 28,672 bytes is bf16 (2 bytes per parameter); PEFT saves adapter tensors in F32 by default, 4 bytes each.
    """
    cfg = load_model_config(model)
    params = lora_params(cfg, rank, targets)
    expected = params * 4
    naive = rank * 2 * cfg.hidden_size * len(targets) * cfg.num_hidden_layers * 4
    mistakes: list[Mistake] = [
        (params * 2, "is bf16 (2 bytes per parameter); PEFT saves adapter tensors in F32 by default, 4 bytes each."),
        (params, "counts parameters, not bytes: multiply by 4 bytes (F32)."),
        (
            naive,
            "uses the naive d x d formula; k and v are narrower under grouped-query attention "
            "(read the shapes from the config: heads x head_dim).",
        ),
        (expected / cfg.num_hidden_layers, f"is one layer; the model has {cfg.num_hidden_layers}."),
    ]
    mistakes = [
        (v, h)
        for i, (v, h) in enumerate(mistakes)
        if not _close(v, expected, 1e-9) and not any(_close(v, w, 1e-9) for w, _ in mistakes[:i])
    ]
    return NumberRule(
        expected,
        unit="bytes",
        what="the tensor data in adapter_model.safetensors",
        mistakes=mistakes,
        rel_tol=1e-9,
        integer=True,
        fallback="Sum r·(in + out) over targets and layers, times 4 bytes (F32); the 8-byte prefix and "
        "the JSON header are not tensor data.",
    )


#: The file the header exercise reads: two LoRA factors of the demo model (F32, zeros), as PEFT lays them out.
HEADER_PROBE: bytes = safetensors_bytes(
    {
        "base_model.model.model.layers.0.self_attn.v_proj.lora_A.weight": ("F32", (8, 64), bytes(8 * 64 * 4)),
        "base_model.model.model.layers.0.self_attn.v_proj.lora_B.weight": ("F32", (32, 8), bytes(32 * 8 * 4)),
    },
    metadata={"format": "pt"},
)


def grade_safetensors_header(answer: Any, *, blob: bytes = HEADER_PROBE) -> Verdict:
    """Grade a function ``answer(blob) -> dict`` that reads the JSON header of a safetensors file's bytes.

    The file is an 8-byte little-endian length ``N``, then ``N`` bytes of JSON, then the raw tensors.

    >>> grade_safetensors_header(lambda b: json.loads(b[8:8 + struct.unpack("<Q", b[:8])[0]])).ok
    True
    >>> print(grade_safetensors_header(lambda b: json.loads(b[8:])).message)
    ✗ Your function reads past the header: the tensor bytes follow it. Read the length N from the first 8 bytes (little-endian, struct.unpack("<Q", ...)) and parse exactly the N bytes after them.
    """
    if answer is None or answer is Ellipsis:
        return Verdict(
            False,
            "✗ Not answered yet: replace None with a function that takes the file's bytes and "
            "returns its header as a dict.",
        )
    if not callable(answer):
        return Verdict(False, f"✗ Expected a function of the file's bytes, got {answer!r}.")
    (length,) = struct.unpack("<Q", blob[:8])
    expected = json.loads(blob[8 : 8 + length])
    past = (
        "✗ Your function reads past the header: the tensor bytes follow it. Read the length N from the first 8 "
        'bytes (little-endian, struct.unpack("<Q", ...)) and parse exactly the N bytes after them.'
    )
    try:
        got = answer(blob)
    except json.JSONDecodeError as error:
        if error.msg.startswith("Extra data"):
            return Verdict(False, past)
        return Verdict(
            False,
            "✗ Your function parses from the first byte: the file starts with the 8-byte length, "
            "not with JSON. Skip it: the header is blob[8:8 + N].",
        )
    except UnicodeDecodeError:
        return Verdict(
            False,
            "✗ Your function decodes bytes that are not text: the first 8 are the header's length "
            "as an unsigned little-endian integer, and the tensors after the header are raw "
            "numbers. Decode only blob[8:8 + N].",
        )
    except Exception as error:  # a learner's function may raise anything
        return Verdict(False, f"✗ Your function raised {type(error).__name__}: {error}.")
    if got == expected:
        names = sorted(k for k in expected if k != "__metadata__")
        return Verdict(
            True,
            f"✓ Correct: the header ({length} bytes) lists {len(names)} tensors, each with its "
            "dtype, shape and data_offsets.",
        )
    if isinstance(got, bool) or isinstance(got, int):
        return Verdict(
            False, f"✗ {got} is the header's length N; read the N bytes after the first 8 and parse them as JSON."
        )
    if isinstance(got, (bytes, str)):
        return Verdict(False, "✗ Your function returns the header's text: parse it with json.loads to get a dict.")
    if (
        isinstance(got, dict)
        and "__metadata__" not in got
        and got == {k: v for k, v in expected.items() if k != "__metadata__"}
    ):
        return Verdict(False, "✗ Your dict leaves out __metadata__: return the whole header, as the file has it.")
    return Verdict(
        False,
        f"✗ Your function returned {got!r:.120}, not the header. The header is "
        'json.loads(blob[8:8 + N]) with N = struct.unpack("<Q", blob[:8])[0].',
    )


def _read_header(blob: bytes) -> dict[str, Any]:
    """The solution of Exercise 14.3 (a reference for the tests and the registry)."""
    (length,) = struct.unpack("<Q", blob[:8])
    return json.loads(blob[8 : 8 + length])


grade_exact_adapter_mb = graded(rule_exact_adapter_mb)
check_exact_adapter_mb = _printer(grade_exact_adapter_mb)
grade_peft_tensor_bytes = graded(rule_peft_tensor_bytes)
check_peft_tensor_bytes = _printer(grade_peft_tensor_bytes)
check_safetensors_header = _printer(grade_safetensors_header)


def _parse_all(blob: bytes) -> Any:
    return json.loads(blob[8:])


def _parse_from_start(blob: bytes) -> Any:
    return json.loads(blob)


def _length_only(blob: bytes) -> Any:
    return struct.unpack("<Q", blob[:8])[0]


#: This module's exercises, as the pages ask them (see :class:`labcore.checks.exercise.Exercise`).
EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "14.1",
        "compute",
        grade_exact_adapter_mb,
        right=exact_adapter_mb("qwen2.5-7b", 16, ("q_proj", "k_proj", "v_proj", "o_proj")),
        wrong=(
            adapter_vram_mb(16, 3584, 28, 4),
            2 * exact_adapter_mb("qwen2.5-7b", 16, ("q_proj", "k_proj", "v_proj", "o_proj")),
        ),
        kwargs={"model": "qwen2.5-7b"},
        gives_away=("19.25 MiB", "19.2 MiB", "19.25"),
    ),
    Exercise(
        "14.2", "compute", grade_peft_tensor_bytes, right=57344, wrong=(28672, 65536), gives_away=("57,344", "57344")
    ),
    Exercise(
        "14.3",
        "code",
        grade_safetensors_header,
        right=_read_header,
        wrong=(_parse_all, _parse_from_start, _length_only),
    ),
)
