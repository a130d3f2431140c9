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
>>> one_each("adapters", ["a", "b"], 3, "arrival")
Traceback (most recent call last):
...
ValueError: adapters must be 3 long (one per arrival), got 2
>>> distinct("replica names", ["r0", "r1", "r0"])
Traceback (most recent call last):
...
ValueError: replica names must be distinct, got ['r0', 'r1', 'r0'] ('r0' repeats)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any, TypeVar, overload

__all__ = [
    "number",
    "count",
    "between",
    "fraction",
    "text",
    "flag",
    "instance",
    "choice",
    "identifier",
    "items",
    "distinct",
    "one_each",
    "function",
]

_T = TypeVar("_T")


def _is_real(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def number(
    name: str,
    value: object,
    *,
    minimum: float | None = 0.0,
    inclusive: bool = False,
    error: type[Exception] = ValueError,
) -> float:
    """Return ``value`` as a float if it is a finite real above ``minimum`` (or equal, if ``inclusive``; any, if None).

    >>> number("intercept_us", -2.5, minimum=None)
    -2.5
    >>> number("intercept_us", float("nan"), minimum=None)
    Traceback (most recent call last):
    ...
    ValueError: intercept_us must be a finite number, got nan
    """
    if minimum is None:
        if not _is_real(value):
            raise error(f"{name} must be a finite number, got {value!r}")
    elif not _is_real(value) or value < minimum or (value == minimum and not inclusive):  # type: ignore[operator]
        raise error(f"{name} must be a finite number {'>=' if inclusive else '>'} {minimum:g}, got {value!r}")
    return float(value)  # type: ignore[arg-type]


def count(
    name: str,
    value: object,
    *,
    minimum: int | None = 1,
    maximum: float | None = None,
    error: type[Exception] = ValueError,
) -> int:
    """Return ``value`` if it is an int (not a bool) of at least ``minimum`` (any, if None) and at most ``maximum``.

    >>> count("replaced_tenant", 9, maximum=8)
    Traceback (most recent call last):
    ...
    ValueError: replaced_tenant must be an int in [1, 8], got 9
    >>> count("seed", True, minimum=None)
    Traceback (most recent call last):
    ...
    ValueError: seed must be an int, got True
    """
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or (minimum is not None and value < minimum)
        or (maximum is not None and value > maximum)
    ):
        if minimum is None:
            what = "an int" if maximum is None else f"an int <= {maximum:g}"
        elif maximum is not None:
            what = f"an int in [{minimum}, {maximum:g}]"
        else:
            what = "a positive int" if minimum == 1 else f"an int >= {minimum}"
        raise error(f"{name} must be {what}, got {value!r}")
    return value


