"""Build the course's slider panels: one generic live builder, one generic static builder, one factory per panel.

A panel wires sliders to three plain functions and nothing else:

- ``compute(**values) -> result``: calls labcore (the logic lives there, not here);
- ``plot(result, ax) -> Figure``: a ``labcore.plots.plot_*`` function;
- ``readout(result) -> str``: one line of HTML stating the number the reader should notice.

``live_panel`` recomputes and redraws on every slider move (it needs a kernel). ``static_panel``
pre-renders one PNG per position of a single headline slider into an ``ipywidgets.Stack`` and
links the slider's index to the stack's ``selected_index`` with ``jslink``, so the slider still
works on a static HTML page with no kernel. Both return a :class:`Panel`, which displays as its
widget and offers ``set(**values) -> result``, ``reset()``, ``controls``, ``result`` and ``readout``
for the hidden check cells and the benchmark.

ipywidgets and matplotlib are imported lazily: without them a factory returns an
:class:`Unavailable` whose repr says what to install, instead of raising.

Every factory is registered in :data:`PANELS` (``@register_panel``), which the benchmark
(``benchmarks/bench_panels.py``) and the tests iterate over.

Speed budget (<= 100 ms per live update): matplotlib 3.11 lays out text glyph by glyph, so a
redraw costs roughly one millisecond or more per text object. Keep figures to a short title, axis
labels and a few explicit ticks; put sentences in the HTML readout. Slow computations (simulations)
belong in a static panel (pre-rendered once) or behind a memo keyed on the slider values.

>>> {'economics_panel', 'fleet_headline_panel'} <= set(PANELS)
True
"""

from __future__ import annotations

import html
import io
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .affinity import affinity_runs
from .batching import BreakEvenView, break_even_view, fit_sgmv
from .canary import canary_log
from .sim import (ADMISSION_POOLS, CUSTOMER41_JOIN_MS, ONBOARDING, ONBOARDING_TENANTS, SPILL, SPILL_TENANTS, CacheRun,
                  ReleaseTimeline, admission_runs, cache_runs, customer41_run, onboarding_runs, onboarding_timeline,
                  release_timeline, route_examples, spill_runs)

__all__ = [
    "Control",
    "Panel",
    "Unavailable",
    "PANELS",
    "PANEL_KINDS",
    "register_panel",
    "live_panel",
    "static_panel",
    "render_png",
    "fleet_headline_panel",
    "economics_panel",
    "rank_headline_panel",
    "vram_panel",
    "gpu_split_panel",
]

FIGSIZE_IN: tuple[float, float] = (6.4, 3.6)
PNG_DPI = 80  # small pre-rendered states keep the static pages light
STATIC_COLORS = 32  # palette size of pre-rendered PNGs
FIG_MARGINS = {"left": 0.13, "right": 0.97, "top": 0.88, "bottom": 0.17}


# --------------------------------------------------------------------------- the generic parts


@dataclass(frozen=True, slots=True)
class Control:
    """Describe one slider: the keyword it feeds, a label with its unit, and its range or options.

    Give ``min``/``max``/``step`` for a numeric slider (ints make an ``IntSlider``), or ``options``
    for a slider over listed values (a ``SelectionSlider``). ``default`` is the value the prose uses.

    >>> Control("rank", "rank r", default=16, options=(4, 8, 16, 32)).kind
    'select'
    >>> Control("rank", "rank r", default=16, min=1, max=64, step=1).kind
    'int'
    """

    name: str
    label: str
    default: Any
    min: float | None = None
    max: float | None = None
    step: float | None = None
    options: tuple[Any, ...] = ()
    kind: str = field(init=False)

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise ValueError(f"control name must be a Python identifier, got {self.name!r}")
        if self.options:
            if self.default not in self.options:
                raise ValueError(f"control {self.name!r}: default {self.default!r} is not one of {self.options!r}")
            kind = "select"
        else:
            if None in (self.min, self.max, self.step):
                raise ValueError(f"control {self.name!r}: give min, max and step, or options")
            if not self.min <= self.default <= self.max:  # type: ignore[operator]
                raise ValueError(
                    f"control {self.name!r}: default {self.default!r} is outside [{self.min}, {self.max}]"
                )
            numbers = (self.min, self.max, self.step, self.default)
            kind = "int" if all(isinstance(v, int) and not isinstance(v, bool) for v in numbers) else "float"
        object.__setattr__(self, "kind", kind)

    def values(self) -> tuple[Any, ...]:
        """Return every value the slider can take (its options, or its range by step)."""
        if self.options:
            return self.options
        out, v, i = [], self.min, 0
        while v <= self.max + 1e-9:  # type: ignore[operator]
            out.append(v)
            i += 1
            v = self.min + i * self.step  # type: ignore[operator]
        return tuple(out)

    def build(self) -> tuple[Any, Any]:
        """Create ``(row, slider)``: the ipywidgets slider and a row holding its label and the slider.

        The label is a separate ``HTML`` widget, not the slider's ``description``: ipywidgets typesets
        descriptions with the MathJax 2 API, which raises on pages that load MathJax 3 (any chapter with
        maths). The label text is also kept as the slider's ``tooltip``.
        """
        import ipywidgets as w

        if self.kind == "select":
            slider = w.SelectionSlider(options=list(self.options), value=self.default, tooltip=self.label,
                                       continuous_update=False)
        else:
            cls = w.IntSlider if self.kind == "int" else w.FloatSlider
            slider = cls(value=self.default, min=self.min, max=self.max, step=self.step, tooltip=self.label,
                         continuous_update=False)
        slider.layout = w.Layout(width="min(60vw, 300px)")
        label = w.HTML(html.escape(self.label), layout=w.Layout(width="190px"))
        label.add_class("lc-label")
        return w.HBox([label, slider]), slider


class Unavailable:
    """Stand in for a panel whose dependencies are missing; its repr says what to install."""

    def __init__(self, panel: str, missing: str) -> None:
        self.panel = panel
        self.missing = missing

    def __repr__(self) -> str:
        import sys

        if sys.platform == "emscripten":  # the live (JupyterLite) version: nothing to pip install
            return (f"{self.panel}: this interactive panel needs {self.missing}, which could not be loaded in "
                    f"this browser (the live version fetches it from the internet). The rest of the chapter "
                    f"runs; the book's page shows the panel working.")
        return (f"{self.panel}: this interactive panel needs {self.missing}, which is not installed here. "
                f"Install it (pip install ipywidgets matplotlib) and re-run the cell; the text and the "
                f"static figures of the chapter do not need it.")

    def _repr_html_(self) -> str:
        return f"<p class='lc-unavailable'>{html.escape(repr(self))}</p>"

    def __bool__(self) -> bool:
        return False


def _missing_dependency() -> str | None:
    for module in ("ipywidgets", "matplotlib"):
        try:
            __import__(module)
        except ImportError:
            return module
    return None


