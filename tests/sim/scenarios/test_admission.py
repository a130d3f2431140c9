"""Tests for labcore.sim.scenarios.admission: a smaller pool queues and refuses more; a big one never waits."""

from __future__ import annotations

import pytest

from labcore.sim.scenarios.admission import ADMISSION, ADMISSION_POOLS, AdmissionScenario, admission_run, admission_runs


@pytest.fixture(scope="module")
def runs():
    return admission_runs()


def test_every_request_is_served_queued_or_refused(runs):
    assert list(runs) == list(ADMISSION_POOLS)
    for run in runs.values():
        assert run.requests == ADMISSION.requests and run.refused <= run.requests


def test_refusals_and_waits_fall_as_the_pool_grows(runs):
    refused = [runs[pool].refused for pool in ADMISSION_POOLS]
    waits = [runs[pool].max_wait_ms for pool in ADMISSION_POOLS]
    assert refused == sorted(refused, reverse=True) and refused[0] > 0 == refused[-1]
    assert waits == sorted(waits, reverse=True) and waits[-1] == 0.0
    assert runs[ADMISSION_POOLS[-1]].queued == 0 and runs[ADMISSION_POOLS[-1]].p99_ms == 42.0


def test_the_record_validates_and_reads_by_key():
    assert (ADMISSION["rate_per_s"], ADMISSION["hold_ms"]) == (100.0, 300.0)
    with pytest.raises(ValueError, match="hold_ms must be a finite number >= 0, got -1"):
        AdmissionScenario(tenants=4, requests=10, zipf_s=0.0, rate_per_s=1.0, seed=0, hold_ms=-1, max_queue=0)


def test_one_state_is_the_sweeps_run_and_is_kept():

    runs = admission_runs()
    assert admission_run(24) is runs[24]  # the chapter, its panel and its checks share one computation
    assert admission_run(32, hold_ms=600.0).queued > 0 == admission_run(36, hold_ms=600.0).queued
