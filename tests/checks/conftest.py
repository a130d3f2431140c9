"""Shared by the tests of labcore.checks: each module's RIGHT and WRONG tables feed the two tests of ``graders.py``."""

from __future__ import annotations

import pytest

_TABLES = {
    "test_checker_accepts_the_answer": ("RIGHT", ("grade", "answer", "kwargs")),
    "test_checker_names_the_known_mistake": ("WRONG", ("grade", "answer", "hint")),
}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    table = _TABLES.get(metafunc.function.__name__)
    if table is not None:
        name, argnames = table
        metafunc.parametrize(argnames, getattr(metafunc.module, name), ids=lambda v: getattr(v, "__name__", None))
