"""Panels for the serving simulator: customer #41 and the onboarding cliff.

>>> row = onboarding_panel().row()       # 41 tenants on a forty-adapter pool, Zipf 0.5
>>> row["p99_after_ms"] > row["p99_before_ms"]
True
"""

from __future__ import annotations

from typing import Any

from ..implementation import YOURS_COLOR, Implementation, Missing, on_your_code
from ..plots import OKABE_ITO
from ..sim import ONBOARDING, onboarding_timeline
from ._panel import Control, Lines, Panel, Series

__all__ = ["customer41_panel", "onboarding_panel", "your_simulator_panel", "your_simulator_state"]

PHASES = (
    Series("p99_after_ms", "p99 after the join", OKABE_ITO["vermillion"]),
    Series("p99_before_ms", "p99 before", OKABE_ITO["blue"], dashed=True),
    Series("p50_after_ms", "p50 after", OKABE_ITO["bluish_green"]),
)
#: Requests replayed per state: the chapters' own run (:data:`labcore.sim.ONBOARDING`), so the default state is the
#: incident chapters 5 and 8 quote (the grid's size, not the run's length, sets what the page weighs).
PANEL_REQUESTS = ONBOARDING.requests


def _phases(r: Any) -> dict[str, Any]:
    before, after = r.phases
    return {
        "p99_before_ms": before.p99_ms,
        "p99_after_ms": after.p99_ms,
        "p50_after_ms": after.p50_ms,
        "hit_before_pct": 100 * before.hit_rate,
        "hit_after_pct": 100 * after.hit_rate,
    }


def _readout(r: Any, who: str) -> str:
    return (
        f"{who}\n"
        f"p99 {r['p99_before_ms']:,.1f} ms before the join, {r['p99_after_ms']:,.1f} ms after\n"
        f"p50 after: {r['p50_after_ms']:,.0f} ms; hit rate {r['hit_before_pct']:.2f}% "
        f"\u2192 {r['hit_after_pct']:.2f}%"
    )


def customer41_panel() -> Panel:
    """Size the cache in adapters and replay customer #41 joining a forty-tenant replica (chapter 5).

    Every state is the chapters' whole run (:data:`labcore.sim.ONBOARDING`, 20,000 requests) with another pool size.
    """
    return Panel(
        "customer41_panel",
        title="Customer #41 joins: p99 before and after, by cache size",
        controls=[
            Control(
                "budget_adapters",
                "cache budget (16 MiB adapters)",
                values=tuple(range(34, 47)),
                default=ONBOARDING.pool_adapters,
            )
        ],
        compute=lambda budget_adapters: _phases(onboarding_timeline(pool_adapters=budget_adapters)),
        readout=lambda r: _readout(
            r, f"{ONBOARDING.tenants} tenants, Zipf s={ONBOARDING.zipf_s:g}, {r['budget_adapters']} adapters"
        ),
        chart=Lines("budget_adapters", PHASES, y_title="request latency (ms)", y_domain=(0, 120)),
    )


def onboarding_panel() -> Panel:
    """Onboard tenant N onto a pool of P adapters under skew s; read p99 before and after (chapter 8).

    Every state is the chapters' whole run (:data:`labcore.sim.ONBOARDING`, 20,000 requests) with other tenants, pool
    or skew; the default state is the incident itself.
    """
    return Panel(
        "onboarding_panel",
        title="Onboarding one more tenant: when does p99 jump?",
        controls=[
            Control(
                "tenants",
                "tenants after the join",
                values=(32, 34, 36, 38, 40, 41, 42, 44, 46, 48, 52, 56),
                default=ONBOARDING.tenants,
            ),
            Control(
                "pool_adapters",
                "pool size (16 MiB adapters)",
                values=(24, 32, 40, 48),
                default=ONBOARDING.pool_adapters,
            ),
            Control("zipf_s", "popularity skew s (Zipf)", values=(0.0, 0.5, 1.0), default=ONBOARDING.zipf_s),
        ],
        compute=lambda tenants, pool_adapters, zipf_s: _phases(
            onboarding_timeline(tenants, pool_adapters, zipf_s, requests=PANEL_REQUESTS)
        ),
        readout=lambda r: _readout(
            r, f"{r['tenants']} tenants, a {r['pool_adapters']}-adapter pool, Zipf s={r['zipf_s']:g}"
        ),
        chart=Lines("tenants", PHASES, y_title="request latency (ms)", y_domain=(0, 120)),
        note=f"Each state replays {PANEL_REQUESTS:,} seeded requests.",
    )


def your_simulator_state(lab: Implementation, pool_adapters: int) -> dict[str, Any]:
    """Replay customer #41 joining (:data:`labcore.sim.ONBOARDING`) through the reference's replica and ``lab``'s.

    Both replicas are built the same way, from each implementation's registry, adapters, cache and router
    (:func:`labcore.sim.single_replica_router`), and meet the same 20,000 seeded requests.

    >>> from labcore.implementation import implementation
    >>> s = your_simulator_state(implementation("reference"), 40)
    >>> s["p99_after_ms"] == s["yours_p99_after_ms"] > s["p99_before_ms"]
    True
    """
    state: dict[str, Any] = {}
    for who, code in (("", None), ("yours_", lab)):
        before, after = onboarding_timeline(pool_adapters=pool_adapters, lab=code).phases
        state |= {
            f"{who}p99_before_ms": before.p99_ms,
            f"{who}p99_after_ms": after.p99_ms,
            f"{who}hit_after_pct": 100 * after.hit_rate,
        }
    return state


def _your_readout(r: Any, lab: Implementation) -> str:
    head = (
        f"customer #41 joins a {r['pool_adapters']}-adapter pool halfway\n"
        f"reference: p99 {r['p99_before_ms']:,.1f} ms before, {r['p99_after_ms']:,.1f} ms after"
    )
    if lab.is_reference:
        return head + '\nin the live version, "mine" replays your router too'
    return (
        f"{head}\nyours: p99 {r['yours_p99_before_ms']:,.1f} ms before, {r['yours_p99_after_ms']:,.1f} ms after\n"
        f"hit rate after the join: reference {r['hit_after_pct']:.2f}%, yours {r['yours_hit_after_pct']:.2f}%"
    )


def your_simulator_panel(lab: Implementation | None = None) -> Panel | Missing:
    """Replay the customer #41 incident through ``lab``'s router and cache (a learner's ``lab/mine``), ch. 8.

    Returns the :class:`~labcore.implementation.Missing` function where the learner's code is not written yet.
    """

    def build(code: Implementation) -> Panel:
        series = [
            Series("p99_after_ms", "reference: p99 after the join", OKABE_ITO["vermillion"]),
            Series("p99_before_ms", "reference: p99 before", OKABE_ITO["blue"], dashed=True),
        ]
        if not code.is_reference:
            series.append(Series("yours_p99_after_ms", "yours: p99 after the join", YOURS_COLOR))
        return Panel(
            "your_simulator_panel",
            title="Your router in the simulator: customer #41 joins",
            controls=[
                Control(
                    "pool_adapters",
                    "cache budget (16 MiB adapters)",
                    values=tuple(range(36, 45)),
                    default=ONBOARDING.pool_adapters,
                )
            ],
            compute=lambda pool_adapters: your_simulator_state(code, pool_adapters),
            readout=lambda r: _your_readout(r, code),
            chart=Lines("pool_adapters", tuple(series), y_title="request latency (ms)", y_domain=(0, 120)),
            note="Each state replays the chapter's 20,000 seeded requests through each replica.",
            variant="" if code.is_reference else code.name,
        )

    return on_your_code(lab, build)
