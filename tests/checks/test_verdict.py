"""Tests for what every check shares (labcore.checks.verdict and the package): right answers from the core, rounding, non-answers, one printed line, the import direction."""

from __future__ import annotations

import ast
import pathlib

import pytest

import labcore
import labcore.checks as checks
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


@pytest.mark.parametrize("grade", GRADERS)
@pytest.mark.parametrize(
    ("answer", "phrase"),
    [
        (None, "Not answered yet"),
        ("320", "Expected a number"),
        (True, "Expected a number"),
        (float("nan"), "Expected a number"),
    ],
)
def test_non_answers_get_a_prompt_not_a_traceback(grade, answer, phrase):
    verdict = grade(answer)
    assert not verdict.ok and phrase in verdict.message


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

    folder = pathlib.Path(labcore.__file__).parent
    for path in [*folder.glob("*.py"), *folder.glob("panels/*.py"), *folder.glob("plots/*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level}
        assert not any(m and m.split(".")[0] == "checks" for m in imported), (
            f"{path.name} imports labcore.checks: checkers import the domain, not back"
        )
    for path in folder.glob("checks/*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level}
        assert not imported & {"plots", "panels", "widgets"}, f"checks/{path.name} must not need matplotlib or panels"


def test_every_chapter_checker_has_a_grader_and_a_printer():

    graders = {n[len("grade_") :] for n in checks.__all__ if n.startswith("grade_")}
    printers = {n[len("check_") :] for n in checks.__all__ if n.startswith("check_")}
    assert graders == printers and len(graders) >= 26
    assert all(hasattr(checks, n) for n in checks.__all__)
