"""What the scenario records share: a field read by key as well as by attribute, for the chapters' glue cells."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

__all__ = ["ByName"]


class ByName:
    """Read a scenario record's fields by name too, ``ONBOARDING["seed"]``, as the chapters' glue cells do."""

    __slots__ = ()

    def __getitem__(self, name: str) -> Any:
        if name not in {f.name for f in fields(self)}:  # type: ignore[arg-type]
            raise KeyError(f"{type(self).__name__} has no field {name!r}; fields: {[f.name for f in fields(self)]}")  # type: ignore[arg-type]
        return getattr(self, name)
