"""Chapter 15's prefix-cache sentence against vLLM 0.33.0's source: which fields of a LoRA request key a KV block.

The source is read in the released wheel by ``make engines`` (``scripts/engine_facts.py``: the
``lora_block_hash_key`` entry of the committed facts), so this runs on any machine, with no wheel cached.
"""

from __future__ import annotations

import json
from pathlib import Path

from labcore.engines import VLLM, production_mapping
from labcore.engines.releases import release_facts

SOURCE = "vllm/v1/core/kv_cache_utils.py"
CHAPTER = Path(__file__).resolve().parents[2] / "book" / "15_production_engines.ipynb"


def _chapter_text() -> str:
    nb = json.loads(CHAPTER.read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


def test_the_lora_block_hash_key_is_name_and_path_at_the_release() -> None:
    facts = release_facts("vllm")
    key = facts["lora_block_hash_key"]
    assert (key["source"], key["function"]) == (SOURCE, "_gen_lora_extra_hash_keys")
    assert "_gen_lora_extra_hash_keys" in facts["cited_files"][SOURCE]  # the function the course cites, in the wheel
    assert key["returns"] == ["[('lora', lora_request.lora_name, lora_request.lora_path)]", "[]"]
    assert "lora_int_id" not in key["attributes_read"] and "lora_int_id" not in key["docstring"]
    assert "re-pointing a LoRA name at a different\n    adapter does not reuse KV" in key["docstring"]


def test_chapter_15_and_the_mapping_say_what_the_release_keys_on() -> None:
    text = _chapter_text()
    assert '`("lora", lora_request.lora_name, lora_request.lora_path)`' in text
    assert "vLLM 0.33.0" in text and f"`{SOURCE}`" in text and "not the integer `lora_int_id`" in text
    rows = [s for s in production_mapping() if s.engine == VLLM and "_gen_lora_extra_hash_keys" in s.source]
    assert rows and all(s.source.startswith(f"vllm-0.33.0 {SOURCE}") for s in rows)
    assert all("lora_name and lora_path" in s.does for s in rows)