def render_png(plot: Callable[..., Any], result: Any, *, figsize: tuple[float, float] = FIGSIZE_IN,
               dpi: int = PNG_DPI, colors: int | None = None) -> bytes:
    """Draw ``plot(result, ax)`` in the course style on an off-screen figure and return PNG bytes.

    The figure never touches pyplot, so nothing leaks into the notebook's own outputs. ``colors``
    quantizes to a palette PNG (about 4x smaller; used for the pre-rendered states of static panels).
    """
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from .plots import course_rc

    # A layout solver per frame costs ~100 ms; a fixed title height (the axes top, where the automatic
    # placement puts it anyway with no top ticks) skips measuring every tick label (~15 ms, same pixels).
    rc = course_rc() | {"figure.constrained_layout.use": False, "axes.titley": 1.0}
    with matplotlib.rc_context(rc):
        fig = Figure(figsize=figsize, dpi=dpi)
        FigureCanvasAgg(fig)
        fig.subplots_adjust(**FIG_MARGINS)
        ax = fig.add_subplot()
        plot(result, ax)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=dpi)
    if colors is None:
        return buf.getvalue()
    from PIL import Image  # matplotlib depends on Pillow

    small = io.BytesIO()
    Image.open(buf).convert("RGB").quantize(colors=colors, method=Image.Quantize.MEDIANCUT).save(
        small, format="PNG", optimize=True)
    return small.getvalue()


class Panel:
    """A built panel: display it, or drive it from code with ``set``/``reset`` and read ``result``/``readout``.

    ``controls`` maps each keyword to its slider widget; ``widget`` is the top ipywidgets container;
    ``kind`` is ``"live"`` or ``"static"``; ``update_ms`` records how long each update took.
    """

    def __init__(self, name: str, kind: str, controls: dict[str, Any], widget: Any,
                 defaults: Mapping[str, Any]) -> None:
        self.name = name
        self.kind = kind
        self.controls = controls
        self.widget = widget
        self.defaults = dict(defaults)
        self.result: Any = None
        self.readout: str = ""
        self.png: bytes = b""
        self.update_ms: list[float] = []
        self.render_ms: list[float] = []  # static panels: the time to pre-render each state
        self.link: Any = None  # static panels: the jslink from the slider's index to the figure stack

    def values(self) -> dict[str, Any]:
        """Return the current value of every control."""
        return {name: c.value for name, c in self.controls.items()}

    def set(self, **values: Any) -> Any:
        """Move the named sliders (as a reader would) and return the new result."""
        unknown = set(values) - set(self.controls)
        if unknown:
            raise KeyError(f"{self.name} has no control {sorted(unknown)}; controls: {sorted(self.controls)}")
        for name, value in values.items():
            self.controls[name].value = value
        return self.result

    def reset(self) -> Any:
        """Put every slider back at the value the prose uses and return that result."""
        return self.set(**self.defaults)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        return f"Panel({self.name!r}, kind={self.kind!r}, values={self.values()!r}, readout={self.readout!r})"


def _header(title: str | None) -> list[Any]:
    import ipywidgets as w

    return [w.HTML(f"<b>{html.escape(title)}</b>")] if title else []


def live_panel(
    name: str,
    *,
    controls: Sequence[Control],
    compute: Callable[..., Any],
    plot: Callable[[Any, Any], Any],
    readout: Callable[[Any], str],
    title: str | None = None,
) -> Panel:
    """Build a live panel: every slider move runs ``compute`` then ``plot`` and ``readout`` (needs a kernel).

    The figure is an ``ipywidgets.Image`` (PNG), so the default state also shows on a static page.
    """
    import ipywidgets as w

    built = {c.name: c.build() for c in controls}
    sliders = {name: slider for name, (_row, slider) in built.items()}
    for s in sliders.values():
        s.add_class("lc-control")
    image = w.Image(format="png")
    image.add_class("lc-figure")
    text = w.HTML()
    text.add_class("lc-readout")
    box = w.VBox([*_header(title), *(row for row, _slider in built.values()), image, text])
    box.add_class("lc-panel")
    box.add_class("lc-live")
    panel = Panel(name, "live", sliders, box, {c.name: c.default for c in controls})

    def update(_change: Any = None) -> None:
        t0 = time.perf_counter()
        result = compute(**panel.values())
        png = render_png(plot, result)
        panel.result, panel.png, panel.readout = result, png, readout(result)
        image.value = png
        text.value = panel.readout
        panel.update_ms.append((time.perf_counter() - t0) * 1e3)

    for s in sliders.values():
        s.observe(update, names="value")
    update()
    return panel


def static_panel(
    name: str,
    *,
    control: Control,
    compute: Callable[..., Any],
    plot: Callable[[Any, Any], Any],
    readout: Callable[[Any], str],
    title: str | None = None,
) -> Panel:
    """Build a kernel-free headline panel: one pre-rendered PNG per slider position, switched by ``jslink``.

    Keep ``control.options`` to about 10-12 values: each state is embedded in the page.
    """
    import ipywidgets as w

    if not control.options:
        raise ValueError(f"{name}: a static panel's control needs explicit options, got a range")
    row, slider = control.build()
    slider.add_class("lc-headline")
    results, pngs, readouts, pages = [], [], [], []
    render_ms = []
    for value in control.options:
        t0 = time.perf_counter()
        result = compute(**{control.name: value})
        png = render_png(plot, result, colors=STATIC_COLORS)
        render_ms.append((time.perf_counter() - t0) * 1e3)
        results.append(result)
        pngs.append(png)
        readouts.append(readout(result))
        image = w.Image(value=png, format="png")
        image.add_class("lc-figure")
        text = w.HTML(readouts[-1])
        text.add_class("lc-readout")
        pages.append(w.VBox([image, text]))
    index = control.options.index(control.default)
    stack = w.Stack(pages, selected_index=index)
    link = w.jslink((slider, "index"), (stack, "selected_index"))  # moves the figure in the browser, kernel or not
    box = w.VBox([*_header(title), row, stack])
    for cls in ("lc-panel", "lc-static"):
        box.add_class(cls)
    panel = Panel(name, "static", {control.name: slider}, box, {control.name: control.default})
    panel.render_ms = render_ms
    panel.link = link

    def select(_change: Any = None) -> None:
        t0 = time.perf_counter()
        i = slider.index
        stack.selected_index = i  # jslink only runs in a browser; keep the kernel side in step too
        panel.result, panel.png, panel.readout = results[i], pngs[i], readouts[i]
        panel.update_ms.append((time.perf_counter() - t0) * 1e3)

    slider.observe(select, names="index")
    select()
    panel.update_ms.clear()
    return panel


# --------------------------------------------------------------------------- the registry

PANELS: dict[str, Callable[[], Any]] = {}
#: Each registered panel's kind, from its name: "static" (kernel-free headline) or "live".
PANEL_KINDS: dict[str, str] = {}


