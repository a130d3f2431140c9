"""The self-check quiz of chapter 14 (the real stack): what PEFT's file weighs, where the base binding must live,
and what a checkpoint digest sees.

The sizes come from :func:`labcore.model_config.exact_sizing`, which reads the model's published
``config.json``; the digest question is about :func:`labcore.digest.checkpoint_digest`, whose
definition the chapter states (and whose claims the quiz's tests check on real files).

>>> quiz = real_files_quiz()
>>> quiz.grade(0, 125)[0], quiz.grade(0, 62.5)[1]
(True, '✗ 62.5 MiB is the exact size at bf16, what a server holds; PEFT writes its factors in F32 by default, 4 bytes each.')
"""

from __future__ import annotations

from ..model_config import exact_sizing, load_model_config, target_dims
from ..sizing import MIB
from ._quiz import Choice, MultipleChoice, Numeric, Quiz

__all__ = ["real_files_quiz"]

#: Question 1's adapter: Llama-3-70B at r=16 on q and v (an input).
MODEL, RANK, TARGETS = "llama-3-70b", 16, "q,v"


def real_files_quiz() -> Quiz:
    """Return chapter 14's quiz: the F32 file of a GQA adapter, the binding beside the adapter, the digest."""
    bf16 = exact_sizing(MODEL, RANK, TARGETS)
    fp32_naive = exact_sizing(MODEL, RANK, TARGETS, bytes_per_param=4).naive_mb
    cfg = load_model_config(MODEL)
    v_in, v_out = target_dims(cfg, "v_proj")
    return Quiz(
        "real_files_quiz",
        "Chapter 14: the real stack",
        (
            Numeric(
                f"A Llama-3-70B adapter at r={RANK} on q_proj and v_proj is saved with PEFT's defaults. How many MiB of "
                "tensor data does its adapter_model.safetensors hold?",
                answer=bf16.file_mb,
                unit="MiB",
                explanation=f"r·(in + out) per projection from config.json (v_proj maps {v_in:,} features to only "
                f"{v_out:,} under grouped-query attention), over {cfg.num_hidden_layers} layers, at 4 bytes: "
                f"{bf16.file_mb:g} MiB, twice the {bf16.exact_mb:g} MiB a bf16 server holds.",
                mistakes=(
                    (
                        bf16.exact_mb,
                        "is the exact size at bf16, what a server holds; PEFT writes its factors in F32 by "
                        "default, 4 bytes each.",
                    ),
                    (
                        fp32_naive,
                        f"is the square formula: under grouped-query attention v_proj maps {v_in:,} features to "
                        f"only {v_out:,}, so use r·(in + out) per projection.",
                    ),
                    (
                        bf16.naive_mb,
                        "is the square formula at bf16: wrong twice, v_proj is narrower and the file is F32.",
                    ),
                    (bf16.file_mb * MIB / 1e6, "is in MB (10^6 bytes); the course counts MiB (2^20 bytes)."),
                ),
            ),
            MultipleChoice(
                "Where must the binding between an adapter and the exact base weights it was trained on live?",
                (
                    Choice(
                        "Beside the adapter, in a registry entry the serving layer checks before loading it",
                        True,
                        "Right: the adapter's own files cannot carry it. PEFT drops unknown keys of adapter_config.json "
                        "when it re-saves, and vLLM's filesystem resolver compares base_model_name_or_path with the "
                        "served base's name: a name, not the weights.",
                    ),
                    Choice(
                        "In adapter_config.json's base_model_name_or_path",
                        False,
                        "That is a name (a Hub id or a local path), and a name says nothing about which weights sit "
                        "behind it.",
                    ),
                    Choice(
                        "In the metadata of adapter_model.safetensors",
                        False,
                        "PEFT rewrites the safetensors metadata when it saves, so a digest put there does not survive.",
                    ),
                ),
            ),
            MultipleChoice(
                "Which change gives a checkpoint folder a different checkpoint_digest?",
                (
                    Choice(
                        "Flipping one bit of one tensor",
                        True,
                        "Right: the digest hashes every tensor's name, dtype, shape and bytes; one changed byte gives an "
                        "unrelated digest.",
                    ),
                    Choice(
                        "Re-sharding the same tensors into two files with other names",
                        False,
                        "No: tensors are hashed in order of their names, whatever file holds them; the same tensors give "
                        "the same digest.",
                    ),
                    Choice(
                        "Adding a training_args.bin and stamping every file 1970-01-01",
                        False,
                        "No: only the tensors of the safetensors files count; other files and timestamps are never read, "
                        "and pickles are never opened.",
                    ),
                ),
            ),
        ),
    )
