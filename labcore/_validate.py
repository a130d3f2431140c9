"""Argument checks shared by every labcore module, so each bad value gets the same clear message.

Every message has one shape: ``<name> must be <what is valid>, got <the value>``. Each helper
returns the value when it is valid, and raises ``error`` (``ValueError`` unless the caller names a
more specific subclass, e.g. ``InvalidAdapterError``) when it is not.

>>> number("rank", 16)
16.0
>>> number("budget_mb", 0)
Traceback (most recent call last):
...
ValueError: budget_mb must be a finite number > 0, got 0
>>> count("tenants", 0)
Traceback (most recent call last):
...
ValueError: tenants must be a positive int, got 0
>>> between("p", 101, 0, 100)
Traceback (most recent call last):
...
ValueError: p must be a finite number in [0, 100], got 101
>>> text("base_model", " ")
Traceback (most recent call last):
...
ValueError: base_model must be a non-empty string, got ' '
>>> choice("engine", "tgi", ("vllm", "sglang"))
Traceback (most recent call last):
...
ValueError: engine must be one of 'vllm', 'sglang', got 'tgi'
"""

from __future__ import annotations

import math
from typing import TypeVar

__all__ = ["number", "count", "between", "fraction", "text", "flag", "instance", "choice"]

_T = TypeVar("_T")


def _is_real(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def number(
    name: str, value: object, *, minimum: float = 0.0, inclusive: bool = False, error: type[Exception] = ValueError
) -> float:
    """Return ``value`` as a float if it is a finite real above ``minimum`` (or equal, if ``inclusive``)."""
    if not _is_real(value) or value < minimum or (value == minimum and not inclusive):  # type: ignore[operator]
        raise error(f"{name} must be a finite number {'>=' if inclusive else '>'} {minimum:g}, got {value!r}")
    return float(value)  # type: ignore[arg-type]


def count(name: str, value: object, *, minimum: int = 1, error: type[Exception] = ValueError) -> int:
    """Return ``value`` if it is an int (not a bool) of at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        what = "a positive int" if minimum == 1 else f"an int >= {minimum}"
        raise error(f"{name} must be {what}, got {value!r}")
    return value


def between(
    name: str,
    value: object,
    low: float,
    high: float,
    *,
    high_inclusive: bool = True,
    error: type[Exception] = ValueError,
) -> float:
    """Return ``value`` as a float if it is a finite real in ``[low, high]`` (``[low, high)`` if not ``high_inclusive``)."""
    if not _is_real(value) or not low <= value <= high or (value == high and not high_inclusive):  # type: ignore[operator]
        raise error(
            f"{name} must be a finite number in [{low:g}, {high:g}{']' if high_inclusive else ')'}, got {value!r}"
        )
    return float(value)  # type: ignore[arg-type]


def fraction(name: str, value: object, *, high_inclusive: bool = True, error: type[Exception] = ValueError) -> float:
    """Return ``value`` as a float if it is a real in ``[0, 1]`` (``[0, 1)`` if not ``high_inclusive``).

    >>> fraction("base_share", 1.0, high_inclusive=False)
    Traceback (most recent call last):
    ...
    ValueError: base_share must be a fraction in [0, 1), got 1.0
    """
    if not _is_real(value) or not 0 <= value <= 1 or (value == 1 and not high_inclusive):  # type: ignore[operator]
        raise error(f"{name} must be a fraction in [0, 1{']' if high_inclusive else ')'}, got {value!r}")
    return float(value)  # type: ignore[arg-type]


def text(name: str, value: object, *, blank_ok: bool = False, error: type[Exception] = ValueError) -> str:
    """Return ``value`` if it is a non-empty string with something besides whitespace in it (any, if ``blank_ok``)."""
    if not isinstance(value, str) or not (value if blank_ok else value.strip()):
        raise error(f"{name} must be a non-empty string, got {value!r}")
    return value


def flag(name: str, value: object, *, error: type[Exception] = ValueError) -> bool:
    """Return ``value`` if it is ``True`` or ``False`` (not 0, 1 or None)."""
    if not isinstance(value, bool):
        raise error(f"{name} must be True or False, got {value!r}")
    return value


def instance(name: str, value: object, kind: type[_T], *, error: type[Exception] = TypeError) -> _T:
    """Return ``value`` if it is a ``kind``; otherwise raise ``TypeError`` naming the type and the value."""
    if not isinstance(value, kind):
        article = "an" if kind.__name__[:1].lower() in "aeiou" else "a"
        raise error(f"{name} must be {article} {kind.__name__}, got {type(value).__name__}: {value!r}")
    return value


def choice(name: str, value: _T, options: tuple[_T, ...] | list[_T], *, error: type[Exception] = ValueError) -> _T:
    """Return ``value`` if it is one of ``options`` (compared with ``==``, so ``1`` and ``True`` stay apart by type)."""
    if not any(type(value) is type(o) and value == o for o in options):
        raise error(f"{name} must be one of {', '.join(repr(o) for o in options)}, got {value!r}")
    return value