def register_panel(factory: Callable[[], Any]) -> Callable[[], Any]:
    """Register a panel factory (a decorator) and make it return ``Unavailable`` if a dependency is missing.

    The name says the kind: ``*_headline_panel`` factories build kernel-free static panels, all
    others live ones (:data:`PANEL_KINDS`), and a factory that builds the other kind is an error.
    """
    import functools

    name = factory.__name__
    kind = "static" if name.endswith("_headline_panel") else "live"

    @functools.wraps(factory)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        missing = _missing_dependency()
        if missing is not None:
            return Unavailable(name, missing)
        panel = factory(*args, **kwargs)
        if panel.kind != kind:
            raise TypeError(f"{name} built a {panel.kind} panel; a name ending in _headline_panel means static, any other live")
        return panel

    PANELS[name] = guarded
    PANEL_KINDS[name] = kind
    return guarded


_MEMO: dict[tuple, Any] = {}


def _memo(key: tuple, make: Callable[[], Any]) -> Any:
    """Compute a panel state once per ``key`` (the slider values): simulations are too slow to redo per redraw."""
    if key not in _MEMO:
        _MEMO[key] = make()
    return _MEMO[key]


def _sweep_headline_panel(name: str, *, control: Control, sweeps: Sequence[Mapping[Any, Any]],
                           plot: Callable[..., Any], readout: Callable[[Any], str], **plot_options: Any) -> Panel:
    """Build a static panel over pre-computed runs: the slider picks one key, the figure highlights it.

    ``sweeps`` holds one or more ``{key: run}`` maps over ``control.options``; each state is
    ``(key, run, ...)`` (one run per sweep), and the figure is ``plot(*sweeps, highlight=key, ax=ax)``.
    """
    return static_panel(
        name,
        control=control,
        compute=lambda **value: (value[control.name], *(sweep[value[control.name]] for sweep in sweeps)),
        plot=lambda state, ax: plot(*sweeps, highlight=state[0], ax=ax, **plot_options),
        readout=readout,
    )


def _usd(x: float) -> str:
    return f"${x:,.0f}"


# --------------------------------------------------------------------------- chapter 1: why multi-LoRA

FLEET_TENANTS: tuple[int, ...] = (1, 2, 5, 10, 20, 40, 60, 80, 100, 150, 200)


def _fleet(tenants: int, *, gpu_hourly_usd: float = 3.20, adapter_vram_mb: float = 16.0,
           tenant_qps: float | None = None, gpu_qps: float | None = None) -> Any:
    from .adapter import tenant_adapters
    from .fleet import fleet_plan

    return fleet_plan(tenant_adapters(tenants, vram_mb=adapter_vram_mb), gpu_hourly_usd=gpu_hourly_usd,
                      tenant_qps=tenant_qps, gpu_qps=gpu_qps)


def _fleet_headline_panel(name: str, *, control: Control, compute: Callable[[Any], Any],
                          readout: Callable[[Any], str]) -> Panel:
    """Build a static panel of fleet bills whose dollar axis stays put: 1.2 x the largest state's dedicated bill."""
    from .plots import plot_fleet_costs

    usd_max = compute(max(control.options)).dedicated_monthly_usd * 1.2
    return static_panel(name, control=control, compute=compute, readout=readout,
                        plot=lambda plan, ax: plot_fleet_costs(plan, usd_max=usd_max, ax=ax))


def _fleet_readout(plan: Any) -> str:
    return (f"<b>{plan.tenants} tenants</b>: dedicated {plan.dedicated_gpus} GPUs, "
            f"{_usd(plan.dedicated_monthly_usd)}/month &nbsp;vs&nbsp; multi-LoRA {plan.multi_lora_gpus} GPU"
            f"{'s' if plan.multi_lora_gpus != 1 else ''}, {_usd(plan.multi_lora_monthly_usd)}/month "
            f"&rarr; <b>{plan.savings_pct:.1f}% cheaper</b>")


@register_panel
def fleet_headline_panel() -> Panel:
    """Show the economic case for a number of tenants; works on a static page (chapter 1's headline)."""
    return _fleet_headline_panel(
        "fleet_headline_panel",
        control=Control("tenants", "tenants", default=40, options=FLEET_TENANTS),
        compute=_fleet,
        readout=_fleet_readout,
    )


@register_panel
def economics_panel() -> Panel:
    """Explore the monthly bills: tenants, GPU price and adapter size (chapter 1, needs a kernel)."""
    from .plots import plot_fleet_costs

    return live_panel(
        "economics_panel",
        controls=[
            Control("tenants", "tenants", default=40, min=1, max=200, step=1),
            Control("gpu_hourly_usd", "GPU price (USD/hour)", default=3.20, min=0.50, max=8.00, step=0.10),
            Control("adapter_vram_mb", "adapter size (MiB)", default=16.0, min=1.0, max=4096.0, step=1.0),
        ],
        compute=lambda tenants, gpu_hourly_usd, adapter_vram_mb: _fleet(
            tenants, gpu_hourly_usd=gpu_hourly_usd, adapter_vram_mb=adapter_vram_mb),
        plot=lambda plan, ax: plot_fleet_costs(plan, ax=ax),
        readout=_fleet_readout,
    )


# --------------------------------------------------------------------------- chapter 2: an adapter is a delta

LLAMA3_8B = {"hidden": 4096, "layers": 32, "targets": 2, "bytes_per_param": 2}  # r=16 on q,v in bf16
RANKS: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256)


@dataclass(frozen=True, slots=True)
class AdapterShape:
    """One adapter's shape and its VRAM (the result of the chapter 2 sizing panels)."""

    rank: int
    hidden: int
    layers: int
    targets: int
    bytes_per_param: float
    vram_mb: float


def _shape(rank: int, hidden: int, layers: int, targets: int, bytes_per_param: float) -> AdapterShape:
    from .sizing import adapter_vram_mb

    return AdapterShape(rank, hidden, layers, targets, bytes_per_param,
                        adapter_vram_mb(rank, hidden, layers, targets, bytes_per_param))


def _plot_shape(s: AdapterShape, ax: Any) -> Any:
    from .plots import plot_adapter_vram

    return plot_adapter_vram(s.rank, hidden=s.hidden, layers=s.layers, targets=s.targets,
                             bytes_per_param=s.bytes_per_param, ax=ax)


def _shape_readout(s: AdapterShape) -> str:
    return (f"r={s.rank}, hidden {s.hidden}, {s.layers} layers, {s.targets} target modules, "
            f"{s.bytes_per_param:g} bytes/param &rarr; <b>{s.vram_mb:,.1f} MiB</b>")


@register_panel
def rank_headline_panel() -> Panel:
    """Show adapter VRAM against rank for Llama-3-8B on q,v; works on a static page (chapter 2's headline)."""
    return static_panel(
        "rank_headline_panel",
        control=Control("rank", "LoRA rank r", default=16, options=RANKS),
        compute=lambda rank: _shape(rank, **LLAMA3_8B),
        plot=_plot_shape,
        readout=_shape_readout,
    )


