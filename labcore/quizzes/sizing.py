"""The self-check quiz of chapter 2 (an adapter is a delta): scaling the size, the shared GPU, PEFT's shapes.

Every number comes from :func:`labcore.sizing.adapter_vram_mb` (the lab's square formula),
:func:`labcore.capacity.memory_split` (the chapters' assumptions, :data:`labcore.capacity.TEACHING`: the engine's
share of the H100 as its driver reports it, Llama-3-8B's weights from its parameter count, a KV-cache pool of 24
sequences of 8,192 tokens) and Llama-3-8B's
``config.json`` (:func:`labcore.model_config.load_model_config`), with the chapter's parameters: r=16 on q and
v in bf16, sized exactly (:func:`labcore.model_config.exact_adapter_mb`) where the GPU is split.

>>> quiz = sizing_quiz()
>>> quiz.grade(0, 96.0)[0], quiz.grade(0, 64.0)[1]
(True, '✗ 64 MiB scales the rank (16 → 64) but not the targets (2 → 3): the size is linear in both.')
"""

from __future__ import annotations

from ..capacity import COURSE_SEQUENCES, memory_split
from ..model_config import exact_adapter_mb, load_model_config, target_dims
from ..sizing import MIB, adapter_vram_mb
from ._quiz import Choice, MultipleChoice, Numeric, Quiz

__all__ = ["sizing_quiz"]

#: The chapter's parameters: the adapter, the retrained one of question 1, the sequences of question 2.
MODEL = "llama-3-8b"
RANK, TARGETS = 16, ("q_proj", "v_proj")
NEW_RANK, NEW_TARGETS = 64, ("q_proj", "k_proj", "v_proj")
MORE_SEQUENCES = 2 * COURSE_SEQUENCES


def sizing_quiz() -> Quiz:
    """Return chapter 2's quiz: how the size scales, what more sequences cost in adapters, what PEFT stores."""
    cfg = load_model_config(MODEL)
    hidden, layers = cfg.hidden_size, cfg.num_hidden_layers
    size_mb = adapter_vram_mb(RANK, hidden, layers, list(TARGETS))
    new_mb = adapter_vram_mb(NEW_RANK, hidden, layers, list(NEW_TARGETS))
    rank_only = adapter_vram_mb(NEW_RANK, hidden, layers, list(TARGETS))
    targets_only = adapter_vram_mb(RANK, hidden, layers, list(NEW_TARGETS))
    exact_mb = exact_adapter_mb(MODEL, RANK, list(TARGETS))
    h100 = memory_split(MODEL, adapter_mb=exact_mb)
    bigger_kv = memory_split(MODEL, sequences=MORE_SEQUENCES, adapter_mb=exact_mb)
    per_sequence_gib = h100.kv_gib / h100.sequences
    d_in, d_out = target_dims(cfg, "v_proj")  # narrower under GQA, so the two shapes differ
    names = [t.split("_")[0] for t in NEW_TARGETS]
    short = f"{', '.join(names[:-1])} and {names[-1]}"
    return Quiz(
        "sizing_quiz",
        "Chapter 2: an adapter is a delta",
        (
            Numeric(
                f"Chapter 2's Llama-3-8B adapter is {size_mb:g} MiB at r={RANK} on q and v. Retrained at r={NEW_RANK} on "
                f"{short} (still bf16), how big is it by the chapter's square formula?",
                answer=new_mb,
                unit="MiB",
                explanation=f"The size is linear in the rank and in the targets: {size_mb:g} MiB × ({NEW_RANK}/{RANK}) × "
                f"({len(NEW_TARGETS)}/{len(TARGETS)}) = {new_mb:g} MiB.",
                mistakes=(
                    (
                        rank_only,
                        f"scales the rank ({RANK} → {NEW_RANK}) but not the targets ({len(TARGETS)} → "
                        f"{len(NEW_TARGETS)}): the size is linear in both.",
                    ),
                    (
                        targets_only,
                        f"scales the targets but not the rank: {NEW_RANK // RANK}× the rank is "
                        f"{NEW_RANK // RANK}× the size.",
                    ),
                    (
                        new_mb / 2,
                        "counts one matrix per target; each adapted projection has A and B, 2·r·d parameters.",
                    ),
                    (new_mb * 2, "is fp32 (4 bytes per parameter); the adapter stays in bf16, 2 bytes."),
                    (new_mb * MIB / 1e6, "is in MB (10^6 bytes); the course counts MiB (2^20 bytes)."),
                ),
            ),
            MultipleChoice(
                f"On chapter 2's H100 ({h100.gpu_gib:.1f} GiB as its driver reports it, of which the engine takes "
                f"{h100.memory_fraction:g}: {h100.budget_gib:.1f} GiB; {h100.base_gib:.1f} GiB of "
                f"Llama-3-8B weights; a KV-cache pool for {h100.sequences} sequences of {h100.context_tokens:,} tokens, "
                f"{h100.kv_gib:g} GiB), {h100.adapters_that_fit:,} exact-size adapters of {exact_mb:g} MiB fit. The "
                f"engine is asked to keep {MORE_SEQUENCES} sequences instead. How many adapters fit now?",
                (
                    Choice(
                        f"{bigger_kv.adapters_that_fit:,}",
                        True,
                        f"Right: each sequence of {h100.context_tokens:,} tokens is {per_sequence_gib:g} GiB of KV cache, "
                        f"taken from what the base leaves, so the adapter pool falls from {h100.pool_gib:.1f} to "
                        f"{bigger_kv.pool_gib:.1f} GiB.",
                    ),
                    Choice(
                        f"{h100.adapters_that_fit // 2:,}",
                        False,
                        f"No: the adapter pool does not halve; it loses the {bigger_kv.kv_gib - h100.kv_gib:g} GiB the KV "
                        f"cache gains, {h100.pool_gib:.1f} → {bigger_kv.pool_gib:.1f} GiB.",
                    ),
                    Choice(
                        f"{h100.adapters_that_fit:,}",
                        False,
                        f"No: both pools live in the same {h100.budget_gib:.1f} GiB; what the KV cache takes, the adapters "
                        "lose.",
                    ),
                ),
            ),
            MultipleChoice(
                f"In PEFT's convention, which shapes does an r={RANK} adapter store for Llama-3-8B's v_proj "
                f"({d_in:,} input features, {d_out:,} output features)?",
                (
                    Choice(
                        f"lora_A is {RANK} × {d_in:,} and lora_B is {d_out:,} × {RANK}; ΔW = B·A",
                        True,
                        "Right: A maps the input features down to rank r, B maps them back up, and lora_B @ lora_A is "
                        "out × in, the shape of the weight it corrects.",
                    ),
                    Choice(
                        f"lora_A is {d_in:,} × {RANK} and lora_B is {RANK} × {d_out:,}; ΔW = A·B",
                        False,
                        "That is the transposed way some papers write it; PEFT stores A as r × in and B as out × r, and "
                        "the course uses PEFT's convention throughout.",
                    ),
                    Choice(
                        f"Both are {d_out:,} × {d_in:,}, like the weight they correct",
                        False,
                        f"That is the shape of ΔW itself, which is never stored: it has {d_out * d_in:,} entries, against "
                        f"{RANK * (d_in + d_out):,} in A and B together.",
                    ),
                ),
            ),
        ),
    )
