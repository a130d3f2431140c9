# Generated from labcore/_validate.py by scripts/make_skeleton.py. Do not edit this copy:
# cp -r lab/skeleton lab/mine, fill in every TODO(lab), then LAB_MODULE=lab.mine pytest tests/contract

"""Argument checks shared by every labcore module, so each bad value gets the same clear message.

>>> number("rank", 16)
16.0
>>> number("budget_mb", 0)
Traceback (most recent call last):
...
ValueError: budget_mb must be a finite number > 0, got 0
>>> count("tenants", 0)
Traceback (most recent call last):
...
ValueError: tenants must be an int >= 1, got 0
"""

from __future__ import annotations

import math

__all__ = ["number", "count"]


def number(name: str, value: object, *, minimum: float = 0.0, inclusive: bool = False) -> float:
    """Return ``value`` as a float if it is a finite real above ``minimum`` (or equal, if ``inclusive``)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or value < minimum or (value == minimum and not inclusive):
        raise ValueError(f"{name} must be a finite number {'>=' if inclusive else '>'} {minimum:g}, got {value!r}")
    return float(value)


def count(name: str, value: object, *, minimum: int = 1) -> int:
    """Return ``value`` if it is an int (not a bool) of at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}")
    return value
