"""The error hierarchy and mode names that the skeleton hands to learners as given."""

import pytest

import labcore as lab

VALUE_ERRORS = [
    "BaseDigestMismatchError",
    "UnknownBaseError",
    "VersionExistsError",
    "WrongBaseError",
    "AdapterTooLargeError",
]


@pytest.mark.parametrize("name", VALUE_ERRORS)
def test_value_errors_share_the_labcore_base(name):
    error = getattr(lab, name)
    assert issubclass(error, lab.LabcoreError) and issubclass(error, ValueError)


def test_adapter_not_found_is_a_key_error():
    assert issubclass(lab.AdapterNotFoundError, lab.LabcoreError)
    assert issubclass(lab.AdapterNotFoundError, KeyError)


def test_modes_are_the_documented_strings():
    assert (lab.MODE_BASE, lab.MODE_DYNAMIC, lab.MODE_DEDICATED) == ("base", "dynamic", "dedicated")