@register_panel
def vram_panel() -> Panel:
    """Size an adapter from rank, hidden size, layers, targets and bytes per parameter (chapter 2, needs a kernel)."""
    return live_panel(
        "vram_panel",
        controls=[
            Control("rank", "rank r", default=16, options=RANKS),
            Control("hidden", "hidden size d (features)", default=4096,
                    options=(1024, 2048, 3072, 4096, 5120, 8192, 12288, 16384)),
            Control("layers", "layers", default=32, min=1, max=128, step=1),
            Control("targets", "target modules per layer", default=2, min=1, max=7, step=1),
            Control("bytes_per_param", "bytes per parameter", default=2, options=(1, 2, 4)),
        ],
        compute=_shape,
        plot=_plot_shape,
        readout=_shape_readout,
    )


def _split(gpu_vram_gb: float, base_vram_gb: float, kv_cache_gb: float, adapter_vram_mb: float) -> Any:
    from .sizing import gpu_memory_split

    base_vram_gb = min(base_vram_gb, gpu_vram_gb)
    kv_cache_gb = min(kv_cache_gb, gpu_vram_gb - base_vram_gb)  # a slider cannot overfill the GPU
    return gpu_memory_split(gpu_vram_gb, base_vram_gb=base_vram_gb, kv_cache_gb=kv_cache_gb,
                            adapter_vram_mb=adapter_vram_mb)


def _split_readout(s: Any) -> str:
    return (f"adapter pool {s.adapter_pool_mb / 1024:,.1f} GiB / {s.adapter_vram_mb:,.1f} MiB per adapter "
            f"&rarr; <b>{s.adapters_that_fit:,} adapters fit</b>")


@register_panel
def gpu_split_panel() -> Panel:
    """Split one GPU into base weights, KV-cache pool and adapter pool; count the adapters that fit (chapter 2)."""
    from .plots import plot_gpu_split

    return live_panel(
        "gpu_split_panel",
        controls=[
            Control("gpu_vram_gb", "GPU memory (GiB)", default=80, options=(24, 40, 48, 80, 94, 141, 192)),
            Control("base_vram_gb", "base weights (GiB)", default=16, min=0, max=140, step=1),
            Control("kv_cache_gb", "KV-cache pool (GiB)", default=24, min=0, max=140, step=1),
            Control("adapter_vram_mb", "adapter size (MiB)", default=16.0, min=1.0, max=1024.0, step=1.0),
        ],
        compute=_split,
        plot=lambda s, ax: plot_gpu_split(s, ax=ax),
        readout=_split_readout,
    )


# --- chapter 10: affinity -----------------------------------------------------------------------
# (appended by the fleet-routing engineer; panels for chapters 10-12 follow)

AFFINITY_SKEWS: tuple[float, ...] = (0.0, 0.5, 0.8, 1.0, 1.2)


def _affinity_readout(runs: Mapping[str, Any]) -> str:
    plain, bounded, rr = runs["rendezvous"], runs["bounded-rendezvous"], runs["round-robin"]
    return (f"p99: round-robin {rr.p99_ms:,.0f} ms (hit {rr.hit_rate:.0%}) &middot; rendezvous "
            f"{plain.p99_ms:,.0f} ms (busiest replica x{plain.imbalance:.2f}) &middot; "
            f"<b>bounded {bounded.p99_ms:,.0f} ms</b> (x{bounded.imbalance:.2f}, hit {bounded.hit_rate:.0%})")


@register_panel
def affinity_headline_panel() -> Panel:
    """Show p99 per placement policy as one tenant gets hotter; works on a static page (chapter 10's headline)."""
    from .plots import plot_policy_comparison

    return static_panel(
        "affinity_headline_panel",
        control=Control("zipf_s", "popularity skew s (Zipf exponent)", default=1.0, options=AFFINITY_SKEWS),
        compute=lambda zipf_s: _memo(("affinity", zipf_s), lambda: affinity_runs(zipf_s)),
        plot=lambda runs, ax: plot_policy_comparison(runs, p99_max_ms=100_000, ax=ax),
        readout=_affinity_readout,
    )


@register_panel
def affinity_panel() -> Panel:
    """Explore placement: skew, replicas, the bounded-load factor and the cache size (chapter 10, needs a kernel)."""
    from .plots import plot_replica_load

    return live_panel(
        "affinity_panel",
        controls=[
            Control("zipf_s", "popularity skew s (Zipf exponent)", default=1.0, min=0.0, max=1.4, step=0.1),
            Control("replicas", "replicas (GPUs)", default=4, min=2, max=8, step=1),
            Control("load_factor", "bounded-load factor c (x mean)", default=1.25, min=1.05, max=2.0, step=0.05),
            Control("cache_adapters", "cache per replica (adapters)", default=12, min=4, max=40, step=1),
        ],
        compute=lambda zipf_s, replicas, load_factor, cache_adapters: affinity_runs(
            zipf_s, replicas, load_factor, cache_adapters, requests=AFFINITY_LIVE_REQUESTS + AFFINITY_LIVE_WARMUP,
            warmup=AFFINITY_LIVE_WARMUP, policies=AFFINITY_LIVE_POLICIES),
        plot=lambda runs, ax: plot_replica_load(runs, ax=ax),
        readout=_affinity_live_readout,
    )


# The live panel replays a shorter trace than the text (which measures 8,000 requests after a 2,000 warmup)
# and leaves out least-loaded (it behaves like round-robin), so a slider move stays under 100 ms. Overloaded
# replicas queue more the longer the run, so its p99 values are lower than the text's; the ranking holds.
AFFINITY_LIVE_REQUESTS = 700
AFFINITY_LIVE_WARMUP = 150
AFFINITY_LIVE_POLICIES: tuple[str, ...] = ("round-robin", "rendezvous", "bounded-rendezvous")


def _affinity_live_readout(runs: Mapping[str, Any]) -> str:
    return (_affinity_readout(runs) + f"<br><small>over {AFFINITY_LIVE_REQUESTS:,} requests after a "
            f"{AFFINITY_LIVE_WARMUP:,}-request warmup (a shorter replay than the text's, so the queues, and the "
            f"p99s, of overloaded replicas grow less)</small>")


# --- chapter 11: canary -------------------------------------------------------------------------

CANARY_ERROR_RATES_PCT: tuple[float, ...] = (0.5, 1.0, 1.5, 2.0, 3.0, 5.0)


def _plot_canary(log: Sequence[Any], ax: Any, *, legend: bool = True, requests_max: int = 40_000) -> Any:
    from .plots import plot_canary_log

    return plot_canary_log(log, requests_max=requests_max, legend=legend, ax=ax)


def _canary_readout(log: Sequence[Any]) -> str:
    last = log[-1]
    return (f"{len(log)} decisions; last: <b>{last.action}</b> at {last.at_request:,} requests &mdash; "
            f"{html.escape(last.reason)}")


