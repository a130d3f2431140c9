"""labcore.contract: the lab's suite run in this process, test by test and module by module, against any copy."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from labcore.contract import (
    LAB_MODULES,
    ContractRun,
    TestOutcome,
    contract_root,
    count_contract_tests,
    run_contract_suite,
)
from tests.contract.conftest import MODULE_ORDER

from . import lab_samples


def test_the_reference_passes_every_test_of_every_module():
    run = run_contract_suite("labcore")
    assert (run.failed, run.errors, run.first_failure) == (0, 0, None)
    assert run.passed == len(run.outcomes) == count_contract_tests() >= 62
    assert [m.module for m in run.modules] == list(LAB_MODULES) and all(m.green for m in run.modules)


def test_the_skeleton_is_red_in_every_module_with_a_hint(lab_folder):
    run = run_contract_suite("lab.skeleton", root=lab_folder)
    assert run.passed == 0 and len(run.outcomes) == count_contract_tests(root=lab_folder)
    assert [m.module for m in run.modules] == list(LAB_MODULES) and not any(m.green for m in run.modules)
    assert all(o.message and "TODO(lab): implement " in o.message for o in run.outcomes), run.first_failure
    versions = run.modules[0]
    assert versions.first_failure.startswith("NotImplementedError: TODO(lab): implement versions.parse_version: ")


def test_a_learner_copy_is_read_afresh_on_every_run(lab_folder):
    """Write versions.py right, then wrong, then right again: each run in the same process sees the file as saved."""
    lab_samples.write(lab_folder, "versions", lab_samples.reference("versions"))
    first = run_contract_suite("lab.mine", modules="versions", root=lab_folder)
    lab_samples.write(lab_folder, "versions", lab_samples.VERSIONS_COMPARING_STRINGS)
    wrong = run_contract_suite("lab.mine", modules="versions", root=lab_folder)
    lab_samples.write(lab_folder, "versions", lab_samples.reference("versions"))
    again = run_contract_suite("lab.mine", modules="versions", root=lab_folder)
    assert first.modules[0].green and again.modules[0].green and first == again
    line = wrong.modules[0]
    assert not line.green and 0 < line.passed < line.total
    assert line.first_failure == "AssertionError: assert ('1', '10', '0') == (1, 10, 0)"


def test_a_module_whose_dependency_is_unwritten_names_the_dependency(lab_folder):
    lab_samples.write(lab_folder, "cache", lab_samples.reference("cache"))
    line = run_contract_suite("lab.mine", modules="cache", root=lab_folder).modules[0]
    assert (line.module, line.green) == ("cache", False)
    assert "TODO(lab): implement adapter.Adapter" in line.first_failure  # the cache's tests build Adapters first


def test_a_syntax_error_is_reported_as_such_on_every_test(lab_folder):
    lab_samples.write(lab_folder, "versions", "def parse_version(text:\n")
    run = run_contract_suite("lab.mine", modules="versions", root=lab_folder)
    assert run.passed == 0 and run.errors == len(run.outcomes) > 0
    assert "SyntaxError" in run.first_failure and str(lab_folder) not in run.first_failure


def test_modules_and_select_choose_the_tests(lab_folder):
    run = run_contract_suite("labcore", modules=("versions", "sizing"), select="not rejects")
    assert [m.module for m in run.modules] == ["versions", "sizing"] and run.deselected > 0 and run.failed == 0


@pytest.mark.parametrize(
    "kwargs, named",
    [
        ({"modules": "version"}, "'version'"),
        ({"modules": ("fleet", 7)}, "7"),
        ({"select": ""}, "''"),
        ({"lab_module": " "}, "' '"),
    ],
)
def test_bad_arguments_are_refused_naming_the_value(kwargs, named):
    with pytest.raises(ValueError) as info:
        run_contract_suite(**kwargs)
    assert named in str(info.value)


def test_outside_a_lab_folder_the_runner_says_where_it_looked(tmp_path):
    with pytest.raises(FileNotFoundError) as info:
        contract_root(tmp_path)
    assert str(tmp_path) in str(info.value) and "tests/contract" in str(info.value)


def test_a_run_prints_its_table_and_its_summary():
    run = ContractRun(
        "lab.mine",
        None,
        (
            TestOutcome("tests/contract/test_versions.py::a", "passed"),
            TestOutcome("tests/contract/test_cache.py::b", "failed", "assert 1 == 2"),
        ),
    )
    assert str(run) == "LAB_MODULE=lab.mine: 1 passed, 1 failed"
    assert run.table().splitlines() == [
        "versions  green  1/1",
        "cache     red    0/1  assert 1 == 2",
        "          1 failing: b",
        '          run only this module: run_contract_suite("lab.mine", modules="cache")',
        "                            or: LAB_MODULE=lab.mine pytest tests/contract/test_cache.py",
    ]
    assert "✗ red" in run._repr_html_() and "<caption>" in run._repr_html_()
    with pytest.raises(ValueError, match="'crashed'"):
        TestOutcome("tests/contract/test_cache.py::b", "crashed")


def _pytest_cli(folder: Path, lab_module: str, *files: str) -> dict[str, tuple[str, str]]:
    """Run ``pytest`` as a reader would (a new process, the real command line); return ``{nodeid: (outcome, text)}``."""
    junit = folder / "junit.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest", *files, "-q", "-p", "no:cacheprovider", f"--junitxml={junit}"],
        cwd=folder,
        env={"LAB_MODULE": lab_module, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        check=False,
        timeout=600,
    )
    results = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        problem = next((child for child in case if child.tag in ("failure", "error", "skipped")), None)
        outcome = "passed" if problem is None else {"failure": "failed"}.get(problem.tag, problem.tag)
        nodeid = f"{case.get('classname').replace('.', '/')}.py::{case.get('name')}"
        results[nodeid] = (outcome, "" if problem is None else (problem.get("message", "") + (problem.text or "")))
    return results


def test_in_process_runs_report_what_the_pytest_command_reports(lab_folder):
    """Same files, same outcome and failure for every test: the runner, and ``pytest`` in a new process (the download)."""
    lab_samples.write(lab_folder, "versions", lab_samples.VERSIONS_COMPARING_STRINGS)
    lab_samples.write(lab_folder, "sizing", lab_samples.reference("sizing"))
    ours = run_contract_suite("lab.mine", modules=("versions", "sizing", "adapter"), root=lab_folder).outcomes
    cli = _pytest_cli(
        lab_folder, "lab.mine", *(f"tests/contract/test_{m}.py" for m in ("versions", "sizing", "adapter"))
    )
    assert sorted(o.nodeid for o in ours) == sorted(cli)
    assert {o.nodeid: o.outcome for o in ours} == {n: outcome for n, (outcome, _) in cli.items()}
    assert {o.outcome for o in ours} == {"passed", "failed"}
    for outcome in ours:
        if outcome.message:
            assert outcome.message.split(": ", 1)[-1] in cli[outcome.nodeid][1], outcome


def test_a_suite_that_stops_halfway_is_an_error_not_a_short_table(lab_folder):
    """pytest's internal errors end the session early: the runner says so instead of reporting the tests that ran."""
    (lab_folder / "tests" / "contract" / "conftest.py").write_text(
        (lab_folder / "tests" / "contract" / "conftest.py").read_text()
        + "\n\ndef pytest_runtest_logreport(report):\n    if report.when == 'call' and 'frozen' in report.nodeid:\n"
        "        raise RuntimeError('a plugin broke')\n"
    )
    with pytest.raises(RuntimeError, match=r"pytest stopped before the end of the suite \(INTERNAL_ERROR\)"):
        run_contract_suite("labcore", modules="adapter", root=lab_folder)


