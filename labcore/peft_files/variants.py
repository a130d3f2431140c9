"""Tabulate the LoraConfig variants people train: what PEFT writes, what labcore reads, what an engine does.

>>> [row.variant for row in variant_table() if row.serving_engine.startswith("refused")]
['modules_to_save', 'DoRA']
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["VariantRow", "variant_table"]

# Engine facts, each checked in vLLM's source or documentation:
# [slots] vllm/lora/layers/base_linear.py (vllm-project/vllm, commit 1ace43ed), create_lora_weights:
#     every linear LoRA layer preallocates lora_a_stacked (max_loras, 1, max_lora_rank, in) and
#     lora_b_stacked (max_loras, 1, out, max_lora_rank); set_lora copies an adapter into the top-left
#     corner of its slot, so each slot costs max_lora_rank whatever the adapter's own rank.
# [helper] vllm/lora/peft_helper.py (vllm-project/vllm, commit e745baff), PEFTHelper: reads r,
#     lora_alpha, target_modules, bias, modules_to_save, use_rslora, use_dora (from_dict drops every
#     other key, rank_pattern and alpha_pattern included) and computes one scaling per adapter,
#     lora_alpha / sqrt(r) under use_rslora, else lora_alpha / r; _validate_features refuses
#     modules_to_save ("vLLM only supports modules_to_save being None") and use_dora ("vLLM does not
#     yet support DoRA"); validate_legal refuses r > max_lora_rank and bias != "none" unless bias is
#     enabled. The docs page for the latest release (docs.vllm.ai/en/latest/api/vllm/lora/peft_helper/)
#     types bias as Literal["none"].
# [ranks] docs.vllm.ai/en/v0.14.0/api/vllm/config/lora/: MaxLoRARanks = Literal[1, 8, 16, 32, 64,
#     128, 256, 320, 512], default max_lora_rank 16.
_NOT_CHECKED = "not checked against an engine here"
_SLOTS = "vLLM vllm/lora/layers/base_linear.py (create_lora_weights, set_lora)"
_HELPER = "vLLM vllm/lora/peft_helper.py (PEFTHelper)"
_RANKS = "docs.vllm.ai/en/v0.14.0/api/vllm/config/lora/"


@dataclass(frozen=True, slots=True)
class VariantRow:
    """Describe one LoraConfig variant: what PEFT writes, what labcore reads, what a serving engine does (and where that was checked)."""

    variant: str
    lora_config: str
    peft_writes: str
    labcore_reads: str
    serving_engine: str
    engine_source: str = ""


def variant_table() -> tuple[VariantRow, ...]:
    """Return the LoraConfig variants chapter 14 tabulates, as records (PEFT 0.21 files, vLLM facts cited in the source).

    >>> rows = variant_table()
    >>> rows[0].variant, rows[0].serving_engine[:40]
    ('plain LoRA (q_proj, v_proj)', 'every slot is sized at --max-lora-rank (')
    """
    rows = [
        (
            "plain LoRA (q_proj, v_proj)",
            "target_modules=['q_proj', 'v_proj']",
            "lora_A (r x in) and lora_B (out x r) per adapted module",
            "one LoraModule per pair: rank, scaling alpha/r; serving size = the A/B bytes",
            "every slot is sized at --max-lora-rank (default 16), so one high-rank adapter raises every slot's cost; "
            "an adapter with r above it is refused",
        ),
        (
            "all-linear",
            "target_modules='all-linear'",
            "the config lists every linear layer but the head by full path; same A/B tensors",
            "full paths match exactly; read like plain LoRA",
            _NOT_CHECKED,
        ),
        (
            "suffix and regex targets",
            "target_modules=['self_attn.q_proj'] or a regex string",
            "the config keeps the names or the regex as written",
            "matched as PEFT does: a list by exact path or '.'-suffix, a string as a full-match regex",
            _NOT_CHECKED,
        ),
        (
            "layers_to_transform",
            "layers_to_transform=[...]",
            "A/B only for the listed layer numbers",
            "a module outside the listed layers is refused as untargeted",
            _NOT_CHECKED,
        ),
        (
            "rsLoRA",
            "use_rslora=True",
            "the same tensors; only the config differs",
            "scaling alpha/sqrt(r) on each module (4.0, not 1.0, at r=16, alpha=16)",
            "scaling alpha/sqrt(r), as PEFT",
        ),
        (
            "rank_pattern / alpha_pattern",
            "rank_pattern={...}, alpha_pattern={...}",
            "A/B of each module at its own rank",
            "each module's own rank and scaling; adapter rank = the largest",
            "vLLM's PEFTHelper computes one scaling from r and lora_alpha: rank_pattern and alpha_pattern are not "
            "among the keys it reads; slots are sized at --max-lora-rank",
        ),
        (
            "LoRA on embeddings",
            "target_modules=['embed_tokens', ...]",
            "lora_embedding_A (r x vocab), lora_embedding_B (hidden x r), and the whole embedding (save_embedding_layers)",
            "embedding modules with their own rank; the saved embedding counted as a module copy",
            _NOT_CHECKED,
        ),
        (
            "modules_to_save",
            "modules_to_save=['lm_head']",
            "a full copy of each listed module",
            "bytes reported as module_copy, apart from the A/B bytes; serving_bytes says whether they are included",
            "refused: vLLM only supports modules_to_save being None",
        ),
        (
            "trainable tokens",
            "trainable_token_indices=[...]",
            "the trained rows of the embedding",
            "bytes reported as trainable_tokens",
            _NOT_CHECKED,
        ),
        (
            "DoRA",
            "use_dora=True",
            "a magnitude vector (out) per adapted module, beside A/B",
            "bytes reported as dora_magnitude; each module must have one",
            "refused: vLLM does not yet support DoRA",
        ),
        (
            "trained biases",
            "bias='all' / 'lora_only', lora_bias=True",
            "base biases (all, or of adapted modules only), or lora_B.bias",
            "bytes reported as bias; a bias the config does not allow is refused",
            "bias != 'none' refused unless the engine enables LoRA bias; the latest docs allow only 'none'",
        ),
        (
            "PiSSA, OLoRA, CorDA, LoftQ initialisation",
            "init_lora_weights='pissa' (or 'olora', 'corda', 'loftq')",
            "ordinary A/B tensors, but the base weights were rewritten in memory when the adapter was created",
            "refused: the adapter is a delta on a modified base (PEFT can convert it to a plain LoRA of rank 2r)",
            _NOT_CHECKED,
        ),
        (
            "MoE target_parameters",
            "target_parameters=[...], or a router/expert target on Mixtral",
            "LoRA on 3-D expert tensors under the experts module's name",
            "refused: target_parameters (MoE expert parameters) is not supported",
            _NOT_CHECKED,
        ),
    ]
    sources = {
        "plain LoRA (q_proj, v_proj)": f"{_SLOTS}; {_HELPER}; {_RANKS}",
        "rsLoRA": _HELPER,
        "rank_pattern / alpha_pattern": f"{_HELPER}; {_SLOTS}",
        "modules_to_save": _HELPER,
        "DoRA": _HELPER,
        "trained biases": f"{_HELPER}; docs.vllm.ai/en/latest/api/vllm/lora/peft_helper/",
    }
    return tuple(VariantRow(*row, engine_source=sources.get(row[0], "")) for row in rows)
