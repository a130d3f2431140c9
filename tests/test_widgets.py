"""Tests for labcore.widgets: the two generic builders, every registered panel, and the missing-dependency path."""

from __future__ import annotations

import builtins
import io
import re

import matplotlib

matplotlib.use("Agg")

import pytest

ipywidgets = pytest.importorskip("ipywidgets")

from PIL import Image  # noqa: E402

from labcore import widgets  # noqa: E402
from labcore.widgets import PANELS, Control, Panel, Unavailable, live_panel, static_panel  # noqa: E402

# A slider label ends in "(unit)", or starts with the noun it counts (a count needs no unit).
COUNT_PREFIXES = ("tenants", "layers", "rank r", "LoRA rank r", "target modules", "bytes per parameter")


@pytest.fixture(scope="module")
def panels() -> dict[str, Panel]:
    return {name: factory() for name, factory in PANELS.items()}


def _classes(widget) -> set[str]:
    return set(widget._dom_classes)


def _png_size(png: bytes) -> tuple[int, int]:
    return Image.open(io.BytesIO(png)).size


# ---------------------------------------------------------------------------- Control


def test_control_kinds_and_values():
    assert Control("n", "tenants", default=3, min=1, max=5, step=2).values() == (1, 3, 5)
    assert Control("p", "price (USD/hour)", default=1.0, min=0.5, max=1.5, step=0.5).kind == "float"
    assert Control("r", "rank r", default=8, options=(4, 8)).values() == (4, 8)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"default": 3, "options": (1, 2)}, "default 3 is not one of"),
        ({"default": 9, "min": 1, "max": 5, "step": 1}, "outside"),
        ({"default": 1, "min": 1}, "give min, max and step"),
    ],
)
def test_control_rejects_bad_specs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Control("x", "x", **kwargs)


def test_control_name_must_be_a_keyword():
    with pytest.raises(ValueError, match="identifier"):
        Control("bytes per param", "b", default=2, options=(2,))


# ---------------------------------------------------------------------------- the registry and the DOM contract


def test_registry_holds_every_factory_of_chapters_1_and_2():
    assert {"fleet_headline_panel", "economics_panel", "rank_headline_panel", "vram_panel",
            "gpu_split_panel"} <= set(PANELS)
    for name, factory in PANELS.items():
        assert getattr(widgets, name) is factory


@pytest.mark.parametrize("name", sorted(PANELS))
def test_every_panel_builds_alone_and_carries_lc_panel(panels, name):
    panel = panels[name]
    assert isinstance(panel, Panel) and panel.name == name
    assert "lc-panel" in _classes(panel.widget)
    assert panel.result is not None and panel.readout and panel.png.startswith(b"\x89PNG")
    assert panel.values() == panel.defaults
    bundle = panel._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle


@pytest.mark.parametrize("name", sorted(PANELS))
def test_every_slider_label_has_a_unit_or_is_a_count(panels, name):
    for key, control in panels[name].controls.items():
        assert control.description == "", "labels live in an HTML widget (MathJax 2 typesetting breaks on MathJax 3 pages)"
        label = control.tooltip
        assert label.startswith(COUNT_PREFIXES) or re.search(r"\(\S.*\)$", label), f"{name}.{key}: no unit in {label!r}"


STATIC = sorted(name for name, kind in widgets.PANEL_KINDS.items() if kind == "static")
LIVE = sorted(name for name, kind in widgets.PANEL_KINDS.items() if kind == "live")


def _static(panels, name):
    panel = panels[name]
    assert panel.kind == "static"
    return panel


def test_every_panel_has_a_kind_and_there_are_both():
    assert sorted(STATIC + LIVE) == sorted(PANELS) and STATIC and LIVE


@pytest.mark.parametrize("name", STATIC)
def test_static_panel_dom_contract(panels, name):
    panel = _static(panels, name)
    assert {"lc-panel", "lc-static"} <= _classes(panel.widget)
    (slider,) = panel.controls.values()
    assert "lc-headline" in _classes(slider)
    stack = panel.widget.children[-1]
    assert isinstance(stack, ipywidgets.Stack)
    assert len(stack.children) == len(slider.options) <= 12
    images = [page.children[0] for page in stack.children]
    assert all(isinstance(img, ipywidgets.Image) and "lc-figure" in _classes(img) for img in images)
    first_seen: dict[bytes, object] = {}
    same = [(first_seen.setdefault(img.value, opt), opt) for img, opt in zip(images, slider.options)
            if first_seen.get(img.value, opt) != opt]
    assert not same, f"{name}: these headline positions draw the same figure (a reader sees no change): {same}"
    assert (panel.link.source, panel.link.target) == ((slider, "index"), (stack, "selected_index"))
    assert stack.selected_index == slider.index


@pytest.mark.parametrize("name", STATIC)
def test_static_panel_states_stay_small(panels, name):
    stack = _static(panels, name).widget.children[-1]
    sizes = [len(page.children[0].value) for page in stack.children]
    assert max(sizes) < 15_000, sizes
    assert _png_size(stack.children[0].children[0].value) == (512, 288)  # 6.4 x 3.6 in at 80 dpi


