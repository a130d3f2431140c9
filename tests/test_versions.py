"""labcore.versions beyond the contract: the messages name the input, formatting inverts parsing, order is numeric."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labcore.errors import InvalidVersionError, LabcoreError
from labcore.versions import format_version, parse_version

parts = st.integers(min_value=0, max_value=10**6)


@given(parts, parts, parts)
def test_format_inverts_parse_and_parse_inverts_format(major, minor, patch):
    text = f"{major}.{minor}.{patch}"
    assert parse_version(text) == (major, minor, patch)
    assert format_version(parse_version(text)) == text


@given(st.lists(st.tuples(parts, parts, parts), min_size=2, max_size=20))
def test_sorting_by_the_parsed_value_is_numeric_order(versions):
    texts = [".".join(map(str, v)) for v in versions]
    assert sorted(texts, key=parse_version) == [".".join(map(str, v)) for v in sorted(versions)]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1.2", "expected exactly MAJOR.MINOR.PATCH"),
        ("1.2.3.4", "expected exactly MAJOR.MINOR.PATCH"),
        ("1.02.3", "'02' has a leading zero"),
        ("1.2.3-rc1", "must be digits, got '3-rc1'"),
        (" 1.2.3", "must be digits, got ' 1'"),
        ("1..3", "must be digits, got ''"),
        (123, "expected a string like '1.2.3'"),
    ],
)
def test_each_malformed_version_is_refused_with_the_input_quoted(text, message):
    with pytest.raises(InvalidVersionError, match=message) as info:
        parse_version(text)
    assert repr(text) in str(info.value)
    assert isinstance(info.value, (LabcoreError, ValueError))


def test_zero_is_a_version_part_and_only_a_lone_zero():
    assert parse_version("0.0.0") == (0, 0, 0)
    assert parse_version("10.0.100") == (10, 0, 100)
