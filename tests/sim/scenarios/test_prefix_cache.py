"""Tests for labcore.sim.scenarios.prefix_cache: a same-name replacement mid-trace, replayed under each key policy."""

from __future__ import annotations

import pytest

from labcore.prefix_cache import KEY_BY_IDENTITY, KEY_BY_NAME
from labcore.refs import AdapterKey
from labcore.sim.scenarios.prefix_cache import (
    PREFIX_REPLACE,
    PrefixCacheRun,
    PrefixScenario,
    prefix_cache_run,
    prefix_cache_runs,
)

K = AdapterKey.parse  # a key from its text, as a client writes it


def test_the_chapter_scenario():
    runs = prefix_cache_runs()
    by_name, by_id = runs[KEY_BY_NAME], runs[KEY_BY_IDENTITY]
    assert by_name.replaced == K("tenant-01@1.0.0") and by_name.replaced_with == K("tenant-01@1.1.0")
    assert by_name.after_requests == by_id.after_requests > 0
    assert by_name.stale_hits > 0 and by_id.stale_hits == 0
    assert all(t >= by_name.replace_at_ms for t in by_name.stale_at_ms)
    assert by_id.misses - by_name.misses == PREFIX_REPLACE.prompts_per_tenant  # one recompute per prompt
    assert prefix_cache_run(key_policy=KEY_BY_NAME) == by_name  # deterministic


def test_scenario_and_run_records_validate():
    with pytest.raises(ValueError, match=r"replaced_tenant must be an int in \[1, 8\], got 9"):
        PrefixScenario(replaced_tenant=9)
    with pytest.raises(ValueError, match="replace_at must be a fraction"):
        PrefixScenario(replace_at=1.5)
    run = prefix_cache_run(key_policy=KEY_BY_IDENTITY)
    with pytest.raises(ValueError, match="counters do not add up"):
        PrefixCacheRun(**{**{f: getattr(run, f) for f in PrefixCacheRun.__slots__}, "hits": run.hits + 1})
    assert 0.0 <= run.hit_rate <= 1.0 and run.stale_share_after == 0.0
