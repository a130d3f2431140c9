"""Tests for labcore.percentiles: nearest rank, never interpolated; one pass over a Counter of values."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labcore.percentiles import nearest_rank, percentile, percentiles


def test_percentile_nearest_rank_textbook_examples():
    values = [15, 20, 35, 40, 50]
    assert [percentile(values, p) for p in (5, 30, 40, 50, 100)] == [15, 20, 20, 35, 50]
    assert percentile([3.0], 99) == 3.0
    assert percentile(list(range(1, 101)), 99) == 99
    assert percentile(list(range(1, 1001)), 99.9) == 999


def test_p99_of_a_hundred_requests_is_the_99th_smallest_not_the_max():
    values = [1.0] * 98 + [2.0, 3.0]
    assert percentile(values, 99) == 2.0
    assert percentile(values, 100) == 3.0
    assert percentile(values + [4.0], 99) == 3.0  # n=101: rank ceil(99.99) = 100


@given(st.lists(st.integers(-50, 50), min_size=1, max_size=60), st.floats(0, 100))
def test_percentiles_match_the_definition(values, p):
    expected = sorted(values)[max(1, math.ceil(p / 100 * len(values) - 1e-9)) - 1]
    assert percentile(values, p) == expected
    assert percentiles(Counter(values), (p, 100)) == (expected, max(values))


def test_percentile_rejects_empty_and_out_of_range():
    with pytest.raises(ValueError, match="empty"):
        percentile([], 50)
    with pytest.raises(ValueError, match=r"\[0, 100\]"):
        percentile([1, 2], 101)


def test_nearest_rank_rounds_away_float_noise_and_clamps():
    assert nearest_rank(95, 100) == 95  # 0.95 * 100 is 94.999... in binary
    assert (nearest_rank(0, 10), nearest_rank(100, 10), nearest_rank(50, 1)) == (1, 10, 1)
    with pytest.raises(ValueError, match=r"percentile p must be a finite number in \[0, 100\], got -1"):
        nearest_rank(-1, 10)
