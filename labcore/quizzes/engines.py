"""The self-check quiz of chapter 15 (the engines): slots per batch, a name-keyed prefix cache, what no engine checks.

>>> quiz = engines_quiz()
>>> quiz.grade(2, 208.0)[0], quiz.grade(2, 104.0)[1]
(True, "✗ 104 MiB sizes each slot at the adapters' own rank 16; every slot is preallocated at --max-lora-rank 32.")
"""

from __future__ import annotations

from ..engines import NONE, production_mapping
from ..prefix_cache import KEY_BY_NAME
from ..sim.scenarios.prefix_cache import prefix_cache_runs
from ..sim.scenarios.slots import SLOT_CLIFF, slot_run
from ..sizing import adapter_vram_mb
from ..slots import slot_pool_mb
from ._quiz import Choice, MultipleChoice, Numeric, Quiz

__all__ = ["engines_quiz"]


def engines_quiz() -> Quiz:
    """Return chapter 15's quiz; its numbers come from the chapter's seeded runs and labcore.engines' records."""
    cliff = slot_run(SLOT_CLIFF)
    stale = prefix_cache_runs()[KEY_BY_NAME]
    gaps = {r.setting for r in production_mapping() if r.engine == NONE}
    assert "base-checkpoint digest binding" in gaps  # the third question's answer is one of the recorded gaps
    slots, max_rank, own_rank, modules = 4, 32, 16, ["qkv_proj", "o_proj"]
    pool = slot_pool_mb(slots, max_lora_rank=max_rank, target_modules=modules)
    own = slot_pool_mb(slots, max_lora_rank=own_rank, target_modules=modules)
    square = slots * adapter_vram_mb(max_rank, 4096, 32, 2)
    return Quiz(
        "engines_quiz",
        "Chapter 15: the engines",
        (
            MultipleChoice(
                f"{SLOT_CLIFF.active_adapters} equally busy adapters share {SLOT_CLIFF.max_slots} slots "
                f"({cliff.waited} of {cliff.requests} requests waited in the chapter's run). What happens to a request "
                "whose adapter holds no slot?",
                (
                    Choice(
                        "It waits until every running request of some adapter in a slot has finished",
                        True,
                        "Right: a slot frees only when its adapter has nothing left in the batch, and busy adapters "
                        "keep receiving requests.",
                    ),
                    Choice(
                        "It evicts the least recently used adapter at once",
                        False,
                        "No: an adapter with requests in the batch cannot be evicted; only an idle one can.",
                    ),
                    Choice(
                        "It runs on the bare base model until a slot frees",
                        False,
                        "No: that would answer with the wrong model; the request waits.",
                    ),
                ),
            ),
            MultipleChoice(
                f"A prefix cache keyed by adapter name served {stale.stale_hits} stale prefixes after "
                f"{stale.replaced.name} was replaced under its name. What key makes a stale hit impossible?",
                (
                    Choice(
                        "name@version plus the digest of the base checkpoint",
                        True,
                        "Right: an entry computed under another version or base has another key, so it can only miss.",
                    ),
                    Choice(
                        "The adapter name plus a time-to-live on each entry",
                        False,
                        "No: until the entries expire, every hit is still computed with the old weights.",
                    ),
                    Choice(
                        "The adapter's path on disk",
                        False,
                        "No: a reload in place keeps the path and changes the bytes.",
                    ),
                ),
            ),
            Numeric(
                f"vLLM runs with --max-loras {slots} --max-lora-rank {max_rank} --lora-target-modules "
                f"{' '.join(modules)}; every adapter is rank {own_rank} on q and v of Llama-3-8B (bf16). How much VRAM "
                "do the slot buffers take?",
                answer=pool,
                unit="MiB",
                explanation=f"{slots} slots at rank {max_rank} in the two packed modules, per layer: qkv_proj (A {max_rank} "
                f"x 4096 for each of q, k, v; B 4096, 1024 and 1024 x {max_rank}) and o_proj (A {max_rank} x "
                f"4096, B 4096 x {max_rank}): {pool:g} MiB (labcore.engines.lora_buffers lists them).",
                mistakes=(
                    (
                        own,
                        f"sizes each slot at the adapters' own rank {own_rank}; every slot is preallocated at "
                        f"--max-lora-rank {max_rank}.",
                    ),
                    (
                        square,
                        "is the square formula over q and v; the engine allocates the packed qkv_proj (three "
                        "slices, k and v at the grouped-query width) and o_proj, as the flag says.",
                    ),
                    (pool / slots, f"is one slot; --max-loras {slots} preallocates {slots}."),
                    (pool * 2, "uses 4 bytes per parameter; the slots hold bf16."),
                ),
            ),
            MultipleChoice(
                "Which of these does none of vLLM, SGLang, TensorRT-LLM and LoRAX do, by the sources the chapter checked?",
                (
                    Choice(
                        "Check that an adapter was trained on the exact base checkpoint being served",
                        True,
                        "Right: the engines compare a base model's name at most; labcore's registry checks the digest.",
                    ),
                    Choice(
                        "Keep more adapters in host memory than fit on the GPU",
                        False,
                        "They all do: --max-cpu-loras, --max-loaded-loras, a host LoRA cache, adapter exchange.",
                    ),
                    Choice(
                        "Limit how many distinct adapters one batch holds",
                        False,
                        "They all do: --max-loras, --max-loras-per-batch, the device cache, --max-active-adapters.",
                    ),
                ),
            ),
        ),
    )
