"""The production mapping in short, for a slide: one row per labcore idea, the setting each engine uses for it.

The full records are :mod:`labcore.engines.mapping`'s; every cell here names one of them (the tests check it), so
the short table cannot say anything the records do not.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from .mapping import CELL_STYLE, ENGINES, NONE, TABLE_STYLE, EngineSetting, production_mapping

__all__ = ["summary_rows", "mapping_summary_html"]


#: The slide's short version of the mapping: one row per labcore idea, the setting that plays it in each engine
#: (a setting of :func:`production_mapping`, or ``None`` where the engine has none).
_SUMMARY: tuple[tuple[str, tuple[str | None, ...]], ...] = (
    ("adapters in a batch (slots)", ("--max-loras", "--max-loras-per-batch", None, "--max-active-adapters")),
    (
        "GPU memory for adapters",
        ("--max-lora-rank", "--max-loras-per-batch", "lora_cache_gpu_memory_fraction", "--adapter-memory-fraction"),
    ),
    (
        "host tier (chapter 9)",
        ("--max-cpu-loras", "--max-loaded-loras", "lora_cache_host_memory_bytes", "Adapter Exchange Scheduling"),
    ),
    (
        "eviction (chapter 4)",
        (
            "LRUCacheLoRAModelManager",
            "--lora-eviction-policy",
            "lora_task_id (request input)",
            "--adapter-cycle-time-s",
        ),
    ),
    (
        "registry at run time (chapter 3)",
        (
            "LoRAResolver plugins",
            "POST /load_lora_adapter, /unload_lora_adapter",
            "lora_task_id (request input)",
            "--adapter-id",
        ),
    ),
)


def summary_rows(records: Sequence[EngineSetting] | None = None) -> list[dict[str, str]]:
    """Return the mapping in short, for a slide: one row per labcore idea, one column per engine (setting, default).

    The last row is the two gaps. Every cell names a record of :func:`production_mapping` (the tests check it).

    >>> rows = summary_rows()
    >>> len(rows), rows[0]["vLLM"], rows[-1]["LoRAX"]
    (6, '--max-loras (1)', 'none')
    """
    found = {(r.engine, r.setting): r for r in (production_mapping() if records is None else records)}
    rows = []
    for idea, settings in _SUMMARY:
        row = {"labcore": idea}
        for engine, setting in zip(ENGINES, settings, strict=True):
            if setting is None:
                row[engine] = "\u2014"
                continue
            record = found[(engine, setting)]
            row[engine] = f"{record.setting} ({record.default})" if record.default else record.setting
            if not record.verified:
                row[engine] += ", unverified"
        rows.append(row)
    gaps = [r.setting for r in found.values() if r.engine == NONE]
    rows.append({"labcore": " and ".join(gaps), **{engine: "none" for engine in ENGINES}})
    return rows


def mapping_summary_html(records: Sequence[EngineSetting] | None = None) -> str:
    """Return :func:`summary_rows` as one small HTML table (six rows: fits a slide).

    >>> mapping_summary_html().count("<tr>")
    7
    """

    def cell(inner: str, tag: str = "td") -> str:
        return f'<{tag} style="{CELL_STYLE};text-align:left">{inner}</{tag}>'

    head = "".join(cell(h, "th") for h in ("labcore", *ENGINES))
    body = "".join(
        "<tr>"
        + "".join(
            cell(
                html.escape(row[k])
                if k == "labcore"
                else f"<code>{html.escape(row[k])}</code>"
                if row[k] not in ("\u2014", "none")
                else html.escape(row[k])
            )
            for k in ("labcore", *ENGINES)
        )
        + "</tr>"
        for row in summary_rows(records)
    )
    return (
        f'<table class="lc-table lc-engines-summary" style="{TABLE_STYLE}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table>"
    )
