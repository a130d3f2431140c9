"""Choose the implementation a chapter runs on: the reference (``labcore``) or the learner's own (``lab.mine``).

The chapters whose mechanism the learner writes (the registry, the cache, the router, the fleet plan
and the serving simulator) open with one visible switch, ``lab = implementation("reference")``. In
the live site (or a clone), ``implementation("mine")`` imports the learner's ``lab/mine`` afresh, and
the chapter's "on your code" figures and panels build their registries, caches and routers from it,
next to the reference's. Where the learner has not written a function yet, the computation stops at
its ``TODO(lab)``: :func:`run_on` catches that and returns a :class:`Missing` that names the function,
which the chapter shows instead of failing.

>>> lab = implementation("reference")
>>> lab.is_reference, str(lab), lab.get("AdapterCache").__name__
(True, 'the reference implementation (labcore)', 'AdapterCache')
>>> implementation("yours")
Traceback (most recent call last):
...
ValueError: implementation must be one of 'reference', 'mine', got 'yours'
"""

from __future__ import annotations

import html
import importlib
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ._validate import choice
from .contract import contract_root
from .site import LAB_MINE

__all__ = [
    "CHOICES",
    "Implementation",
    "Missing",
    "implementation",
    "run_on",
    "missing_function",
    "on_your_code",
    "YOURS_COLOR",
]

#: What the switch accepts, and the module each one imports.
CHOICES: dict[str, str] = {"reference": "labcore", "mine": LAB_MINE.replace("/", ".")}
#: The colour of "your code" in every comparison (the course palette's blue; the reference keeps its own colours).
YOURS_COLOR = "#0072B2"
_TODO = re.compile(r"TODO\(lab\): implement (?P<function>[\w.]+): ?(?P<what>.*)", re.S)


@dataclass(frozen=True, slots=True)
class Implementation:
    """One implementation of the lab's contract: which the switch chose, and the module it imported."""

    name: str
    module: ModuleType

    @property
    def is_reference(self) -> bool:
        """Tell whether this is labcore itself."""
        return self.name == "reference"

    def get(self, attribute: str) -> Any:
        """Return one name of the contract (``"AdapterCache"``, ``"fleet_plan"``...) from this implementation."""
        try:
            return getattr(self.module, attribute)
        except AttributeError:
            raise AttributeError(
                f"{self} has no {attribute!r}: lab/mine/__init__.py must export it, as the skeleton's does"
            ) from None

    def __str__(self) -> str:
        return "the reference implementation (labcore)" if self.is_reference else f"your {LAB_MINE}"

    def _repr_markdown_(self) -> str:
        if self.is_reference:
            return (
                "This chapter runs on **the reference implementation** (`labcore`). In the live version, "
                '`implementation("mine")` runs its "on your code" figures on your `lab/mine` as well.'
            )
        return f'This chapter\'s "on your code" figures run on **your `{LAB_MINE}`**, next to the reference.'


@dataclass(frozen=True, slots=True)
class Missing:
    """What a chapter shows where the learner's code stops at a ``TODO(lab)``: the function still to write."""

    function: str
    what: str

    def __str__(self) -> str:
        module = self.function.split(".")[0]
        return (
            f"Your {LAB_MINE} has no {self.function} yet (it still raises its TODO(lab)): write it in "
            f"{LAB_MINE}/{module}.py, save, and run this cell again. Until then this shows the reference only."
        )

    def _repr_markdown_(self) -> str:
        module = self.function.split(".")[0]
        return (
            f"**Not yet on your code:** your `{LAB_MINE}` has no `{self.function}` yet (it still raises its "
            f"`TODO(lab)`: {html.escape(self.what)}). Write it in `{LAB_MINE}/{module}.py`, save, and run this "
            "cell again."
        )


def implementation(name: str = "reference", *, root: Any = None) -> Implementation:
    """Return the implementation the switch names: ``"reference"`` (labcore) or ``"mine"`` (``lab/mine``, read afresh).

    ``root`` is the folder holding ``lab/`` (default: found from the working directory, as the contract runner does).
    """
    choice("implementation", name, tuple(CHOICES))
    if name == "reference":
        return Implementation(name, importlib.import_module(CHOICES[name]))
    folder = contract_root(root)
    if not (folder / LAB_MINE / "__init__.py").is_file():
        raise FileNotFoundError(
            f"there is no {LAB_MINE} in {folder} yet: open the lab notebook (do_the_lab.ipynb) "
            "once, it makes your copy from the skeleton"
        )
    package = CHOICES[name].split(".")[0]
    for loaded in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        del sys.modules[loaded]  # the learner's files as saved now, not as first imported
    importlib.invalidate_caches()
    sys.path.insert(0, str(folder))
    try:
        return Implementation(name, importlib.import_module(CHOICES[name]))
    finally:
        sys.path.remove(str(folder))


def missing_function(error: BaseException) -> Missing | None:
    """Return the :class:`Missing` a learner's ``TODO(lab)`` error names, or None for any other error.

    >>> missing_function(NotImplementedError("TODO(lab): implement cache.AdapterCache.access: Make it resident."))
    Missing(function='cache.AdapterCache.access', what='Make it resident.')
    """
    found = _TODO.search(str(error)) if isinstance(error, NotImplementedError) else None
    return Missing(found["function"], found["what"].strip()) if found else None


def run_on(lab: Implementation, compute: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Return ``compute(lab, *args, **kwargs)``, or the :class:`Missing` function where the learner's code stops.

    Any other error is the learner's to see, with its traceback, and is raised as it is.
    """
    try:
        return compute(lab, *args, **kwargs)
    except NotImplementedError as error:
        missing = missing_function(error)
        if missing is None:
            raise
        return missing


def on_your_code(lab: Implementation | None, build: Callable[[Implementation], Any]) -> Any:
    """Build a comparison on ``lab`` (the reference when None): the comparison, or :class:`Missing`.

    ``build(lab)`` returns a panel (or anything with ``rows()``). On a learner's code its rows are computed now,
    so a ``TODO(lab)`` they meet becomes the :class:`Missing` the chapter shows instead of an error; the
    reference has no ``TODO``, so its rows wait until something asks for them.
    """
    code = lab if lab is not None else implementation("reference")
    if code.is_reference:
        return build(code)

    def built(code: Implementation) -> Any:
        shown = build(code)
        shown.rows()
        return shown

    return run_on(code, built)
