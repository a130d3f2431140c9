"""Tests for labcore.panels._panel: controls, the grid, and the Vega-Lite spec every panel draws from."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import pytest

from labcore.panels import show
from labcore.panels._grid import spec_grid_key
from labcore.panels._panel import READOUT, VEGALITE_MIME, Control, Lines, Panel, Series
from labcore.site import GRIDS_ENV, grid_path


def _toy(**overrides):
    options = dict(
        title="toy",
        controls=[
            Control("a", "a (units)", values=(1, 2, 3), default=2),
            Control("mode", "mode", values=("x", "y"), default="y"),
        ],
        compute=lambda a, mode: {"double": 2 * a, "tag": f"{mode}{a}"},
        readout=lambda r: f"a={r['a']} gives {r['double']}",
        chart=Lines("a", (Series("double", "twice a", "#000000"),), y_title="value"),
    )
    options.update(overrides)
    return Panel("toy_panel", **options)


def test_control_kind_follows_its_values():
    assert Control("r", "r", values=(1, 2, 4), default=2).kind == "select"  # uneven: a dropdown
    ranged = Control("b", "b (MiB)", values=(64, 128, 192, 256), default=128)
    assert (ranged.kind, ranged.step) == ("range", 64)
    assert ranged.binding() == {"input": "range", "min": 64, "max": 256, "step": 64, "name": "b (MiB) "}
    labelled = Control("g", "GPU", values=(24, 80), default=80, labels=("L4", "H100"))
    assert labelled.binding()["labels"] == ["L4", "H100"]


@pytest.mark.parametrize(
    "bad, match",
    [
        (dict(name="not an id"), "identifier"),
        (dict(values=()), "must be one or more distinct values, got \\[\\]"),
        (dict(values=(1, 1, 2)), "repeat"),
        (dict(default=9), "not one of"),
        (dict(labels=("one",)), "labels for"),
    ],
)
def test_control_rejects_bad_definitions_naming_the_value(bad, match):
    args = dict(name="c", label="c", values=(1, 2), default=1) | bad
    with pytest.raises(ValueError, match=match):
        Control(**args)


def test_rows_cover_the_grid_with_labcore_results_and_readouts():
    panel = _toy()
    rows = panel.rows()
    assert len(rows) == 6
    assert rows[0] == {"a": 1, "mode": "x", "double": 2, "tag": "x1", READOUT: "a=1 gives 2"}
    assert (
        panel.lookup(a=3) == panel.row(a=3) == {"a": 3, "mode": "y", "double": 6, "tag": "y3", READOUT: "a=3 gives 6"}
    )
    assert panel.row(a=10)["double"] == 20  # off the grid: computed on demand
    with pytest.raises(KeyError, match="not a state of the grid"):
        panel.lookup(a=10)
    with pytest.raises(KeyError, match="no control"):
        panel.row(b=1)


def test_panel_rejects_a_grid_too_big_for_a_page_and_a_chart_off_its_controls():
    with pytest.raises(ValueError, match="exceed"):
        _toy(
            controls=[
                Control("a", "a", values=tuple(range(100)), default=0),
                Control("mode", "m", values=tuple(range(100)), default=0),
            ]
        )
    with pytest.raises(ValueError, match="is not a control"):
        _toy(chart=Lines("zzz", (Series("double", "d", "#000"),), y_title="v"))


def test_compute_may_not_shadow_a_control_or_return_non_finite_numbers():
    with pytest.raises(ValueError, match="control names"):
        _toy(compute=lambda a, mode: {"a": a}).rows()
    with pytest.raises(ValueError, match="finite"):
        _toy(compute=lambda a, mode: {"double": float("nan")}).rows()


def test_spec_binds_every_control_and_filters_the_current_state():
    spec = _toy().spec()
    assert [p["name"] for p in spec["params"]] == ["a", "mode"]
    assert [p["value"] for p in spec["params"]] == [2, "y"]
    assert spec["data"]["values"] == _toy().rows()
    readout = spec["vconcat"][1]
    assert readout["transform"] == [{"filter": "abs(datum.a - a) < 1e-9 && datum.mode == mode"}]
    assert readout["encoding"]["text"]["field"] == READOUT
    json.dumps(spec, allow_nan=False)  # the page embeds it as strict JSON


def test_display_bundle_is_the_vegalite_v5_mimetype():
    bundle = _toy()._repr_mimebundle_()
    assert set(bundle) == {VEGALITE_MIME, "text/plain"}
    assert bundle[VEGALITE_MIME]["$schema"].endswith("vega-lite/v5.json")


def _grid_file(folder, panel, rows):
    key = panel.grid_key()
    (folder / f"{key}.json").write_text(json.dumps({"panel": panel.name, "key": key, "rows": rows or panel.rows()}))


def test_rows_come_from_a_grid_file_only_when_it_is_the_panels(tmp_path, monkeypatch):
    """A grid file under $LABCORE_PANEL_GRIDS stands in for the computation only when its key and default row match."""
    calls = []
    toy = _toy(compute=lambda a, mode: calls.append((a, mode)) or {"double": 2 * a, "tag": f"{mode}{a}"})
    rows = _toy().rows()
    assert (
        toy.grid_key()
        == _toy().grid_key()
        != _toy(
            controls=[Control("a", "a", values=(1, 2), default=2), Control("mode", "m", values=("x", "y"), default="y")]
        ).grid_key()
    )
    monkeypatch.setenv("LABCORE_PANEL_GRIDS", str(tmp_path))
    assert toy.stored_rows() is None  # no file: computed
    _grid_file(tmp_path, toy, rows)
    assert toy.rows() == rows and calls == [(2, "y")]  # only the default state, the guard against a stale file
    stale = [dict(r, double=r["double"] + 1) if (r["a"], r["mode"]) == (2, "y") else r for r in rows]
    _grid_file(tmp_path, toy, stale)
    assert _toy().stored_rows() is None
    wrong_order = rows[::-1]
    _grid_file(tmp_path, toy, wrong_order)
    assert _toy().stored_rows() is None
    (tmp_path / f"{toy.grid_key()}.json").write_text("{not json")
    assert _toy().stored_rows() is None
    (tmp_path / f"{toy.grid_key()}.json").write_text(json.dumps({"key": "0" * 16, "rows": rows}))  # another key inside
    assert _toy().stored_rows() is None


def test_the_grid_key_of_a_displayed_spec_is_the_panels():

    assert spec_grid_key(_toy().spec()) == _toy().grid_key()
    assert (
        spec_grid_key(
            _toy(
                controls=[
                    Control("a", "a", values=(1, 2, 3), default=3),
                    Control("mode", "m", values=("x", "y"), default="y"),
                ]
            ).spec()
        )
        != _toy().grid_key()
    )


def test_a_value_the_room_proposes_becomes_the_panels_state_and_leaves_the_original_alone() -> None:

    original = show("fleet_savings_panel")
    before = [c.values for c in original.controls]
    room = original.including(tenants=41, tenant_qps=1.2)
    spec = room.spec()
    assert {p["name"]: p["value"] for p in spec["params"]}["tenants"] == 41
    shown = [
        r
        for r in spec["data"]["values"]
        if r["tenants"] == 41
        and r["tenant_qps"] == 1.2
        and r["gpu_hourly_usd"] == room.defaults()["gpu_hourly_usd"]
        and r["adapter_vram_mb"] == room.defaults()["adapter_vram_mb"]
    ]
    assert [r[READOUT] for r in shown] == [original.row(tenants=41, tenant_qps=1.2)[READOUT]]
    assert [c.values for c in original.controls] == before and 41 not in before[0]
    with pytest.raises(KeyError, match="no control"):
        original.including(tenant=41)


def test_a_value_the_room_proposes_computes_only_its_new_states(tmp_path, monkeypatch) -> None:
    """The room's copy reads its source's grid (the book build's file in the Live site) and computes only the states
    the new value adds: chapter 1's panel at 41 tenants computes 144 rows, not its 3,024."""

    original = show("fleet_savings_panel")
    (tmp_path / "x").mkdir()
    Path(grid_path(str(tmp_path / "x"), original.grid_key())).write_text(
        json.dumps({"key": original.grid_key(), "rows": original.rows()}), encoding="utf-8"
    )
    monkeypatch.setenv(GRIDS_ENV, str(tmp_path / "x"))
    source, calls = show("fleet_savings_panel"), []
    compute = source.compute
    source.compute = lambda **state: calls.append(state) or compute(**state)
    room = source.including(tenants=41)
    rows = room.rows()
    others = [c for c in original.controls if c.name != "tenants"]
    assert len(calls) == 1 + math.prod(len(c.values) for c in others)  # the stored file's check, then the new states
    assert {c["tenants"] for c in calls[1:]} == {41}
    assert rows == [
        show("fleet_savings_panel").row(**dict(zip([c.name for c in room.controls], combo, strict=True)))
        for combo in itertools.product(*(c.values for c in room.controls))
    ]
