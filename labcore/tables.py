"""Render records as HTML tables for the book's pages (Markdown tables would show as raw pipes there).

>>> from dataclasses import dataclass
>>> @dataclass
... class Row:
...     name: str
...     size_mb: float
>>> html_table([Row("a", 1.5)], {"name": "adapter", "size_mb": "size (MiB)"})
'<table class="lc-table"><thead><tr><th>adapter</th><th>size (MiB)</th></tr></thead><tbody><tr><td>a</td><td>1.50</td></tr></tbody></table>'
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["html_table"]


def _cell(value: Any) -> str:
    if value is None:
        text = "\u2014"
    elif isinstance(value, float):
        text = f"{value:,.2f}"
    elif isinstance(value, tuple):
        text = ", ".join(map(str, value)) or "\u2014"
    else:
        text = str(value)
    return f"<td>{html.escape(text)}</td>"


def html_table(rows: Iterable[Any], columns: Mapping[str, str]) -> str:
    """Return an HTML table of ``rows`` (records or mappings): one column per key of ``columns``, headed by its value."""

    def get(row: Any, key: str) -> Any:
        return row[key] if isinstance(row, Mapping) else getattr(row, key)

    head = "".join(f"<th>{html.escape(title)}</th>" for title in columns.values())
    body = "".join("<tr>" + "".join(_cell(get(r, k)) for k in columns) + "</tr>" for r in rows)
    return f'<table class="lc-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
