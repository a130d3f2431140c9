"""labcore.engines.mapping: every mapped setting has a version and a source, and names labcore objects that exist."""

from __future__ import annotations

import dataclasses

import pytest

from labcore.engines import (
    ENGINES,
    LORAX,
    NONE,
    SGLANG,
    TENSORRT_LLM,
    VLLM,
    EngineSetting,
    mapping_rows,
    production_mapping,
    resolve_labcore_name,
    settings_for,
)

ROWS = production_mapping()


def row(engine: str, setting: str) -> EngineSetting:
    return next(r for r in ROWS if (r.engine, r.setting) == (engine, setting))


@pytest.mark.parametrize("record", ROWS, ids=lambda r: f"{r.engine}:{r.setting}")
def test_every_record_has_a_version_a_source_and_is_verified(record):
    assert record.version.strip() and record.source.strip()
    # TensorRT-LLM could not be read at its latest release (TENSORRT_LLM_UNVERIFIED): its rows, and only they, are
    # marked, and the chapter says so (test_chapter_15_marks_tensorrt_llm_unverified)
    assert record.verified == (record.engine != TENSORRT_LLM), f"{record.setting}: verified={record.verified}"


@pytest.mark.parametrize("record", ROWS, ids=lambda r: f"{r.engine}:{r.setting}")
def test_every_labcore_concept_exists(record):
    for name in record.labcore:
        assert resolve_labcore_name(name) is not None


def test_no_setting_is_listed_twice():
    keys = [(r.engine, r.setting) for r in ROWS]
    assert len(keys) == len(set(keys))


def test_every_engine_is_covered_and_the_gaps_are_recorded():
    for engine in ENGINES:
        assert len(settings_for(engine)) >= 3, engine
    gaps = {r.setting for r in settings_for(NONE)}
    assert {"semver resolution of name@version", "base-checkpoint digest binding"} <= gaps
    assert all(r.kind == "gap" for r in settings_for(NONE))


def test_the_facts_the_chapter_quotes():
    assert row(VLLM, "--max-loras").default == "1" and "single batch" in row(VLLM, "--max-loras").does
    assert "1, 8, 16, 32, 64, 128, 256, 320, 512" in row(VLLM, "--max-lora-rank").does
    assert row(VLLM, "--max-lora-rank").default == "16"
    assert ">= than max_loras" in row(VLLM, "--max-cpu-loras").does  # chapter 14 says "at least --max-loras"
    assert "lora_name" in row(VLLM, "prefix-cache block hash, LoRA extra key").does
    assert row(SGLANG, "--max-loras-per-batch").default == "8"
    assert "lru" in row(SGLANG, "--lora-eviction-policy").does and "fifo" in row(SGLANG, "--lora-eviction-policy").does
    assert "max-loras-per-batch - 1" in row(SGLANG, 'pinned adapters ("pinned": true)').does
    assert row(TENSORRT_LLM, "lora_cache_gpu_memory_fraction").default == "0.05"
    assert "after KV cache" in row(TENSORRT_LLM, "lora_cache_gpu_memory_fraction").does
    assert row(LORAX, "--max-active-adapters").default == "1024"
    assert row(LORAX, "--adapter-memory-fraction").default == "0.1"
    assert row(TENSORRT_LLM, "PeftCacheConfig.device_cache_percent").default == "0.02"
    assert "None among them" in row(SGLANG, "--max-loras-per-batch").does
    assert "every LoRA-capable module" in row(VLLM, "--max-lora-rank").does
    assert "If None, all supported LoRA modules are used" in row(VLLM, "--lora-target-modules").does
    vllm_versions = {r.version for r in settings_for(VLLM) if r.setting.startswith("--")}
    assert vllm_versions == {"0.33.0"}  # the flags cite the release alike
    assert {r.version for r in settings_for(SGLANG)} == {"0.5.23"}
    assert "lora_path" in row(VLLM, "prefix-cache block hash, LoRA extra key").does  # name and path at 0.33.0


def test_the_slide_summary_names_recorded_settings():
    from labcore.engines import mapping_summary_html, summary_rows

    rows = summary_rows()
    assert 6 <= len(rows) <= 8 and all(set(r) == {"labcore", *ENGINES} for r in rows)
    recorded = {(r.engine, r.setting) for r in ROWS}
    for r in rows[:-1]:
        for engine in ENGINES:
            name = r[engine].split(" (")[0]
            assert r[engine] == "\u2014" or any(
                s == name or r[engine].startswith(s) for e, s in recorded if e == engine
            )
    assert mapping_summary_html().count("<tr>") == len(rows) + 1
    assert "between GPU and CPU memory" in row(LORAX, "Adapter Exchange Scheduling").does


def test_records_validate():
    good = ROWS[0]
    fields = {f.name: getattr(good, f.name) for f in dataclasses.fields(EngineSetting)}
    with pytest.raises(ValueError, match="engine must be one of"):
        EngineSetting(**{**fields, "engine": "TGI"})
    with pytest.raises(ValueError, match="kind must be one of"):
        EngineSetting(**{**fields, "kind": "knob"})
    with pytest.raises(ValueError, match="version must be a non-empty string"):
        EngineSetting(**{**fields, "version": " "})
    with pytest.raises(ValueError, match="labcore must name at least one labcore object"):
        EngineSetting(**{**fields, "labcore": ("numpy.array",)})


def test_missing_labcore_names_are_caught():
    with pytest.raises(LookupError, match="has no attribute 'NoSuchCache'"):
        resolve_labcore_name("labcore.cache.NoSuchCache")
    with pytest.raises(LookupError, match="no parameter or field 'slots'"):
        resolve_labcore_name("labcore.slots.SlotScheduler:slots")


def test_display_rows():
    rows = mapping_rows()
    assert len(rows) == len(ROWS)
    assert set(rows[0]) == {"engine", "setting", "does", "default", "labcore", "checked", "source"}
    assert all(r["default"] for r in rows)  # an undocumented default shows as a dash, not an empty cell
    with pytest.raises(ValueError, match="engine must be one of"):
        settings_for("TGI")


def test_the_page_table_escapes_and_marks_unverified_rows():
    from labcore.engines import mapping_table_html

    page = mapping_table_html()
    assert page.count("<tr>") == len(ROWS) + 1
    assert '"pinned": true' not in page and "&quot;pinned&quot;: true" in page  # quotes escaped
    assert page.count("(unverified)") == sum(not r.verified for r in ROWS) and "overflow-wrap:anywhere" in page
    shaky = dataclasses.replace(ROWS[0], verified=False)
    assert "(unverified)" in mapping_table_html([shaky])


def test_chapter_15_marks_tensorrt_llm_unverified():
    import json
    from pathlib import Path

    from labcore.engines import TENSORRT_LLM_UNVERIFIED, mapping_summary_html, mapping_table_html

    nb = json.loads((Path(__file__).resolve().parents[2] / "book" / "15_production_engines.ipynb").read_text())
    text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert "TensorRT-LLM's rows are marked unverified" in text and "1.2.1" in TENSORRT_LLM_UNVERIFIED
    page = mapping_table_html(settings_for(TENSORRT_LLM))
    assert page.count("(unverified)") == len(settings_for(TENSORRT_LLM))
    assert "unverified" in mapping_summary_html() and "(unverified)" not in mapping_table_html(settings_for(VLLM))
