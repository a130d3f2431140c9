"""Tests for lab/contract.py (re-exported by labcore.checks): the contract suite run in-process against the skeleton and the reference."""

from __future__ import annotations

from labcore.checks import ContractRun, count_contract_tests, run_contract_suite


def test_contract_run_against_the_skeleton_is_red_with_a_hint():
    red = run_contract_suite("lab.skeleton", select="parse_version_orders")
    assert isinstance(red, ContractRun) and red.passed == 0 and red.failed >= 1
    assert red.first_failure.startswith("NotImplementedError: TODO(lab)")
    assert str(red).startswith("LAB_MODULE=lab.skeleton (-k parse_version_orders): 0 passed")
    green = run_contract_suite("labcore", select="parse_version_orders")
    assert (green.passed, green.failed, green.first_failure) == (red.failed, 0, None)


def test_count_contract_tests_meets_the_brief():
    assert count_contract_tests() >= 62


def test_labcore_checks_reexports_the_runner_from_the_lab_package():
    import labcore.checks
    from lab import contract

    assert labcore.checks.run_contract_suite is contract.run_contract_suite
    assert labcore.checks.count_contract_tests is contract.count_contract_tests
    assert labcore.checks.ContractRun is contract.ContractRun
