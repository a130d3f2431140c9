"""Strict semantic versions: ``MAJOR.MINOR.PATCH`` parsed into a :class:`Version`, a tuple that sorts correctly.

A string sort puts ``"1.10.0"`` before ``"1.9.0"``; a router that picks "the latest" by
string would send every unpinned request to a stale adapter. Parsing first fixes that.

>>> sorted(["1.9.0", "1.10.0", "1.2.3"], key=parse_version)
['1.2.3', '1.9.0', '1.10.0']
"""

from __future__ import annotations

from .errors import InvalidVersionError

__all__ = ["Version", "parse_version", "format_version"]


class Version(tuple):  # type: ignore[type-arg]
    """A parsed version: the tuple ``(MAJOR, MINOR, PATCH)`` (so it sorts as semver) that prints as its text.

    A plain tuple of three ints is the same version (equal, same hash): ``Version((1, 10, 0))``.

    >>> v = Version((1, 10, 0))
    >>> str(v), v == (1, 10, 0), v > Version((1, 9, 0))
    ('1.10.0', True, True)
    """

    __slots__ = ()

    def __str__(self) -> str:
        """Return the canonical text, ``"MAJOR.MINOR.PATCH"`` (what :func:`format_version` gives)."""
        return format_version(self)


_DIGITS = frozenset("0123456789")


def _parse_part(part: str, text: str) -> int:
    if not part or not _DIGITS.issuperset(part):
        raise InvalidVersionError(f"invalid version {text!r}: each of MAJOR.MINOR.PATCH must be digits, got {part!r}")
    if len(part) > 1 and part[0] == "0":
        raise InvalidVersionError(f"invalid version {text!r}: {part!r} has a leading zero (semver forbids it)")
    return int(part)


def parse_version(text: str) -> Version:
    """Parse strict semver ``MAJOR.MINOR.PATCH`` into a comparable tuple of ints.

    The tuple is a :class:`Version`, which prints as its text.
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
    if not isinstance(text, str):
        raise InvalidVersionError(f"invalid version {text!r}: expected a string like '1.2.3'")
    parts = text.split(".")
    if len(parts) != 3:
        raise InvalidVersionError(f"invalid version {text!r}: expected exactly MAJOR.MINOR.PATCH, e.g. '2.1.0'")
    major, minor, patch = (_parse_part(part, text) for part in parts)
    return Version((major, minor, patch))


def format_version(version: tuple[int, int, int]) -> str:
    """Format a version tuple back into its canonical string.

    >>> format_version((2, 1, 0))
    '2.1.0'
    """
    return ".".join(str(part) for part in version)