def between(
    name: str,
    value: object,
    low: float,
    high: float,
    *,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
    error: type[Exception] = ValueError,
) -> float:
    """Return ``value`` as a float if it is a finite real in ``[low, high]`` (an end left out if not ``..._inclusive``).

    >>> between("memory_gb", 0, 0, 10_000, low_inclusive=False, high_inclusive=False)
    Traceback (most recent call last):
    ...
    ValueError: memory_gb must be a finite number in (0, 10000), got 0
    """
    if (
        not _is_real(value)
        or not low <= value <= high  # type: ignore[operator]
        or (value == low and not low_inclusive)
        or (value == high and not high_inclusive)
    ):
        raise error(
            f"{name} must be a finite number in {'[' if low_inclusive else '('}{low:g}, "
            f"{high:g}{']' if high_inclusive else ')'}, got {value!r}"
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


def instance(
    name: str, value: object, kind: type[_T] | tuple[type[_T], ...], *, error: type[Exception] = TypeError
) -> _T:
    """Return ``value`` if it is a ``kind`` (or one of a tuple of kinds); otherwise raise naming the type and the value.

    >>> instance("question", "2 + 2?", (int, float))
    Traceback (most recent call last):
    ...
    TypeError: question must be an int or float, got str: '2 + 2?'
    """
    if not isinstance(value, kind):
        names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        article = "an" if names[:1].lower() in "aeiou" else "a"
        raise error(f"{name} must be {article} {names}, got {type(value).__name__}: {value!r}")
    return value


def choice(name: str, value: _T, options: tuple[_T, ...] | list[_T], *, error: type[Exception] = ValueError) -> _T:
    """Return ``value`` if it is one of ``options`` (compared with ``==``, so ``1`` and ``True`` stay apart by type)."""
    if not any(type(value) is type(o) and value == o for o in options):
        raise error(f"{name} must be one of {', '.join(repr(o) for o in options)}, got {value!r}")
    return value


def identifier(name: str, value: object, *, error: type[Exception] = ValueError) -> str:
    """Return ``value`` if it is a string that is a Python identifier (a name a reader can type after a dot).

    >>> identifier("panel name", "cache-panel")
    Traceback (most recent call last):
    ...
    ValueError: panel name must be a Python identifier, got 'cache-panel'
    """
    if not isinstance(value, str) or not value.isidentifier():
        raise error(f"{name} must be a Python identifier, got {value!r}")
    return value


@overload
def items(name: str, value: Iterable[_T], *, error: type[Exception] = ...) -> tuple[_T, ...]: ...
@overload
def items(name: str, value: object, *, error: type[Exception] = ...) -> tuple[object, ...]: ...
def items(name: str, value: object, *, error: type[Exception] = ValueError) -> tuple[object, ...]:
    """Return ``value`` as a tuple if it is an iterable other than a string (a lone name is a common slip).

    >>> items("targets", ["q_proj", "v_proj"])
    ('q_proj', 'v_proj')
    >>> items("targets", "q_proj")
    Traceback (most recent call last):
    ...
    ValueError: targets must be a list or tuple, got the string 'q_proj' (write ('q_proj',))
    """
    if isinstance(value, (str, bytes)):
        raise error(f"{name} must be a list or tuple, got the string {value!r} (write ({value!r},))")
    if not isinstance(value, Iterable):
        raise error(f"{name} must be a list or tuple, got {type(value).__name__}: {value!r}")
    return tuple(value)


def distinct(
    name: str, values: Iterable[_T], *, nonempty: bool = False, error: type[Exception] = ValueError
) -> tuple[_T, ...]:
    """Return ``values`` as a tuple if no two are equal (and, if ``nonempty``, there is at least one).

    >>> distinct("pinned adapters", [], nonempty=True)
    Traceback (most recent call last):
    ...
    ValueError: pinned adapters must be one or more distinct values, got []
    """
    found = tuple(values)
    seen: list[_T] = []
    repeats: list[_T] = []
    for v in found:
        (repeats if v in seen else seen).append(v)
    if repeats or (nonempty and not found):
        what = "one or more distinct values" if nonempty else "distinct"
        said = f" ({repeats[0]!r} repeats)" if repeats else ""
        raise error(f"{name} must be {what}, got {list(found)!r}{said}")
    return found


def one_each(
    name: str, values: Iterable[_T], n: int, each: str, *, empty_ok: bool = False, error: type[Exception] = ValueError
) -> tuple[_T, ...]:
    """Return ``values`` as a tuple if it holds ``n`` items, one per ``each`` (or none, if ``empty_ok``).

    >>> one_each("tenant_index", [], 4, "ref", empty_ok=True)
    ()
    >>> one_each("tenant_index", [0, 1], 4, "ref", empty_ok=True)
    Traceback (most recent call last):
    ...
    ValueError: tenant_index must be 4 long (one per ref) or empty, got 2
    """
    found = tuple(values)
    if len(found) != n and not (empty_ok and not found):
        raise error(f"{name} must be {n} long (one per {each}){' or empty' if empty_ok else ''}, got {len(found)}")
    return found


def function(
    name: str, value: object, *, prefix: str = "", suffix: str = "", error: type[Exception] = ValueError
) -> Callable[..., Any]:
    """Return ``value`` if it is a function named ``<prefix><thing><suffix>`` (how labcore finds its factories).

    >>> function("quiz", len, suffix="_quiz")
    Traceback (most recent call last):
    ...
    ValueError: quiz must be a function named <thing>_quiz, got <built-in function len>
    """
    found = getattr(value, "__name__", None)
    if not callable(value) or not isinstance(found, str) or not (found.startswith(prefix) and found.endswith(suffix)):
        raise error(f"{name} must be a function named {prefix}<thing>{suffix}, got {value!r}")
    return value
