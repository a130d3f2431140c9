"""Shared fixtures for the engines tests: the shipped model configs, read straight from their JSON files."""

from __future__ import annotations

import json
from importlib import resources

import pytest

MIB = 2**20


def _shipped() -> dict[str, dict]:
    folder = resources.files("labcore").joinpath("data/models")
    return {
        p.name[:-5]: json.loads(p.read_text(encoding="utf-8")) for p in folder.iterdir() if p.name.endswith(".json")
    }


SHIPPED = _shipped()
DENSE = sorted(n for n, c in SHIPPED.items() if not (c.get("num_local_experts") or c.get("num_experts")))
MOE = sorted(set(SHIPPED) - set(DENSE))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run every test that asks for ``dense_model`` once per shipped dense model."""
    if "dense_model" in metafunc.fixturenames:
        metafunc.parametrize("dense_model", DENSE)


@pytest.fixture
def raw():
    """Return a function giving a shipped model's parsed config.json by name."""
    return lambda name: SHIPPED[name]