def _key(entries: Mapping[str, tuple[str, str]]) -> str:
    """Return an HTML colour key (``{label: (symbol, colour)}``): a figure legend costs ~40 ms per redraw."""
    return " ".join(f"<span style='color:{color}'>{html.escape(symbol)}</span>&nbsp;{html.escape(label)}"
                    for label, (symbol, color) in entries.items())


_MARKER_SYMBOLS = {"o": "\u25cf", "^": "\u25b2", "*": "\u2605", "X": "\u2716"}


def _canary_live_readout(log: Sequence[Any]) -> str:
    from .plots import CANARY_ACTION_STYLE

    key = _key({a: (_MARKER_SYMBOLS.get(m, m), c) for a, (m, c) in CANARY_ACTION_STYLE.items()})
    return (f"{_canary_readout(log)}<br><small>markers: {key}; a live replay of {CANARY_LIVE_REQUESTS:,} "
            "requests (the text replays 40,000)</small>")


@register_panel
def canary_headline_panel() -> Panel:
    """Show the rollout as the candidate's true error rate rises; works on a static page (chapter 11's headline)."""
    return static_panel(
        "canary_headline_panel",
        control=Control("candidate_error_pct", "candidate error rate (%)", default=0.5,
                        options=CANARY_ERROR_RATES_PCT),
        compute=lambda candidate_error_pct: canary_log(candidate_error_pct),
        plot=_plot_canary,
        readout=_canary_readout,
    )


@register_panel
def canary_panel() -> Panel:
    """Explore the canary: the candidate's error rate, latency and eval quality (chapter 11, needs a kernel)."""
    return live_panel(
        "canary_panel",
        controls=[
            Control("candidate_error_pct", "candidate error rate (%)", default=0.5, min=0.0, max=5.0, step=0.25),
            Control("candidate_latency_ms", "candidate base latency (ms)", default=42.0, min=30.0, max=70.0,
                    step=1.0),
            Control("candidate_quality", "candidate eval pass rate (fraction)", default=0.90, min=0.60, max=1.0,
                    step=0.01),
        ],
        compute=lambda **values: canary_log(**values, requests=CANARY_LIVE_REQUESTS),
        plot=lambda log, ax: _plot_canary(log, ax, legend=False, requests_max=CANARY_LIVE_REQUESTS),
        readout=_canary_live_readout,
    )


# The live panel replays half the text's 40,000 requests so a slider move stays under 100 ms; aborts come
# within the first few thousand requests, so only long "hold" runs end sooner than in the text.
CANARY_LIVE_REQUESTS = 20_000


# --- chapter 12: batch overhead -----------------------------------------------------------------

BATCH_DISTINCT: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64)


def _plot_break_even_view(view: BreakEvenView, ax: Any, *, legend: bool = True) -> Any:
    from .plots import plot_break_even

    return plot_break_even(fit_sgmv(), rank=view.rank, distinct=view.distinct, legend=legend, ax=ax)


def _break_even_live_readout(view: BreakEvenView) -> str:
    from .plots import OKABE_ITO, RANK_COLORS

    key = _key({f"r={r}" + (" (yours, bold)" if r == view.rank else ""): ("\u2501", c)
                for r, c in RANK_COLORS.items()} | {"flat 5%": ("\u2504", OKABE_ITO["black"])})
    return f"{_break_even_readout(view)}<br><small>lines: {key}</small>"


def _break_even_readout(view: BreakEvenView) -> str:
    return (f"{view.distinct} distinct r={view.rank} adapters per batch: overhead <b>{view.overhead:.1%}</b> "
            f"&rarr; a merged GPU wins above <b>{view.break_even_utilisation:.1%}</b> utilisation "
            f"(flat 5%: {view.flat_break_even_utilisation:.1%})")


@register_panel
def batch_headline_panel() -> Panel:
    """Show the break-even moving with the distinct adapters per batch; works on a static page (chapter 12)."""
    return static_panel(
        "batch_headline_panel",
        control=Control("distinct", "distinct adapters per batch (count)", default=32, options=BATCH_DISTINCT),
        compute=lambda distinct: break_even_view(distinct, 16),
        plot=_plot_break_even_view,
        readout=_break_even_readout,
    )


@register_panel
def batch_panel() -> Panel:
    """Explore the honest batch overhead: distinct adapters per batch and rank (chapter 12, needs a kernel)."""
    return live_panel(
        "batch_panel",
        controls=[
            Control("distinct", "distinct adapters per batch (count)", default=32, options=BATCH_DISTINCT),
            Control("rank", "LoRA rank r", default=16, options=(8, 16, 32, 64)),
        ],
        compute=break_even_view,
        plot=lambda view, ax: _plot_break_even_view(view, ax, legend=False),
        readout=_break_even_live_readout,
    )


# --- chapter 08: serving simulator (also chapters 09 and 13) -----------------------------------
# The runs come from labcore.sim (onboarding_runs, spill_runs, admission_runs); the static panels
# pre-compute every state once (a few seconds in all) and keep them in the panel memo.



def _onboarding_readout(state: tuple[int, Any]) -> str:
    tenants, r = state
    return (f"<b>{tenants} tenants</b> on a {ONBOARDING['pool_adapters']}-adapter pool: hit rate "
            f"{100 * r.hit_rate:.2f}%, p50 {r.p50_ms:.0f} ms, <b>p99 {r.p99_ms:.0f} ms</b>")


@register_panel
def onboarding_headline_panel() -> Panel:
    """Show p99 as tenants outgrow a forty-adapter pool; works on a static page (chapter 8's headline)."""
    from .plots import plot_p99_cliff

    return _sweep_headline_panel(
        "onboarding_headline_panel",
        control=Control("tenants", "tenants sharing the pool", default=41, options=ONBOARDING_TENANTS),
        sweeps=[_memo(("onboarding",), onboarding_runs)],
        plot=plot_p99_cliff,
        readout=_onboarding_readout,
        pool_adapters=ONBOARDING["pool_adapters"],
    )


def _timeline_readout(r: Any) -> str:
    before, after = r.phases
    return (f"before the join: hit rate {100 * before.hit_rate:.2f}%, p99 {before.p99_ms:.0f} ms &middot; "
            f"after: hit rate {100 * after.hit_rate:.2f}%, <b>p99 {after.p99_ms:.0f} ms</b>")


#: Requests the live simulator replays per slider move (the text's run has 40,000); 8,000 keep a move under
#: 100 ms and still put the 1% step of the p99 where the text says (checked in the chapter's hidden cell).
SIMULATOR_LIVE_REQUESTS = 6_000


def _timeline_live_readout(r: Any) -> str:
    return (f"{_timeline_readout(r)}<br><small>{r.requests:,} requests counted of {SIMULATOR_LIVE_REQUESTS:,} "
            f"replayed (after a warmup); the dashed line is the join</small>")