@pytest.mark.parametrize("name", STATIC)
def test_static_panel_moves_figure_and_readout_in_the_kernel(panels, name):
    panel = _static(panels, name)
    (key, slider), = panel.controls.items()
    stack = panel.widget.children[-1]
    first, last = slider.options[0], slider.options[-1]
    panel.set(**{key: first})
    png, readout = panel.png, panel.readout
    assert stack.selected_index == 0
    panel.set(**{key: last})
    assert stack.selected_index == len(slider.options) - 1
    assert panel.png != png and panel.readout != readout
    assert panel.png == stack.children[-1].children[0].value
    assert panel.reset() == panel.result and panel.values() == panel.defaults


@pytest.mark.parametrize("name", LIVE)
def test_live_panel_redraws_on_every_control(panels, name):
    panel = panels[name]
    panel.update_ms.clear()
    assert panel.kind == "live"
    assert "lc-live" in _classes(panel.widget)
    image = next(c for c in panel.widget.children if isinstance(c, ipywidgets.Image))
    for key, control in panel.controls.items():
        options = getattr(control, "options", None)
        lo, hi = (options[0], options[-1]) if options else (control.min, control.max)
        other = hi if control.value != hi else lo  # the far end of the slider
        before = panel.result
        panel.set(**{key: other})
        assert panel.result != before, f"{name}: moving {key} changed nothing"
        assert image.value == panel.png
        panel.reset()
    assert len(panel.update_ms) >= 2 * len(panel.controls)


def test_live_panel_results_match_the_core():
    from labcore import adapter_vram_mb, fleet_plan, gpu_memory_split, tenant_adapters

    vram = PANELS["vram_panel"]()
    assert vram.set(rank=32, hidden=8192, layers=80, targets=4).vram_mb == adapter_vram_mb(32, 8192, 80, 4) == 320.0
    econ = PANELS["economics_panel"]()
    assert econ.result == fleet_plan(tenant_adapters(40))
    split = PANELS["gpu_split_panel"]()
    assert split.result == gpu_memory_split(80, base_vram_gb=16, kv_cache_gb=24, adapter_vram_mb=16.0)


def test_gpu_split_panel_clamps_instead_of_raising():
    split = PANELS["gpu_split_panel"]()
    result = split.set(gpu_vram_gb=24, base_vram_gb=20, kv_cache_gb=30)
    assert result.adapter_pool_mb == 0 and result.adapters_that_fit == 0


def test_set_rejects_unknown_control():
    panel = PANELS["vram_panel"]()
    with pytest.raises(KeyError, match="no control.*'alpha'"):
        panel.set(alpha=8)


# ---------------------------------------------------------------------------- the generic builders


def _square(side):
    return {"side": side, "area": side * side}


def _plot(result, ax):
    ax.bar(["area"], [result["area"]])
    return ax.figure


def test_generic_live_panel_wires_compute_plot_readout():
    panel = live_panel("demo", controls=[Control("side", "side (m)", default=2, min=1, max=4, step=1)],
                       compute=_square, plot=_plot, readout=lambda r: f"{r['area']} m²", title="Area")
    assert panel.readout == "4 m²"
    assert panel.set(side=3) == {"side": 3, "area": 9} and panel.readout == "9 m²"
    assert isinstance(panel.widget.children[0], ipywidgets.HTML)  # the title


def test_generic_static_panel_needs_options():
    with pytest.raises(ValueError, match="explicit options"):
        static_panel("demo", control=Control("side", "side (m)", default=2, min=1, max=4, step=1),
                     compute=_square, plot=_plot, readout=str)


def test_render_png_does_not_leak_pyplot_figures():
    import matplotlib.pyplot as plt

    plt.close("all")
    widgets.render_png(_plot, _square(2))
    widgets.render_png(_plot, _square(2), colors=16)
    assert plt.get_fignums() == []


def test_factory_without_ipywidgets_returns_a_message(monkeypatch):
    real_import = builtins.__import__

    def no_ipywidgets(name, *args, **kwargs):
        if name == "ipywidgets" or name.startswith("ipywidgets."):
            raise ImportError("No module named 'ipywidgets'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ipywidgets)
    for factory in PANELS.values():
        out = factory()
        assert isinstance(out, Unavailable) and not out
        assert "needs ipywidgets" in repr(out) and "pip install" in repr(out)
        assert "lc-unavailable" in out._repr_html_()


def test_a_factory_must_build_the_kind_its_name_promises():
    def wrong_headline_panel():
        return live_panel("wrong_headline_panel", controls=[Control("n", "tenants", default=1, min=1, max=2, step=1)],
                          compute=lambda n: n, plot=lambda r, ax: ax.figure, readout=str)

    guarded = widgets.register_panel(wrong_headline_panel)
    try:
        with pytest.raises(TypeError, match="wrong_headline_panel built a live panel"):
            guarded()
    finally:
        del widgets.PANELS["wrong_headline_panel"], widgets.PANEL_KINDS["wrong_headline_panel"]
