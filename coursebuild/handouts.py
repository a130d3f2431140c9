"""A printable handout per session plan, and its answer key: the exercises the plan gives the room.

Each exercise is worded as its chapter words it (the ``**Exercise N.M.**`` cell, with the chapter's glued
values), with the page's cell instructions taken out: on paper, the reader writes the answer down, then
checks it where the handout says (a ``predict`` exercise on the chapter's panel, on the static site; a
``compute`` exercise in the chapter's check cell in Live, or the key). The key gives labcore's answer and,
for the likeliest wrong answers, the hint the check prints. ``book/handout_<plan>.ipynb`` and
``book/handout_<plan>_key.ipynb`` display these; both print on one page (``printable_pages``). Each exercise
carries the figures it needs from labcore (:func:`givens`), so it can be done on paper, and the handout opens
with the course site's address and its QR code when ``_config.yml`` sets one (``html: baseurl``; none printed
otherwise, see :func:`site_address`).

>>> paper_wording("What is it? Replace `None` with your number and run the cell.")
'What is it?'
"""

from __future__ import annotations

import html
import inspect
import re
from functools import cache
from pathlib import Path
from typing import Any

import nbformat
import segno
import yaml
from IPython.display import HTML, Markdown

from labcore import fleet_plan
from labcore.capacity import memory_split
from labcore.chapters import EXERCISES
from labcore.fleet import GPU_QPS
from labcore.kv_cache import kv_bytes_per_token
from labcore.links import LINKS
from labcore.model_config import exact_adapter_mb, load_model_config
from labcore.panels import PANELS
from labcore.sim.replay import single_replica_router

from .lite.notebooks import glue_values
from .myst_text import to_commonmark
from .session_plans import BOOK_DIR, Plan, load_plans
from .speaker_notes import source

__all__ = [
    "paper_wording",
    "exercise_text",
    "givens",
    "givens_text",
    "handout_markdown",
    "answer_key_markdown",
    "site_address",
    "site_card",
    "site_card_html",
    "show",
]

ROOT = Path(__file__).resolve().parent.parent
CONFIG_FILE = ROOT / "_config.yml"

#: the page's instructions for its cells, and what they say on paper
_CELL_STEPS = (
    (re.compile(r"\s*Replace `None` with your (?:number|answer|list)[^.]*? and run (?:the|its) cell\."), ""),
    (
        re.compile(
            r"Write your prediction(?: \([^)]*\))? in `prediction`(?: \([^)]*\))?,? (?:and )?run the cell[;,.]?"
            r"\s*(?:then|and then|Then)?\s*",
            re.I,
        ),
        "Write your prediction down; then ",
    ),
    (
        re.compile(r"\bthe (split |thrash |release |latency |load |onboarding )?panel above\b"),
        lambda m: f"the chapter's {m[1] or ''}panel",
    ),
    (re.compile(r"\bthe load panel's slider\b"), "the chapter's load panel"),
)
_EXERCISE = re.compile(r"\*\*Exercise (?P<label>\d+\.\d+)\.\*\*")


def paper_wording(text: str) -> str:
    """Return an exercise's wording with the page's cell steps taken out (see the module doc)."""
    for pattern, replacement in _CELL_STEPS:
        text = pattern.sub(replacement, text)
    return re.sub(r"[ \t]+\n", "\n", text).strip()


@cache
def _chapter(stem: str, book: Path) -> tuple[list[str], dict[str, str]]:

    nb = nbformat.read(book / f"{stem}.ipynb", as_version=4)
    return [source(c) for c in nb.cells if c.cell_type == "markdown"], glue_values(nb)


def _exercise(label: str) -> Any:

    return next(e for e in EXERCISES if e.label == label)


def exercise_text(label: str, *, book: Path = BOOK_DIR) -> str:
    """Return exercise ``label`` as the handout words it: the chapter's text, values filled in, cell steps out."""

    exercise = _exercise(label)
    cells, glue = _chapter(exercise.page, book)
    hits = [c for c in cells if any(m["label"] == label for m in _EXERCISE.finditer(c))]
    if len(hits) != 1:
        raise ValueError(f"exercise {label}: {len(hits)} cells of {exercise.page} hold '**Exercise {label}.**'")
    text = to_commonmark(hits[0], glue)
    label_found = _EXERCISE.search(text)
    if label_found is None:
        raise ValueError(f"exercise {label}: rendering {exercise.page}'s cell lost its '**Exercise {label}.**'")
    text = text[label_found.end() :]  # the label is the handout's own; a "## Exercises" heading goes too
    return paper_wording(" ".join(text.split()))


def _where(label: str) -> str:

    exercise = _exercise(label)
    chapter = exercise.page.split("_", 1)[0].lstrip("0")
    if exercise.kind == "predict" and exercise.tool in PANELS:
        return f"move the panel on chapter {chapter}'s page (the course site, nothing to install)"
    return f"chapter {chapter}'s exercise cell, in the Live version (replace `None`, run it), or the answer key"


def _gib(mib: float) -> str:
    return f"{mib / 1024:.1f} GiB"


