"""Stable hashes: the same number for the same text in every process, machine and run.

Python's ``hash`` of a string is salted per process, so a placement or a traffic split built on it
would move every tenant and every user on every restart. :func:`stable_hash` uses BLAKE2b instead;
:func:`unit_hash` maps a text to a stable point in [0, 1). Tenant-affinity routing
(:mod:`labcore.affinity`) ranks replicas with it, and a canary split (:mod:`labcore.canary`) keeps
each user on one version with it.

>>> stable_hash("support-bot@1.10.0")
1899379113891907471
"""

from __future__ import annotations

import hashlib

from ._validate import instance

__all__ = ["stable_hash", "unit_hash"]


def stable_hash(text: str, *, salt: str = "") -> int:
    """Return a 64-bit hash of ``text`` that is the same in every process, machine and run.

    >>> stable_hash("support-bot@1.10.0") == stable_hash("support-bot@1.10.0")
    True
    >>> stable_hash("a", salt="x") != stable_hash("a", salt="y")
    True
    """
    instance("stable_hash's text", text, str)
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8, person=salt.encode("utf-8")[:16].ljust(16, b"\0"))
    return int.from_bytes(digest.digest(), "big")


def unit_hash(text: str, *, salt: str = "") -> float:
    """Map ``text`` to a stable number in [0, 1), uniform over many distinct texts.

    >>> 0.0 <= unit_hash("request-42") < 1.0
    True
    """
    return stable_hash(text, salt=salt) / 2.0**64
