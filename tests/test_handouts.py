"""Each plan's handout words its exercises for paper, and its answer key gives labcore's answers and hints."""

from __future__ import annotations

import re

import pytest
import segno

from coursebuild import handouts
from coursebuild.session_plans import load_plans
from labcore.capacity import memory_split
from labcore.chapters import EXERCISES
from labcore.fleet import GPU_QPS
from labcore.kv_cache import kv_bytes_per_token
from labcore.links import LINKS
from labcore.model_config import exact_adapter_mb

PLANS = load_plans()


@pytest.mark.parametrize("key", sorted(PLANS))
def test_the_handout_words_every_exercise_for_paper(key: str) -> None:
    plan = PLANS[key]
    text = handouts.handout_markdown(plan)
    assert [m[1] for m in re.finditer(r"^\*\*(\d+\.\d+)\.\*\*", text, re.M)] == list(plan.exercises)
    for cell_word in ("`prediction`", "`None` with", "run the cell", "panel above", "{glue"):
        assert cell_word not in text, f"{key}: the handout still says {cell_word!r}"


@pytest.mark.parametrize("key", sorted(PLANS))
def test_the_answer_key_gives_labcores_answer_and_each_slips_hint(key: str) -> None:
    plan = PLANS[key]
    key_text = handouts.answer_key_markdown(plan)
    for label in plan.exercises:
        exercise = next(e for e in EXERCISES if e.label == label)
        entry = key_text.split(f"**{label}.**", 1)[1].split("\n\n**", 1)[0]
        right = exercise.verdict(exercise.right).message.removeprefix("✓ Correct: ")
        assert right[1:] in entry, f"{label}: the key does not give {right!r}"
        for wrong in exercise.wrong:
            hint = exercise.verdict(wrong).message.removeprefix("✗ ")
            assert hint in entry, f"{label}: the key leaves out the hint for {wrong!r}"


def _forms(value: object) -> set[str]:
    """Return the ways a page may print an exercise's input (``32768`` as ``32,768``, ``2.0`` as ``2``)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, float) and not value.is_integer():
        return {f"{value:g}", f"{value:.2f}"}
    number = int(value)  # type: ignore[call-overload]
    return {f"{number:,}", str(number)}


def _entry(text: str, label: str) -> str:
    return text.split(f"**{label}.**", 1)[1].split("\n\n**", 1)[0]


@pytest.mark.parametrize("key", sorted(PLANS))
def test_each_exercise_carries_its_inputs_on_the_handout(key: str) -> None:
    """The exercise's own arguments (labcore's record) and the figures its answer is computed from are on paper."""

    split = memory_split("llama-3-8b", "H100-80GB", adapter_mb=exact_adapter_mb("llama-3-8b", 16, ["q_proj", "v_proj"]))
    needs = {  # what the answer is computed from, beyond the exercise's own arguments, as the chapters print it
        "grade_adapters_beside_kv": [
            f"{split.gpu_gib:.1f} GiB",
            f"{split.base_gib:.1f} GiB",
            f"{kv_bytes_per_token('llama-3-8b') // 1024} KiB per token",
            f"{split.adapter_mb:.1f} MiB",
        ],
        "grade_link_miss_ms": [
            f"{LINKS['PCIe 4.0 x16'].gb_per_s:g} GB/s",
            f"{LINKS['PCIe 4.0 x16'].overhead_ms:g} ms per copy",
            "40 ms",
            "5%",
        ],
        "grade_savings_under_load_pct": [f"{GPU_QPS:g} requests/s", "5%"],
        "grade_fleet_bill_usd": [f"{GPU_QPS:g} requests/s", "5%", "730 hours"],
        "grade_thrash_hit_pct": ["16 MiB"],
    }
    text = handouts.handout_markdown(PLANS[key])
    for label in PLANS[key].exercises:
        exercise = next(e for e in EXERCISES if e.label == label)
        entry = _entry(text, label)
        for name, value in exercise.kwargs.items():
            printed = [v for v in _forms(value) if re.search(rf"(?<![\w.,]){re.escape(v)}(?![\w,]|\.\d)", entry)]
            assert printed, (
                f"{key}: exercise {label} needs {name}={value!r}, which its handout entry does not print: {entry}"
            )
        for figure in needs.get(exercise.grade.__name__, []):
            assert figure in entry, f"{key}: exercise {label} needs {figure!r}, not on its handout: {entry}"


def test_the_site_address_and_its_qr_code_come_from_the_config_and_nothing_when_unset(tmp_path) -> None:  # noqa: ANN001

    config = tmp_path / "_config.yml"
    config.write_text("html:\n  baseurl: https://course.example.org/multi-lora/\n", encoding="utf-8")
    assert handouts.site_address(config) == "https://course.example.org/multi-lora/"
    card = handouts.site_card(config=config).data
    assert 'href="https://course.example.org/multi-lora/"' in card and 'alt="QR code of https://course' in card
    assert segno.make("https://course.example.org/multi-lora/", error="m").svg_data_uri(scale=4, border=2) in card
    config.write_text("html:\n  use_download_button: true\n", encoding="utf-8")
    assert handouts.site_address(config) == "" and handouts.site_card(config=config) is None