def test_a_red_module_names_its_failing_tests_and_the_lines_that_run_it_alone(lab_folder):
    """The table's commands, pasted as a learner would, run that module's tests only and fail the same tests."""
    lab_samples.write(lab_folder, "versions", lab_samples.VERSIONS_COMPARING_STRINGS)
    line = run_contract_suite("lab.mine", modules="versions", root=lab_folder).modules[0]
    cli = _pytest_cli(lab_folder, "lab.mine", line.shell_command.split(" pytest ", 1)[1])
    failing_in_cli = [nodeid.split("::", 1)[1] for nodeid, (outcome, _) in cli.items() if outcome != "passed"]
    assert line.shell_command == "LAB_MODULE=lab.mine pytest tests/contract/test_versions.py"
    assert all(nodeid.startswith("tests/contract/test_versions.py::") for nodeid in cli) and len(cli) == line.total
    assert sorted(line.failing) == sorted(failing_in_cli) and len(line.failing) == line.total - line.passed > 0
    in_the_folder = {"run_contract_suite": lambda *a, **k: run_contract_suite(*a, **k, root=lab_folder)}
    pasted = eval(line.notebook_command, in_the_folder)  # noqa: S307 - the line as a learner pastes it
    assert pasted.modules == (line,)
    shown = run_contract_suite("lab.mine", modules="versions", root=lab_folder)._repr_html_()
    assert (
        f"{len(line.failing)} failing: {line.failing[0]}" in shown
        and line.notebook_command in shown.replace("&quot;", '"')
        and line.shell_command in shown
        and "First failure: <code>AssertionError" in shown
    )


def test_the_suite_runs_in_the_labs_order_so_x_stops_at_versions(lab_folder):
    """``pytest -x`` in the download (every module red) stops in versions, the module the README says to start with."""

    assert MODULE_ORDER == LAB_MODULES
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=lab_folder,
        env={"PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=600,
    ).stdout.splitlines()
    files = [
        line.split("::")[0].removeprefix("tests/contract/test_").removesuffix(".py") for line in listed if "::" in line
    ]
    assert list(dict.fromkeys(files)) == list(LAB_MODULES), files[:3]
    stopped = _pytest_cli(lab_folder, "lab.mine", "-x")
    assert len(stopped) == 1 and next(iter(stopped)).startswith("tests/contract/test_versions.py::"), stopped
