"""Tests for labcore.checks: every checker accepts the right answer and names the mistake behind known wrong ones."""

from __future__ import annotations

import pytest

from labcore import adapter_vram_mb, fleet_plan, tenant_adapters
from labcore.checks import (
    Verdict,
    check_adapter_vram_mb,
    check_adapters_that_fit,
    check_monthly_bill_usd,
    check_savings_pct,
    grade_adapter_vram_mb,
    grade_adapters_that_fit,
    grade_monthly_bill_usd,
    grade_savings_pct,
)

GRADERS = [grade_adapter_vram_mb, grade_adapters_that_fit, grade_savings_pct, grade_monthly_bill_usd]


def test_right_answers_come_from_the_core():
    assert grade_adapter_vram_mb(adapter_vram_mb(32, 8192, 80, 4)).ok
    assert grade_adapters_that_fit(25).ok
    assert grade_savings_pct(fleet_plan(tenant_adapters(40)).savings_pct).ok
    assert grade_monthly_bill_usd(fleet_plan(tenant_adapters(1)).multi_lora_monthly_usd).ok


def test_right_answers_tolerate_rounding_but_not_more():
    assert grade_adapter_vram_mb(320.4).ok
    assert not grade_adapter_vram_mb(330).ok
    assert grade_savings_pct(97.5).ok and not grade_savings_pct(97.0).ok
    assert grade_monthly_bill_usd(2336).ok


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (160, "half the answer"),  # forgot A and B
        (335.54, "MB (10^6 bytes)"),  # MB, not MiB
        (640, "4 bytes per parameter"),  # fp32
        (80, "one target module"),  # forgot targets
        (4, "one layer"),  # forgot layers
        (320 * 8192, "d twice"),  # d x d instead of 2 r d
        (42, "layers · targets · 2 · r · d · bytes"),  # anything else: the formula
    ],
)
def test_adapter_vram_hints_name_the_mistake(answer, hint):
    verdict = grade_adapter_vram_mb(answer)
    assert not verdict.ok and verdict.message.startswith("✗") and hint in verdict.message


def test_adapter_vram_params_mode_hint():
    # 167.77 million parameters, reported as if it were MiB
    verdict = grade_adapter_vram_mb(adapter_vram_mb(32, 8192, 80, 4) / 2)
    assert "half" in verdict.message  # with 2 bytes/param "params" and "half" coincide: the first hint wins
    verdict = grade_adapter_vram_mb(adapter_vram_mb(8, 4096, 32, 2, 4) / 4, rank=8, hidden=4096, layers=32,
                                    targets=2, bytes_per_param=4)
    assert "parameters in millions" in verdict.message


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (26, "rounds up"),
        (25.6, "fraction of an adapter"),
        (23, "decimal GB"),
        (24.5, "round down"),
        (3, "Divide the pool"),
    ],
)
def test_adapters_that_fit_hints(answer, hint):
    verdict = grade_adapters_that_fit(answer)
    assert not verdict.ok and hint in verdict.message


def test_adapters_that_fit_thousand_mib_hint_when_it_differs():
    verdict = grade_adapters_that_fit(7, pool_gb=10, adapter_vram_mb=1400)  # 10240/1400 = 7.3 -> 7 is right
    assert verdict.ok
    verdict = grade_adapters_that_fit(2, pool_gb=3, adapter_vram_mb=1010)  # 3072/1010 -> 3; 3000/1010 -> 2
    assert not verdict.ok and "1000 MiB per GiB" in verdict.message


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (0.975, "fraction"),
        (2.5, "still pay"),
        (39, "GPUs saved"),
        (91104, "dollars saved"),
        (50, "1 − multi-LoRA bill / dedicated bill"),
    ],
)
def test_savings_pct_hints(answer, hint):
    verdict = grade_savings_pct(answer)
    assert not verdict.ok and hint in verdict.message


@pytest.mark.parametrize(
    ("answer", "hint"),
    [(2304, "30-day months"), (3.2, "hourly price"), (76.8, "one day"), (28032, "a year"), (1, "Bill =")],
)
def test_monthly_bill_hints(answer, hint):
    verdict = grade_monthly_bill_usd(answer)
    assert not verdict.ok and hint in verdict.message


@pytest.mark.parametrize("grade", GRADERS)
@pytest.mark.parametrize(("answer", "phrase"), [(None, "Not answered yet"), ("320", "Expected a number"),
                                               (True, "Expected a number"), (float("nan"), "Expected a number")])
def test_non_answers_get_a_prompt_not_a_traceback(grade, answer, phrase):
    verdict = grade(answer)
    assert not verdict.ok and phrase in verdict.message


def test_counts_accept_whole_floats():
    assert grade_adapters_that_fit(25.0).ok
    assert grade_adapters_that_fit(8192 // 320).ok


def test_check_functions_print_one_line(capsys):
    check_adapter_vram_mb(320)
    check_adapter_vram_mb(160)
    check_adapters_that_fit(None)
    check_savings_pct(97.5)
    check_monthly_bill_usd(2304)
    lines = capsys.readouterr().out.splitlines()
    assert [line[0] for line in lines] == ["✓", "✗", "✗", "✓", "✗"]
    assert check_adapter_vram_mb.__name__ == "check_adapter_vram_mb"


def test_check_parameters_follow_the_question():
    assert grade_adapter_vram_mb(16, rank=16, hidden=4096, layers=32, targets=2).ok
    assert grade_savings_pct(95.0, tenants=20).ok
    assert grade_monthly_bill_usd(40 * 2.0 * 730, gpus=40, gpu_hourly_usd=2.0).ok


def test_verdict_symbol_must_match_ok():
    with pytest.raises(ValueError, match="starts with ✓ or ✗"):
        Verdict(True, "✗ wrong")


def test_checks_depend_on_the_domain_and_never_the_reverse():
    import ast
    import pathlib

    import labcore

    folder = pathlib.Path(labcore.__file__).parent
    for path in folder.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level}
        if path.stem != "checks":
            assert "checks" not in imported, f"{path.name} imports labcore.checks: checkers import the domain, not back"
        else:
            assert "widgets" not in imported and "plots" not in imported, "checks must not need ipywidgets/matplotlib"


def test_every_chapter_checker_has_a_grader_and_a_printer():
    import labcore.checks as checks

    graders = {n[len("grade_"):] for n in checks.__all__ if n.startswith("grade_")}
    printers = {n[len("check_"):] for n in checks.__all__ if n.startswith("check_")}
    assert graders == printers and len(graders) >= 26
    assert all(hasattr(checks, n) for n in checks.__all__)
