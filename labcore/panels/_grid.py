"""Key a panel's grid: the digest that names a stored grid file, from a panel's controls or from a displayed spec.

>>> len(grid_key("toy_panel", [("a", [1, 2], 1)])), grid_key("p", []) != grid_key("p", [], "mine")
(16, True)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from .. import __version__

__all__ = ["grid_key", "spec_grid_key"]


def grid_key(name: str, controls: Sequence[tuple[str, Sequence[Any], Any]], variant: str = "") -> str:
    """Return the key of a grid: a digest of the panel's name, each control's (name, values, default), labcore's version,
    and the variant when there is one (a panel computed on a learner's code never takes the reference's grid).
    """
    key = {"panel": name, "labcore": __version__, "controls": [[n, list(v), d] for n, v, d in controls]}
    if variant:
        key["variant"] = variant
    text = json.dumps(key, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def spec_grid_key(spec: Mapping[str, Any]) -> str:
    """Return :func:`grid_key` of the panel a displayed spec draws (its ``usermeta``, ``params`` and ``data`` rows).

    Each control's values are the distinct values of its column, in the rows' order (the grid's).
    """
    names = list(spec["usermeta"]["controls"])
    defaults = {p["name"]: p["value"] for p in spec["params"]}
    values: dict[str, list[Any]] = {n: [] for n in names}
    for row in spec["data"]["values"]:
        for n in names:
            if row[n] not in values[n]:
                values[n].append(row[n])
    return grid_key(
        spec["usermeta"]["labcore_panel"],
        [(n, values[n], defaults[n]) for n in names],
        spec["usermeta"].get("labcore_variant", ""),
    )
