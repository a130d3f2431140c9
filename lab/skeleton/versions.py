# Generated from labcore/versions.py by scripts/make_skeleton.py. Do not edit this copy:
# cp -r lab/skeleton lab/mine, fill in every TODO(lab), then LAB_MODULE=lab.mine pytest tests/contract

"""Strict semantic versions: ``MAJOR.MINOR.PATCH`` parsed into a tuple that sorts correctly.

A string sort puts ``"1.10.0"`` before ``"1.9.0"``; a router that picks "the latest" by
string would send every unpinned request to a stale adapter. Parsing first fixes that.

>>> sorted(["1.9.0", "1.10.0", "1.2.3"], key=parse_version)
['1.2.3', '1.9.0', '1.10.0']
"""
from __future__ import annotations
from .errors import InvalidVersionError
__all__ = ['Version', 'parse_version', 'format_version']
Version = tuple[int, int, int]
_DIGITS = frozenset('0123456789')

def parse_version(text: str) -> Version:
    """Parse strict semver ``MAJOR.MINOR.PATCH`` into a comparable tuple of ints.

    No ``v`` prefix, no pre-release or build suffix, no leading zeros, no whitespace.

    >>> parse_version("1.10.0")
    (1, 10, 0)
    >>> parse_version("1.10.0") > parse_version("1.9.0")
    True
    >>> parse_version("v1.0.0")
    Traceback (most recent call last):
    ...
    labcore.errors.InvalidVersionError: invalid version 'v1.0.0': each of MAJOR.MINOR.PATCH must be digits, got 'v1'
    """
    raise NotImplementedError('TODO(lab): implement versions.parse_version: Parse strict semver ``MAJOR.MINOR.PATCH`` into a comparable tuple of ints.')

def format_version(version: Version) -> str:
    """Format a version tuple back into its canonical string.

    >>> format_version((2, 1, 0))
    '2.1.0'
    """
    raise NotImplementedError('TODO(lab): implement versions.format_version: Format a version tuple back into its canonical string.')