def givens(label: str) -> tuple[str, ...]:
    """Return the figures exercise ``label`` needs beyond its own wording, each as the chapters print it.

    >>> givens("2.2")[:2]
    ('the H100 as its driver reports it: 79.6 GiB', "Llama-3-8B's weights in bf16: 15.0 GiB")
    """

    exercise = _exercise(label)
    kwargs, grade = dict(exercise.kwargs), exercise.grade.__name__
    replica = {k: p.default for k, p in inspect.signature(single_replica_router).parameters.items()}
    overhead = f"the LoRA overhead on every adapter request: {replica['dynamic_overhead'] * 100:g}% of the base latency"
    if grade in ("grade_fleet_bill_usd", "grade_savings_under_load_pct"):
        fleet = {k: p.default for k, p in inspect.signature(fleet_plan).parameters.items()}
        out = [
            f"one GPU sustains {GPU_QPS:g} requests/s",
            overhead.replace("of the base latency", "more GPU time"),
            "the dedicated fleet: one GPU per tenant",
        ]
        return tuple(
            out + ([f"a month is {fleet['hours_per_month']:g} hours"] if grade == "grade_fleet_bill_usd" else [])
        )
    if grade == "grade_adapters_beside_kv":
        adapter = exact_adapter_mb("llama-3-8b", 16, ["q_proj", "v_proj"])
        split = memory_split("llama-3-8b", "H100-80GB", adapter_mb=adapter)
        return (
            f"the H100 as its driver reports it: {split.gpu_gib:.1f} GiB",
            f"Llama-3-8B's weights in bf16: {split.base_gib:.1f} GiB",
            f"KV cache: {kv_bytes_per_token('llama-3-8b') / 1024:g} KiB per token",
            f"one exact r=16 q,v adapter: {adapter:.1f} MiB",
        )
    if grade == "grade_thrash_hit_pct":
        return (f"one adapter: {replica['adapter_mb']:g} MiB",)
    if grade == "grade_link_miss_ms":
        link = LINKS[kwargs["link"]]
        return (
            f"the base latency: {replica['base_latency_ms']:g} ms",
            overhead,
            f"{link.name}: {link.gb_per_s:g} GB/s (10⁹ bytes/s) and {link.overhead_ms:g} ms per copy",
            "1 MiB = 2²⁰ bytes",
        )
    if grade == "grade_slot_pool_mb":
        c = load_model_config("llama-3-8b")
        return (
            f"Llama-3-8B: {c.num_hidden_layers} layers, hidden size {c.hidden_size:,}, k and v "
            f"{c.kv_dim:,} wide, MLP {c.intermediate_size:,} wide, "
            f"vocabulary {c.vocab_size:,}",
            (
                "vLLM wraps qkv_proj (3 slices), o_proj, gate_up_proj (2 slices) and down_proj of every layer, and "
                "embed_tokens and lm_head (vocabulary to hidden size)"
            ),
            "one slot holds A (rank × input) and B (output × rank) of each, in bf16 (2 bytes)",
        )
    return ()


def givens_text(label: str) -> str:
    """Return exercise ``label``'s figures as one line of the handout (empty when its wording holds them all)."""
    figures = givens(label)
    return ("*Given:* " + "; ".join(figures) + ".") if figures else ""


def site_address(config: Path = CONFIG_FILE) -> str:
    """Return the course site's address as ``_config.yml`` sets it (``html: baseurl``), or ``""`` when it sets none."""

    raw = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
    return str((raw.get("html") or {}).get("baseurl") or "").strip()


def site_card(address: str | None = None, *, config: Path = CONFIG_FILE) -> Any:
    """Return the site's address with its QR code (SVG) for a handout or a slide, or None when no address is set.

    >>> site_card("")
    """

    address = site_address(config) if address is None else address
    if not address:
        return None
    return HTML(site_card_html(address))


def site_card_html(address: str) -> str:
    """Return the address as a link beside its QR code, an ``<img>`` of the code's SVG named by the address."""

    uri = segno.make(address, error="m").svg_data_uri(scale=4, border=2)
    shown = html.escape(address)
    return (
        f'<p class="site-card"><img src="{uri}" alt="QR code of {shown}" width="116" height="116" '
        f'style="vertical-align:middle"> The course site: <a href="{shown}">{shown}</a></p>'
    )


def handout_markdown(plan: Plan, *, book: Path = BOOK_DIR) -> str:
    """Return the handout of ``plan``: its exercises, each with the figures it needs, a line to write on and where
    to check it."""
    lines = []
    for label in plan.exercises:
        given = givens_text(label)
        lines.append(
            f"**{label}.** {exercise_text(label, book=book)}"
            + (f"\n\n{given}" if given else "")
            + f"\n\nMy answer: ________________ · *Check it:* {_where(label)}."
        )
    return "\n\n".join(lines)


def _shown(answer: Any) -> str:
    return f"{answer:g}" if isinstance(answer, float) else repr(answer)


def _verdict_text(message: str) -> str:
    return re.sub(r"^[✓✗]\s*(Correct:\s*)?", "", message).strip()


def answer_key_markdown(plan: Plan) -> str:
    """Return the answer key of ``plan``: labcore's answer to each exercise and the hints for the likeliest slips."""
    lines = []
    for label in plan.exercises:
        exercise = _exercise(label)
        right = _verdict_text(exercise.verdict(exercise.right).message)
        slips = "; ".join(f"{_shown(w)}: {_verdict_text(exercise.verdict(w).message)}" for w in exercise.wrong)
        lines.append(f"**{label}.** {right[:1].upper() + right[1:]}\n\n*Likely slips.* {slips}")
    return "\n\n".join(lines)


def show(key: str, *, answers: bool = False) -> Any:
    """Return plan ``key``'s handout (or, with ``answers``, its key) as Markdown a notebook displays."""

    plan = load_plans()[key]
    return Markdown(answer_key_markdown(plan) if answers else handout_markdown(plan))
