"""Contract: parse_version turns strict semver into a tuple that sorts correctly."""

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st


def test_parse_version_returns_int_tuple(lab):
    assert lab.parse_version("1.10.0") == (1, 10, 0)
    assert lab.parse_version("0.0.0") == (0, 0, 0)
    assert lab.parse_version("12.345.6789") == (12, 345, 6789)
    # a plain tuple passes, and so does a Version: the tuple subclass that prints as its text
    assert lab.format_version(lab.parse_version("1.10.0")) == "1.10.0" == str(lab.Version((1, 10, 0)))


def test_parse_version_orders_1_10_above_1_9(lab):
    assert lab.parse_version("1.10.0") > lab.parse_version("1.9.0")
    assert lab.parse_version("2.0.0") > lab.parse_version("1.99.99")
    assert lab.parse_version("1.0.10") > lab.parse_version("1.0.9")


def test_string_sort_is_wrong_and_semver_sort_is_right(lab):
    published = ["1.9.0", "1.10.0", "1.2.0"]
    assert max(published) == "1.9.0"  # what a string sort would route unpinned traffic to
    assert max(published, key=lab.parse_version) == "1.10.0"


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "1",
        "1.2",
        "1.2.3.4",
        "v1.2.3",
        "01.2.3",
        "1.02.3",
        "1.2.03",
        "1.2.3-rc.1",
        "1.2.3+build",
        " 1.2.3",
        "1.2.3 ",
        "a.b.c",
        "1..3",
        "-1.2.3",
        "1.2.-3",
        "\uff11.2.3",
        "1.2.3\n",
        "1,2,3",
        "+1.2.3",
    ],
)
def test_parse_version_rejects_malformed(lab, bad):
    with pytest.raises(ValueError) as info:
        lab.parse_version(bad)
    assert repr(bad) in str(info.value)


@pytest.mark.parametrize("bad", [None, 1, (1, 2, 3), b"1.2.3"])
def test_parse_version_rejects_non_strings(lab, bad):
    with pytest.raises(ValueError):
        lab.parse_version(bad)


parts = st.integers(min_value=0, max_value=10**6)
versions = st.tuples(parts, parts, parts)
ref_text = st.text(alphabet=string.ascii_letters + string.digits + ":@.-_ v0", max_size=30)


@given(versions, versions)
def test_semver_order_is_numeric_tuple_order(lab, a, b):
    parsed_a = lab.parse_version(".".join(map(str, a)))
    parsed_b = lab.parse_version(".".join(map(str, b)))
    assert parsed_a == a and parsed_b == b
    assert (parsed_a < parsed_b) == (a < b)


@given(st.one_of(st.text(max_size=30), ref_text))
def test_parse_version_parses_or_raises_value_error(lab, text):
    try:
        parsed = lab.parse_version(text)
    except ValueError:
        return
    assert ".".join(map(str, parsed)) == text  # anything accepted is canonical semver
