"""Tests for labcore.quizzes.admission: chapter 13's quiz says what AdmissionController does."""

from __future__ import annotations

import pytest

from labcore.admission import AdmissionController
from labcore.errors import QueueFullError
from labcore.quizzes import admission_quiz
from labcore.refs import AdapterKey
from labcore.sim import admission_runs, single_replica_router

from ._helpers import assert_chapter_shape, right

K = AdapterKey.parse  # a key from its text, as a client writes it


def test_the_quiz_has_the_chapter_shape():
    assert_chapter_shape(admission_quiz())


def test_a_hit_is_admitted_until_someone_waits_and_then_queues_behind():
    gate = AdmissionController(single_replica_router(3, budget_mb=32.0), max_queue=2)
    waiting = [gate.start(f"llama-3-8b:tenant-0{t}").waiting for t in (1, 2, 1, 3, 1)]
    assert waiting == [False, False, False, True, True]
    assert gate.in_flight_adapters[K("tenant-01@1.0.0")] == 2  # one pin per request
    assert admission_quiz().questions[0].answer == waiting.count(False) == 3


def test_with_every_adapter_pinned_and_the_queue_full_a_request_is_refused_and_nothing_moves():
    gate = AdmissionController(single_replica_router(4, budget_mb=32.0), max_queue=1)
    for t in (1, 2, 3):
        gate.start(f"llama-3-8b:tenant-0{t}")
    with pytest.raises(QueueFullError, match="queue is full"):
        gate.start("llama-3-8b:tenant-04")
    cache = gate.router.cache
    assert cache.used_mb <= cache.budget_mb and cache.eviction_log == []
    assert right(admission_quiz().questions[1]).text.startswith("Refuses it with QueueFullError")


def test_the_small_pool_refuses_what_a_bigger_one_queues():
    q = admission_quiz().questions[2]
    runs = admission_runs()
    small = runs[16]
    assert small.refused > 0 and runs[24].refused == 0 and runs[24].queued > 0
    assert f"refuses {100 * small.refused / small.requests:.0f}% of the requests" in q.question
    assert f"{small.max_wait_ms:,.0f} ms" in " ".join(c.feedback for c in q.choices)
