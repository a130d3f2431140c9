"""Tests for labcore.quizzes.contract: chapter 7's quiz says what the lab switch, the skeleton and the cache do."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from labcore import AdapterCache, tenant_adapters
from labcore.quizzes import contract_quiz

from ._helpers import assert_chapter_shape, right


def test_the_quiz_has_the_chapter_shape():
    assert_chapter_shape(contract_quiz())


def test_the_skeleton_fails_with_a_todo_hint_and_is_marked_generated():
    skeleton = importlib.import_module("lab.skeleton")
    with pytest.raises(NotImplementedError, match=r"TODO\(lab\)"):
        skeleton.parse_version("1.10.0")
    assert "Do not edit" in Path(skeleton.__file__).read_text(encoding="utf-8")  # generated from labcore
    assert right(contract_quiz().questions[0]).text.startswith("The switch works")


def test_the_registry_and_the_router_import_parse_version_from_versions():
    for module in ("registry", "router"):
        assert importlib.import_module(f"lab.skeleton.{module}").parse_version is \
            importlib.import_module("lab.skeleton.versions").parse_version
    assert "parse_version" in right(contract_quiz().questions[1]).text


def test_a_cache_that_evicts_late_holds_one_adapter_over_its_budget():
    quiz = contract_quiz()
    cache = AdapterCache(64, 8.0)
    adapters = tenant_adapters(5)
    for a in adapters[:4]:
        cache.access(a)
    assert cache.used_mb == cache.budget_mb == 64
    assert quiz.questions[2].answer == cache.used_mb + adapters[4].vram_mb == 80
    cache.access(adapters[4])  # the real cache evicts first: it never goes over
    assert cache.used_mb <= cache.budget_mb
    assert "budget" in quiz.grade(2, 64)[1]