@register_panel
def simulator_panel() -> Panel:
    """Replay the onboarding with your own tenants, pool and skew (chapter 8, needs a kernel).

    A progress bar under the sliders follows each replay (``simulate``'s ``progress`` callback).
    """
    import ipywidgets as w

    from .plots import plot_sim_timeline

    bar = w.IntProgress(value=0, min=0, max=SIMULATOR_LIVE_REQUESTS, description="simulated",
                        layout=w.Layout(width="min(60vw, 490px)"))
    bar.add_class("lc-progress")

    def progress(done: int, total: int) -> None:
        bar.max, bar.value = total, done

    panel = live_panel(
        "simulator_panel",
        controls=[
            Control("tenants", "tenants after the join", default=41, min=20, max=80, step=1),
            Control("pool_adapters", "pool size (16 MiB adapters)", default=40, min=10, max=80, step=1),
            Control("zipf_s", "popularity skew s (Zipf exponent)", default=0.5, min=0.0, max=1.5, step=0.1),
        ],
        compute=lambda tenants, pool_adapters, zipf_s: onboarding_timeline(
            tenants, pool_adapters, zipf_s, requests=SIMULATOR_LIVE_REQUESTS, progress=progress,
            progress_every=SIMULATOR_LIVE_REQUESTS // 8),
        plot=lambda r, ax: plot_sim_timeline(r, event_ms=r.phases[0].end_ms, hit_rate=False, ax=ax),
        readout=_timeline_live_readout,
    )
    children = list(panel.widget.children)
    panel.widget.children = (*children[:-2], bar, *children[-2:])  # sliders, progress, figure, readout
    return panel


def _spill_readout(state: tuple[int, Any, Any]) -> str:
    tenants, single, tiered = state
    return (f"<b>{tenants} tenants</b>, GPU hit rate {100 * single.hit_rate:.1f}%: p99 "
            f"{single.p99_ms:.1f} ms GPU-only vs <b>{tiered.p99_ms:.1f} ms</b> with the host tier")


@register_panel
def spill_headline_panel() -> Panel:
    """Show p99 under churn with and without a host-RAM tier; works on a static page (chapter 9's headline)."""
    from .plots import plot_tier_churn

    return _sweep_headline_panel(
        "spill_headline_panel",
        control=Control("tenants", "tenants churning through the pool", default=64, options=SPILL_TENANTS),
        sweeps=_memo(("spill",), spill_runs),
        plot=plot_tier_churn,
        readout=_spill_readout,
        gpu_adapters=SPILL["gpu_adapters"],
        host_adapters=SPILL["host_adapters"],
    )


def _admission_readout(state: tuple[int, Any]) -> str:
    pool, r = state
    return (f"<b>{pool}-adapter pool</b>: {r.queued:,} of {r.requests:,} requests waited (longest "
            f"{r.max_wait_ms:,.0f} ms), <b>{r.refused:,} refused</b>, p99 {r.p99_ms:,.0f} ms")


@register_panel
def admission_headline_panel() -> Panel:
    """Show waiting and refusals as the adapter pool shrinks under in-flight load (chapter 13's headline)."""
    from .plots import plot_admission

    return _sweep_headline_panel(
        "admission_headline_panel",
        control=Control("pool_adapters", "adapter pool (16 MiB adapters)", default=24, options=ADMISSION_POOLS),
        sweeps=[_memo(("admission",), admission_runs)],
        plot=plot_admission,
        readout=_admission_readout,
    )


__all__ += ["onboarding_headline_panel", "simulator_panel", "spill_headline_panel", "admission_headline_panel"]


# --- chapter 03: versions_and_registry -----------------------------------------------------------
# (appended by the chapter 3-4 author)

MINOR_RELEASES: tuple[int, ...] = (5, 8, 9, 10, 11, 12, 14, 16, 20, 25, 30)


def _release_readout(t: ReleaseTimeline) -> str:
    if not t.stale_periods:
        return (f"{t.name} 1.0.0 &hellip; {t.versions[-1]}: semver and string sort both pick "
                f"<b>{t.semver_latest[-1]}</b>; no unpinned request is stale yet")
    return (f"{t.name} 1.0.0 &hellip; {t.versions[-1]}: semver picks <b>{t.semver_latest[-1]}</b>, string sort "
            f"<b>{t.string_latest[-1]}</b> ({t.releases_behind} releases behind) &rarr; "
            f"<b>{t.stale_share:.0%}</b> of unpinned traffic went to a stale adapter")


@register_panel
def release_headline_panel() -> Panel:
    """Show what "latest" resolves to as 1.x releases pile up, semver vs string sort (chapter 3's headline)."""
    from .plots import plot_release_timeline

    return static_panel(
        "release_headline_panel",
        control=Control("minor_releases", "minor releases (1.1.0 to 1.N.0)", default=12, options=MINOR_RELEASES),
        compute=release_timeline,
        plot=lambda t, ax: plot_release_timeline(t, ax=ax),
        readout=_release_readout,
    )


# --- chapter 04: the_cache ------------------------------------------------------------------------
# (appended by the chapter 3-4 author)

CACHE_BUDGETS_MB: tuple[int, ...] = (64, 128, 192, 256, 320, 384, 448, 512, 576, 640, 704)


def _cache_readout(runs: Mapping[str, CacheRun]) -> str:
    lru, fifo = runs["LRU"], runs["FIFO"]
    fits = int(lru.budget_mb // 16)
    return (f"{lru.budget_mb:g} MiB holds {min(fits, lru.tenants)} of {lru.tenants} adapters: "
            f"LRU <b>{lru.hit_rate:.1%}</b> hits, {lru.evictions:,} evictions, {lru.load_ms / lru.requests:.2f} ms "
            f"load/request &nbsp;vs&nbsp; FIFO <b>{fifo.hit_rate:.1%}</b>, {fifo.evictions:,} evictions "
            f"(hottest adapter evicted {lru.hot_evictions} vs {fifo.hot_evictions} times)")


def _plot_runs(runs: Mapping[str, CacheRun], ax: Any) -> Any:
    from .plots import plot_cache_over_time

    return plot_cache_over_time(runs, ax=ax)


@register_panel
def lru_headline_panel() -> Panel:
    """Show LRU and FIFO hit rates over a seeded trace for one VRAM budget; works on a static page (chapter 4)."""
    return static_panel(
        "lru_headline_panel",
        control=Control("budget_mb", "adapter VRAM budget (MiB)", default=320, options=CACHE_BUDGETS_MB),
        compute=lambda budget_mb: cache_runs(budget_mb),
        plot=_plot_runs,
        readout=_cache_readout,
    )


@register_panel
def lru_cache_panel() -> Panel:
    """Drive the seeded trace through LRU and FIFO caches: budget, tenants, popularity skew (chapter 4, needs a kernel)."""
    return live_panel(
        "lru_cache_panel",
        controls=[
            Control("budget_mb", "adapter VRAM budget (MiB)", default=320, min=32, max=1024, step=32),
            Control("tenants", "tenants", default=40, min=5, max=100, step=5),
            Control("zipf_s", "popularity skew (Zipf s)", default=1.0, min=0.0, max=2.0, step=0.1),
        ],
        compute=lambda budget_mb, tenants, zipf_s: cache_runs(budget_mb, tenants, zipf_s),
        plot=_plot_runs,
        readout=_cache_readout,
    )


# --- chapter 14: real_stack ---------------------------------------------------------------------
# (appended by the chapter 14 author: exact adapter sizes from a model's config.json)

#: Target-module sets a reader can pick, by the name the panel shows.
TARGET_SETS: dict[str, tuple[str, ...]] = {
    "q,v": ("q_proj", "v_proj"),
    "q,k,v,o": ("q_proj", "k_proj", "v_proj", "o_proj"),
    "all 7 (attention + MLP)": ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"),
}
SIZING_MODELS: tuple[str, ...] = ("llama-2-7b", "llama-3-8b", "mistral-7b", "llama-3-70b")
SIZING_RANKS: tuple[int, ...] = (2, 4, 8, 16, 32, 64, 128)  # the headline's pre-rendered states


@dataclass(frozen=True, slots=True)
class ExactSizing:
    """One state of chapter 14's sizing panels: the adapter's size three ways, and per target module.

    ``per_target`` holds ``(target, naive_mb, exact_mb)`` at 2 bytes per parameter (bf16).
    """

    model: str
    rank: int
    targets: tuple[str, ...]
    naive_mb: float
    exact_mb: float
    file_mb: float
    per_target: tuple[tuple[str, float, float], ...]


def exact_sizing(model: str = "llama-3-8b", rank: int = 16, targets: str = "q,v") -> ExactSizing:
    """Size an adapter naively (every projection d x d) and exactly (from the model's config.json).

    ``targets`` is a key of :data:`TARGET_SETS`. ``file_mb`` is the F32 tensor data PEFT writes by default.

    >>> exact_sizing().exact_mb, exact_sizing().naive_mb, exact_sizing().file_mb
    (13.0, 16.0, 26.0)
    """
    from .model_config import exact_adapter_mb, load_model_config
    from .sizing import adapter_vram_mb

    cfg = load_model_config(model)
    names = TARGET_SETS[targets]
    per_target = tuple(
        (t.split("_")[0], adapter_vram_mb(rank, cfg.hidden_size, cfg.num_hidden_layers, 1, 2),
         exact_adapter_mb(cfg, rank, [t]))
        for t in names)
    return ExactSizing(model, int(rank), names,
                       adapter_vram_mb(rank, cfg.hidden_size, cfg.num_hidden_layers, len(names), 2),
                       exact_adapter_mb(cfg, rank, names), exact_adapter_mb(cfg, rank, names, bytes=4), per_target)


def _exact_sizing_readout(s: ExactSizing) -> str:
    gap = 100 * (s.exact_mb / s.naive_mb - 1)
    return (f"{html.escape(s.model)}, r={s.rank} on {len(s.targets)} modules: <b>exact {s.exact_mb:,.1f} MiB</b> "
            f"in bf16 vs naive {s.naive_mb:,.1f} MiB ({gap:+.0f}%); the F32 PEFT file holds {s.file_mb:,.1f} MiB")


@register_panel
def real_sizing_headline_panel() -> Panel:
    """Show naive, exact and on-disk adapter size against rank for Llama-3-8B q,v; works on a static page (ch. 14)."""
    from .plots import plot_exact_vs_naive

    return static_panel(
        "real_sizing_headline_panel",
        control=Control("rank", "LoRA rank r", default=16, options=SIZING_RANKS),
        compute=lambda rank: exact_sizing("llama-3-8b", rank, "q,v"),
        plot=lambda s, ax: plot_exact_vs_naive(s.rank, model=s.model, targets=s.targets, ax=ax),
        readout=_exact_sizing_readout,
    )


@register_panel
def real_sizing_panel() -> Panel:
    """Compare naive and exact sizes per target module for a model, rank and target set (chapter 14, needs a kernel)."""
    from .plots import plot_size_comparison

    return live_panel(
        "real_sizing_panel",
        controls=[
            Control("model", "model (config.json)", default="llama-3-8b", options=SIZING_MODELS),
            Control("rank", "LoRA rank r", default=16, options=RANKS),
            Control("targets", "target modules (set)", default="q,v", options=tuple(TARGET_SETS)),
        ],
        compute=exact_sizing,
        plot=lambda s, ax: plot_size_comparison(
            s.per_target, title=f"{s.model}: exact {s.exact_mb:,.1f} vs naive {s.naive_mb:,.1f} MiB", ax=ax),
        readout=_exact_sizing_readout,
    )


__all__ += ["TARGET_SETS", "SIZING_MODELS", "SIZING_RANKS", "ExactSizing", "exact_sizing", "real_sizing_headline_panel",
            "real_sizing_panel"]


# --- chapter 05: the router ---------------------------------------------------------------------
# (appended by the chapter 5-7 author; panels for chapters 5, 6 and 7 follow)

CUSTOMER41_BUDGETS: tuple[int, ...] = (36, 37, 38, 39, 40, 41)  # cache budget, in 16 MiB adapters


def _route_readout(d: Mapping[str, Any]) -> str:
    miss, hit = d["dynamic miss"], d["dynamic hit"]
    return (f"base / dedicated <b>{d['base'].total_latency_ms:,.1f} ms</b> &nbsp;|&nbsp; dynamic hit "
            f"<b>{hit.total_latency_ms:,.1f} ms</b> (+{hit.overhead_ms:,.1f} overhead) &nbsp;|&nbsp; dynamic miss "
            f"<b>{miss.total_latency_ms:,.1f} ms</b> (+{miss.adapter_load_ms:,.1f} load)")


@register_panel
def route_latency_panel() -> Panel:
    """Move the latency model's knobs and watch each route's latency parts (chapter 5, needs a kernel)."""
    from .plots import plot_latency_breakdown

    return live_panel(
        "route_latency_panel",
        controls=[
            Control("base_latency_ms", "base model latency (ms)", default=40, min=10, max=200, step=5),
            Control("dynamic_overhead_pct", "LoRA overhead (%)", default=5, min=0, max=30, step=1),
            Control("adapter_vram_mb", "adapter size (MiB)", default=16, options=(4, 8, 16, 32, 64, 128, 320, 640)),
            Control("transfer_mb_per_ms", "host-to-device bandwidth (MiB/ms)", default=8,
                    options=(1, 2, 4, 8, 16, 24, 48)),
        ],
        compute=lambda base_latency_ms, dynamic_overhead_pct, adapter_vram_mb, transfer_mb_per_ms: route_examples(
            base_latency_ms, dynamic_overhead_pct / 100, adapter_vram_mb, transfer_mb_per_ms),
        plot=lambda d, ax: plot_latency_breakdown(d, ax=ax),
        readout=_route_readout,
    )



def decision_table_html(decisions: Sequence[Any]) -> str:
    """Render ``RouteDecision`` records as an HTML table, one row per request: the router's observability surface.

    >>> from labcore.router import RouteDecision
    >>> "<td>dynamic</td>" in decision_table_html([RouteDecision("dynamic", "a@1.0.0", False, (), 2.0, 44.0)])
    True
    """
    columns = ("ref", "mode", "adapter", "version_pinned", "cache_hit", "evicted", "base_latency_ms", "overhead_ms",
               "adapter_load_ms", "total_latency_ms")

    def cell(value: Any) -> str:
        if value is None:
            text = "—"
        elif isinstance(value, float):
            text = f"{value:,.2f}"
        elif isinstance(value, tuple):
            text = ", ".join(value) or "—"
        else:
            text = str(value)
        return f"<td>{html.escape(text)}</td>"

    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    rows = "".join("<tr>" + "".join(cell(getattr(d, c)) for c in columns) + "</tr>" for d in decisions)
    return f"<table class='lc-decisions'><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _customer41_readout(r: Any) -> str:
    before, after = r.phases
    return (f"p99 <b>{before.p99_ms:,.0f} ms</b> before #41 joins &rarr; <b>{after.p99_ms:,.0f} ms</b> after; "
            f"hit rate {100 * before.hit_rate:.1f}% &rarr; {100 * after.hit_rate:.1f}% "
            f"(p50 stays {after.p50_ms:,.0f} ms)")


@register_panel
def budget_headline_panel() -> Panel:
    """Size the adapter cache and replay customer #41's onboarding; works on a static page (chapter 5's headline)."""
    from .plots import plot_sim_timeline

    return static_panel(
        "budget_headline_panel",
        control=Control("budget_adapters", "cache budget (adapters of 16 MiB)", default=40,
                        options=CUSTOMER41_BUDGETS),
        compute=lambda budget_adapters: _memo(("customer41", budget_adapters),
                                              lambda: customer41_run(budget_adapters)),
        plot=lambda r, ax: plot_sim_timeline(r, event_ms=CUSTOMER41_JOIN_MS, ax=ax),
        readout=_customer41_readout,
    )


# --- chapter 06: fleet plan ---------------------------------------------------------------------

FLEET_GPU_QPS = 20.0  # requests/s one GPU sustains on the base (chapter 1 uses the same figure)
TENANT_QPS_OPTIONS: tuple[float, ...] = (0.5, 1, 2, 3, 5, 8, 10, 15, 20)


def fleet_under_load(tenants: int = 40, gpu_hourly_usd: float = 3.20, adapter_vram_mb: float = 16.0,
                     tenant_qps: float = 0.5, *, gpu_qps: float = FLEET_GPU_QPS) -> Any:
    """Price ``tenants`` same-sized adapters, each sending ``tenant_qps``, on GPUs that sustain ``gpu_qps``.

    >>> p = fleet_under_load(tenant_qps=5)
    >>> p.multi_lora_gpus, p.savings_pct, p.binding_constraint
    (10, 75.0, 'load')
    """
    return _fleet(tenants, gpu_hourly_usd=gpu_hourly_usd, adapter_vram_mb=adapter_vram_mb, tenant_qps=tenant_qps,
                  gpu_qps=gpu_qps)


def _fleet_load_readout(plan: Any) -> str:
    why = "traffic" if plan.binding_constraint == "load" else "adapter memory"
    return (f"{_fleet_readout(plan)}<br>the shared fleet is sized by <b>{why}</b> "
            f"(memory needs {plan.memory_bound_gpus}, load needs {plan.load_bound_gpus} GPU"
            f"{'s' if plan.load_bound_gpus != 1 else ''})")


@register_panel
def qps_headline_panel() -> Panel:
    """Raise every tenant's load and watch the saving shrink; works on a static page (chapter 6's headline)."""
    return _fleet_headline_panel(
        "qps_headline_panel",
        control=Control("tenant_qps", "load per tenant (requests/s)", default=0.5, options=TENANT_QPS_OPTIONS),
        compute=lambda tenant_qps: fleet_under_load(tenant_qps=tenant_qps),
        readout=_fleet_load_readout,
    )


@register_panel
def fleet_panel() -> Panel:
    """Explore the fleet plan: tenants, GPU price, adapter size and per-tenant load (chapter 6, needs a kernel)."""
    from .plots import plot_fleet_costs

    return live_panel(
        "fleet_panel",
        controls=[
            Control("tenants", "tenants", default=40, min=1, max=300, step=1),
            Control("gpu_hourly_usd", "GPU price (USD/hour)", default=3.20, min=0.50, max=8.00, step=0.10),
            Control("adapter_vram_mb", "adapter size (MiB)", default=16,
                    options=(16, 64, 256, 1024, 2048, 4096, 10240, 20480, 40960)),
            Control("tenant_qps", "load per tenant (requests/s)", default=0.5, min=0.5, max=20.0, step=0.5),
        ],
        compute=fleet_under_load,
        plot=lambda plan, ax: plot_fleet_costs(plan, ax=ax),
        readout=_fleet_load_readout,
    )


# --- chapter 07: do the lab ---------------------------------------------------------------------

QUIZ_RANKS: tuple[int, ...] = (4, 8, 16, 32, 64, 128)
LLAMA3_70B = {"hidden": 8192, "layers": 80, "targets": 4}  # q, k, v, o; square-projection estimate


def fit_quiz_split(rank: int = 16, *, pool_gb: float = 8) -> Any:
    """Fill a ``pool_gb`` GiB adapter pool with 70B adapters of ``rank`` on q, k, v, o (bf16).

    >>> fit_quiz_split(32).adapters_that_fit
    25
    """
    from .sizing import adapter_vram_mb, gpu_memory_split

    return gpu_memory_split(pool_gb, base_vram_gb=0, kv_cache_gb=0,
                            adapter_vram_mb=adapter_vram_mb(rank, **LLAMA3_70B))


@register_panel
def fit_quiz_headline_panel() -> Panel:
    """Check the 70B sizing quiz: rank of a q,k,v,o adapter against how many fit in 8 GiB (chapter 7's headline)."""
    from .plots import plot_gpu_split

    return static_panel(
        "fit_quiz_headline_panel",
        control=Control("rank", "LoRA rank r", default=16, options=QUIZ_RANKS),
        compute=fit_quiz_split,
        plot=lambda s, ax: plot_gpu_split(s, ax=ax),
        readout=lambda s: (f"70B, q,k,v,o: <b>{s.adapter_vram_mb:,.0f} MiB</b> per adapter &rarr; "
                           f"<b>{s.adapters_that_fit:,} fit</b> in {s.adapter_pool_mb / 1024:g} GiB"),
    )



__all__ += ["decision_table_html", "route_latency_panel", "budget_headline_panel",
            "fleet_under_load", "qps_headline_panel", "fleet_panel", "fit_quiz_split", "fit_quiz_headline_panel"]
