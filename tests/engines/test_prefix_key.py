"""Chapter 15's prefix-cache sentence against vLLM 0.33.0's source: which fields of a LoRA request key a KV block."""

from __future__ import annotations

import ast
import json
import zipfile
from pathlib import Path

import pytest

from labcore.engines import VLLM, production_mapping

WHEEL = Path.home() / ".cache" / "labcore-engines" / "vllm-0.33.0-cp38-abi3-manylinux_2_28_x86_64.whl"
SOURCE = "vllm/v1/core/kv_cache_utils.py"
CHAPTER = Path(__file__).resolve().parents[2] / "book" / "15_production_engines.ipynb"


def _chapter_text() -> str:
    nb = json.loads(CHAPTER.read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


@pytest.mark.skipif(not WHEEL.exists(), reason="the vLLM 0.33.0 wheel is not cached (make engines downloads it)")
def test_the_lora_block_hash_key_is_name_and_path_at_the_release() -> None:
    with zipfile.ZipFile(WHEEL) as wheel:
        tree = ast.parse(wheel.read(SOURCE).decode())
    fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "_gen_lora_extra_hash_keys")
    returned = [ast.unparse(r.value) for r in ast.walk(fn) if isinstance(r, ast.Return) and r.value is not None]
    assert sorted(returned) == ["[('lora', lora_request.lora_name, lora_request.lora_path)]", "[]"]
    assert "lora_int_id" not in ast.unparse(fn)
    assert "re-pointing a LoRA name at a different\n    adapter does not reuse KV" in ast.get_docstring(fn, clean=False)


def test_chapter_15_and_the_mapping_say_what_the_release_keys_on() -> None:
    text = _chapter_text()
    assert '`("lora", lora_request.lora_name, lora_request.lora_path)`' in text
    assert "vLLM 0.33.0" in text and f"`{SOURCE}`" in text and "not the integer `lora_int_id`" in text
    rows = [s for s in production_mapping() if s.engine == VLLM and "_gen_lora_extra_hash_keys" in s.source]
    assert rows and all(s.source.startswith(f"vllm-0.33.0 {SOURCE}") for s in rows)
    assert all("lora_name and lora_path" in s.does for s in rows)
