"""The lab switch: the contract tests run against whatever ``LAB_MODULE`` names.

pytest tests/contract                          # the reference, labcore
LAB_MODULE=lab.skeleton pytest tests/contract  # the skeleton: every test fails
LAB_MODULE=lab.mine pytest tests/contract      # your copy (cp -r lab/skeleton lab/mine)
"""

from __future__ import annotations

import importlib
import os

import pytest
from hypothesis import Phase, settings

LAB_MODULE = os.environ.get("LAB_MODULE", "labcore")
#: hypothesis derandomized (the same examples every run), with no deadline and no database: the same files give the
#: same report in CPython and in the browser's Python, and no example saved by an earlier run is replayed
HYPOTHESIS_PROFILE = "course"
settings.register_profile(
    HYPOTHESIS_PROFILE,
    derandomize=True,
    deadline=None,
    database=None,
    max_examples=200,
    phases=tuple(p for p in Phase if p is not Phase.explain),
    print_blob=True,
)
settings.load_profile(HYPOTHESIS_PROFILE)
BASE = "llama-3-8b"
DIGEST = "sha256:9f2c4e"
OTHER_DIGEST = "sha256:71ab03"


#: the lab's modules in the order a learner writes them (each uses the ones before it): the suite runs its files in
#: this order, so ``pytest -x`` stops at the first module to write (labcore.contract.LAB_MODULES names the same order;
#: the download has no labcore to import it from)
MODULE_ORDER = ("versions", "sizing", "adapter", "registry", "cache", "router", "fleet")


def _module_rank(item) -> int:
    name = item.path.name.removeprefix("test_").removesuffix(".py")
    return MODULE_ORDER.index(name) if name in MODULE_ORDER else len(MODULE_ORDER)


def pytest_collection_modifyitems(config, items) -> None:
    """Run the contract files in :data:`MODULE_ORDER` (a stable sort), leaving every other test where it was."""
    here = [
        i
        for i, item in enumerate(items)
        if item.path.parent.name == "contract" and item.path.parent.parent.name == "tests"
    ]
    ordered = sorted((items[i] for i in here), key=_module_rank)
    for i, item in zip(here, ordered, strict=True):
        items[i] = item


def pytest_report_header(config):
    return f"lab module under test: {LAB_MODULE} (set LAB_MODULE to switch)"


@pytest.fixture(scope="session")
def lab():
    """The implementation under test."""
    return importlib.import_module(LAB_MODULE)


@pytest.fixture
def make(lab):
    """Build an Adapter with sensible defaults: ``make("support-bot", "2.1.0", vram_mb=16.0)``."""

    def build(name="support-bot", version="1.0.0", *, base=BASE, digest=DIGEST, rank=16, vram_mb=16.0, merged=False):
        return lab.Adapter(name, version, base, digest, rank, vram_mb, merged)

    return build


@pytest.fixture
def key(lab):
    """``key("support-bot@2.1.0")``: the adapter key value an implementation carries, read from its text.

    The cache, the eviction log and the router's decisions carry keys (``lab.AdapterKey``), not strings; a key
    prints as its text, so ``str(key("a@1.0.0")) == "a@1.0.0"``.
    """
    return lab.AdapterKey.parse


@pytest.fixture
def registry(lab):
    """A registry serving ``llama-3-8b`` at DIGEST."""
    reg = lab.AdapterRegistry()
    reg.register_base(BASE, DIGEST)
    return reg


@pytest.fixture
def router_for(lab, registry):
    """``router_for(budget_mb)``: a router over ``registry`` with a fresh cache (8 MiB/ms, 40 ms base, 5%)."""

    def build(budget_mb=64.0, *, rate=8.0, base_latency_ms=40.0, overhead=0.05):
        cache = lab.AdapterCache(budget_mb, rate)
        return lab.MultiLoRARouter(registry, cache, BASE, base_latency_ms=base_latency_ms, dynamic_overhead=overhead)

    return build
