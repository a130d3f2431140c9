"""One experiment, one number: each panel opens on its chapter's experiment, and the speaker notes quote the page.

For every panel a chapter shows, the row its stored spec draws at its default controls must equal the values
the chapter glues for that experiment (the prose, the notes and the quizzes quote those glue keys). Two
panels are tools for an exercise and open away from its answer on purpose (chapter 7's quiz check and its
mistaken router). Every number written literally in a chapter's speaker notes (not through a glue role) must
appear in that chapter's page: its prose or its stored outputs.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
import yaml

from coursebuild.lite.notebooks import glue_values
from labcore.site import VEGALITE_MIME

BOOK = Path(__file__).resolve().parent.parent / "book"
NOTES = Path(__file__).resolve().parent.parent / "scripts" / "speaker_notes"

#: (page, panel, measure of its default row, the chapter's glue key for that number)
SAME_NUMBER = [
    ("01_why_multi_lora", "fleet_savings_panel", "multi_lora_gpus", "ch01_multi_lora_gpus"),
    ("01_why_multi_lora", "fleet_savings_panel", "savings_pct", "ch01_savings_pct"),
    ("01_why_multi_lora", "fleet_savings_panel", "multi_lora_monthly_usd", "ch01_multi_lora_monthly_usd"),
    ("02_adapter_is_a_delta", "adapter_vram_panel", "exact_mb", "ch02_exact_8b_mb"),
    ("02_adapter_is_a_delta", "gpu_split_panel", "adapters", "ch02_h100_fit"),
    ("02_adapter_is_a_delta", "gpu_split_panel", "gpu_gib", "ch02_gpu_gib"),
    ("03_versions_and_registry", "release_panel", "releases_behind", "ch03_releases_behind"),
    ("04_the_cache", "lru_thrash_panel", "lru_hit_pct", "ch04_lru_hit_pct"),
    ("04_the_cache", "lru_thrash_panel", "fifo_hit_pct", "ch04_fifo_hit_pct"),
    ("04_the_cache", "lru_thrash_panel", "p50_ms", "ch04_panel_p50_ms"),
    ("05_the_router", "route_latency_panel", "hit_ms", "ch05_hit_ms"),
    ("05_the_router", "route_latency_panel", "miss_ms", "ch05_miss_ms"),
    ("05_the_router", "customer41_panel", "hit_after_pct", "ch05_hit_after_pct"),
    ("05_the_router", "customer41_panel", "p99_after_ms", "ch05_p99_after_ms"),
    ("06_fleet_plan", "fleet_load_panel", "multi_lora_gpus", "ch06_multi_gpus"),
    ("06_fleet_plan", "fleet_load_panel", "dedicated_monthly_usd", "ch06_dedicated_usd"),
    ("08_serving_simulator", "onboarding_panel", "hit_after_pct", "ch08_after_hit_pct"),
    ("08_serving_simulator", "onboarding_panel", "p99_after_ms", "ch08_after_p99"),
    ("09_spill_tier", "spill_panel", "gpu_hit_pct", "ch09_hit_pct_64"),
    ("09_spill_tier", "spill_panel", "p99_gpu_only_ms", "ch09_gpu_only_p99_64"),
    ("09_spill_tier", "spill_panel", "p99_tiered_ms", "ch09_tiered_p99_64"),
    ("10_affinity_routing", "affinity_panel", "p99_round_robin_ms", "ch10_round_robin_p99_ms"),
    ("10_affinity_routing", "affinity_panel", "p99_rendezvous_ms", "ch10_rendezvous_p99_ms"),
    ("10_affinity_routing", "affinity_panel", "p99_bounded_ms", "ch10_bounded_rendezvous_p99_ms"),
    ("10_affinity_routing", "affinity_panel", "hit_bounded_pct", "ch10_bounded_rendezvous_hit_pct"),
    ("11_canary", "canary_panel", "at_request", "ch11_good_done_at"),
    ("11_canary", "canary_panel", "final_share_pct", "ch11_stayed_pct"),
    ("12_batch_overhead", "batch_panel", "overhead_pct", "ch12_panel_overhead_pct"),
    ("13_inflight_admission", "admission_panel", "queued", "ch13_waited_24"),
    ("13_inflight_admission", "admission_panel", "refused_pct", "ch13_refused_pct_24"),
    ("14_real_stack", "adapter_vram_panel", "exact_mb", "ch14_l3_exact_mb"),
    ("15_production_engines", "slot_cliff_panel", "p99_ms", "ch15_fix_none_p99_ms"),
    ("15_production_engines", "slot_cliff_panel", "pool_mb", "ch15_table_mb"),
    ("16_putting_it_together", "fleet_calculator_panel", "adapter_mb", "ch16_adapter_mb"),
    ("16_putting_it_together", "fleet_calculator_panel", "gpu_gib", "ch16_gpu_gib"),
    ("fleet_calculator", "fleet_calculator_panel", "load_bound_gpus", "calc_multi_gpus"),
    ("fleet_calculator", "gpu_fit_panel", "gpu_gib", "calc_h100_gib"),
    ("fleet_calculator", "launch_panel", "vllm_lora_mib", "calc_vllm_lora_mib"),
    ("fleet_calculator", "launch_panel", "sglang_lora_mib", "calc_sglang_lora_mib"),
]
#: panels that open away from the chapter's numbers on purpose: the tool of an exercise must not show its answer
EXERCISE_TOOLS = {("07_do_the_lab", "fit_quiz_panel"), ("07_do_the_lab", "your_router_panel")}


def _notebook(stem: str) -> dict:
    nb = json.loads((BOOK / f"{stem}.ipynb").read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        cell["source"] = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
    return nb


def _default_rows(nb: dict) -> dict[str, dict]:
    rows = {}
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            spec = out.get("data", {}).get(VEGALITE_MIME)
            if spec and not spec["usermeta"].get("labcore_variant"):
                state = {p["name"]: p["value"] for p in spec["params"]}
                rows.setdefault(
                    spec["usermeta"]["labcore_panel"],
                    next(r for r in spec["data"]["values"] if all(r[k] == v for k, v in state.items())),
                )
    return rows


@pytest.mark.parametrize("stem, panel, measure, key", SAME_NUMBER, ids=lambda v: v if isinstance(v, str) else "")
def test_the_panel_opens_on_the_number_the_chapter_quotes(stem: str, panel: str, measure: str, key: str) -> None:
    nb = _notebook(stem)
    shown = _default_rows(nb)[panel][measure]
    glued = float(glue_values(nb)[key].replace(",", ""))
    assert math.isclose(shown, glued, rel_tol=1e-6), (
        f"{stem}: {panel} opens on {measure}={shown}; the page says {glued}"
    )


def test_every_chapter_panel_is_checked_or_named_an_exercise_tool() -> None:
    checked = {(stem, panel) for stem, panel, _, _ in SAME_NUMBER}
    shown = {
        (p.stem, name)
        for p in sorted(BOOK.glob("*.ipynb"))
        for name in _default_rows(_notebook(p.stem))
        if not name.startswith("your_")
    }
    assert shown - checked - EXERCISE_TOOLS == set()


_GLUE_ROLE = re.compile(r"\{glue:[a-z]+\}`[^`]*`")
_NUMBER = re.compile(r"(?<![\w.#-])\d[\d,]*(?:\.\d+)?(?![\w])")


_ANY_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")  # on the page a number may touch its unit ("80GB")


def _numbers(text: str, pattern: re.Pattern[str] = _NUMBER) -> set[str]:
    return {n.replace(",", "").rstrip(".") for n in pattern.findall(text)}


@pytest.mark.parametrize("path", sorted(NOTES.glob("*.yml")), ids=lambda p: p.stem)
def test_every_number_in_the_notes_is_on_the_page(path: Path) -> None:
    notes = yaml.safe_load(path.read_text(encoding="utf-8"))
    written = (
        " ".join(
            str(s.get("notes", "")) + " " + " ".join(map(str, (s.get("at") or {}).values()))
            for s in (notes.get("sections") or {}).values()
        )
        + " "
        + str(notes.get("title", ""))
    )
    literal = _numbers(_GLUE_ROLE.sub(" ", written))
    nb = _notebook(path.stem)
    page = " ".join(c["source"] for c in nb["cells"] if "speaker-notes" not in c.get("metadata", {}).get("tags", []))
    page += " ".join(
        json.dumps(o.get("data", {}).get("text/plain", "")) + json.dumps(o.get("text", ""))
        for c in nb["cells"]
        for o in c.get("outputs", [])
    )
    page += " ".join(glue_values(nb).values())
    missing = sorted(n for n in literal - _numbers(page, _ANY_NUMBER) if not (n.isdigit() and int(n) < 10))
    assert missing == [], f"{path.name}: numbers in the notes that the page does not show: {missing}"
